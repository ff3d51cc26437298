"""Random ids and race invite codes.

Player, game and race ids come from one place so their forms (a prefix
and 12 URL-safe characters) stay the same wherever something new is made:
``g_`` games, ``r_`` races, ``p_`` players.  An invite code avoids the
characters people misread (no 0/O, 1/I/L) and is read back whatever its
case, dashes or spaces.
"""

from __future__ import annotations

import secrets

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8


def new_id(prefix: str) -> str:
    """A random id: ``g_`` games, ``r_`` races, ``p_`` players."""
    return prefix + secrets.token_urlsafe(9)


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: str) -> str | None:
    """The code as stored, or None when it cannot be one."""
    code = text.upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        return None
    return code
