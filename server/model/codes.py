"""The form of the codes people type: friend codes, league invite codes
and device link codes.

All are Crockford base32: its alphabet leaves out I, L, O and U, and
reads I and L as 1 and O as 0, so a code read aloud or copied by hand
still works; case, dashes and spaces do not matter.  Each character is 5
random bits: a friend code's and a league invite code's 8 are 40 bits
(one of about 10^12), a link code's 10 are 50.  With lookups that name
nobody limited per player and per address (``server.social.friends``,
``server.social.leagues``, ``server.social.devices``),
guessing one is hopeless.
"""

from __future__ import annotations

from dataclasses import dataclass

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})


@dataclass(frozen=True)
class CodeForm:
    """A kind of code: ``length`` characters, shown in groups of ``group``."""

    length: int
    group: int

    @property
    def random_bytes(self) -> int:
        """Random bytes to draw a code from: enough for its ``5 * length`` bits."""
        return (5 * self.length + 7) // 8

    @property
    def space(self) -> int:
        """How many codes there are."""
        return len(ALPHABET) ** self.length

    def code_from(self, random: bytes) -> str:
        """The code of ``random_bytes`` random bytes, as stored (no dash)."""
        number = int.from_bytes(random[: self.random_bytes], "big")
        return "".join(ALPHABET[(number >> (5 * place)) & 31] for place in reversed(range(self.length)))

    def normalize(self, text: str) -> str | None:
        """The stored form of what someone typed, or None when it cannot be a code."""
        code = text.upper().translate(_READ_AS)
        if len(code) != self.length or any(char not in ALPHABET for char in code):
            return None
        return code

    def shown(self, code: str) -> str:
        """As people read it, e.g. ``XXXX-XXXX``."""
        return "-".join(code[start : start + self.group] for start in range(0, len(code), self.group))


FRIEND_CODE = CodeForm(length=8, group=4)
LINK_CODE = CodeForm(length=10, group=5)
LEAGUE_CODE = CodeForm(length=8, group=4)
