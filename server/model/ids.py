"""The forms of ids and race invite codes.

Player, game and race ids share one form (a prefix and 12 URL-safe
characters, from ``ID_BYTES`` random bytes) wherever something new is
made: ``g_`` games, ``r_`` races, ``p_`` players.  An invite code avoids
the characters people misread (no 0/O, 1/I/L) and is read back whatever
its case, dashes or spaces.  The random part is drawn by the process's
``server.runtime.entropy.Entropy``; this module only names the forms, so
it stays pure.
"""

from __future__ import annotations

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8
ID_BYTES = 9
"""Random bytes of an id: 12 URL-safe characters."""


def normalize_code(text: str) -> str | None:
    """The code as stored, or None when it cannot be one."""
    code = text.upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        return None
    return code
