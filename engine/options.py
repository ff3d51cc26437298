"""Game options: what a game accepts, checked before a deal is made.

An option is a closed set of choices or an open integer with bounds; a
refused value is quoted short in the message, whatever was sent, so bad
input never makes a long or odd error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .errors import BadOption

SAFE_INTEGER = (1 << 53) - 1
"""The largest integer every client reads exactly (JavaScript's
``Number.MAX_SAFE_INTEGER``): the bound of open integer options."""


@dataclass(frozen=True)
class Option:
    """One game option: its default, and either a closed set of choices or
    a minimum for an open integer (``None`` allowed when ``optional``).
    An open integer also has a ``maximum``, by default ``SAFE_INTEGER``
    (2^53 - 1): an option value is stored with the game and shown to
    every client, so it must be a number every client can read exactly.
    ``automatic``: the option makes the game move cards by itself (an
    auto-collect), which nothing that ranks may use (``server.model.fair_play``)."""

    name: str
    default: Any
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    optional: bool = False
    doc: str = ""
    maximum: int = SAFE_INTEGER
    automatic: bool = False

    def validate(self, value: Any) -> Any:
        if value is None and self.optional:
            return None
        if self.choices is not None:
            for choice in self.choices:
                if value == choice and type(value) is type(choice):
                    return choice
            shown = ", ".join(repr(c) for c in self.choices)
            raise BadOption(f"option {self.name}={_shown(value)} is not valid; choose one of {shown}")
        if isinstance(value, bool) or not isinstance(value, int) or not (
            (self.minimum is None or value >= self.minimum) and value <= self.maximum
        ):
            lowest = self.minimum if self.minimum is not None else "any"
            extra = " or none" if self.optional else ""
            raise BadOption(
                f"option {self.name}={_shown(value)} is not valid; give a whole number from {lowest} to {self.maximum}{extra}"
            )
        return value


def _shown(value: Any) -> str:
    """A refused value as an error message quotes it: short, whatever it is."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def format_option(value: Any) -> str:
    """An option value as the notation's header writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_text(value: Any) -> str:
    """An option value as people read it (a terminal's header, ``arena
    solve``): on and off rather than the notation's true and false."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return format_option(value)


def variant_name(declared: Iterable[Option], chosen: Mapping[str, Any]) -> str:
    """``name=value`` pairs of the options that make a different contest
    (a closed set of non-boolean choices: WordLink's draw and scoring,
    Broken Deck's difficulty), or ``default``: what a daily deal's variant
    is called, by the server that commits to it and the client that checks
    its reveal.  Switches and budgets (auto-collect, undo limits) are no
    part of it."""
    parts = [
        f"{option.name}={chosen.get(option.name, option.default)}"
        for option in declared
        if option.choices is not None and not all(isinstance(choice, bool) for choice in option.choices)
    ]
    return ",".join(parts) or "default"
