"""Data the engine ships: certificate files (``*.txt``, read by the server)
and the tables the engine itself needs as Python literals (it reads no files)."""
