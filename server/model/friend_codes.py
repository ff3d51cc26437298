"""The form of friend codes: 8 Crockford base32 characters, 40 random bits.

Crockford's alphabet leaves out I, L, O and U, and reads I and L as 1 and O
as 0, so a code read aloud or copied by hand still works; case, dashes
and spaces do not matter.  Shown as ``XXXX-XXXX``.  40 bits make a code
one of about 10^12: with lookups that name nobody limited per player and
per address (``server.social.friends``), guessing one is hopeless.
"""

from __future__ import annotations

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LENGTH = 8
RANDOM_BYTES = 5
"""40 bits: exactly 8 characters of 5 bits."""
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})


def code_from(random: bytes) -> str:
    """The code of ``RANDOM_BYTES`` random bytes, as stored (no dash)."""
    number = int.from_bytes(random[:RANDOM_BYTES], "big")
    return "".join(ALPHABET[(number >> (5 * place)) & 31] for place in reversed(range(LENGTH)))


def normalize(text: str) -> str | None:
    """The stored form of what someone typed, or None when it cannot be a code."""
    code = text.upper().translate(_READ_AS)
    if len(code) != LENGTH or any(char not in ALPHABET for char in code):
        return None
    return code


def shown(code: str) -> str:
    """``XXXX-XXXX``, as people read it."""
    return f"{code[:4]}-{code[4:]}"
