"""The server's values and pure rules: a game session and its log
records, refusals, ids, the race status words and the fair-play rules that
read only a header or a session.

No I/O and no clock of its own, so every other part can share these
values.  It may import ``engine`` and ``protocol`` only: no other part of
``server`` (docs/architecture.md, "The server's folders").
"""
