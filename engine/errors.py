"""The engine's exceptions: one base, split by cause.

Every error carries a stable ``code`` (clients switch on it; it never
changes once published) and a message a player can read.  They are
``ValueError``s because each one means "this input is not acceptable
here", never "the engine is broken".
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of everything the engine raises on bad input."""

    code = "engine_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class UnknownGame(EngineError):
    """The game id is not in the registry; the message lists the valid ids."""

    code = "unknown_game"


class BadOption(EngineError):
    """An option name or value is not accepted; the message lists the choices."""

    code = "bad_option"


class BadNotation(EngineError):
    """Text that does not parse as a move or a position of this game."""

    code = "bad_notation"


class IllegalMove(EngineError):
    """A well-formed move that the rules do not allow in this position.

    ``code`` says which rule refused it (``half_to_column``,
    ``not_alternating`` …), so a client can react without parsing English.
    """

    code = "illegal_move"


class ActionUnavailable(EngineError):
    """Undo, redo, hint or automatic finishing refused: nothing to undo,
    budget spent, the difficulty disables that assist, or finishing is not
    (yet) offered."""

    code = "unavailable"
