"""Refusals: the one exception the core raises to answer with an error.

Handlers raise ``Refusal`` anywhere; the dispatcher turns it into an
``error`` message with the request's id.  Engine errors become refusals
here, in one place, keeping their family as the code and their specific
code as the ``reason``.
"""

from __future__ import annotations

from engine import ActionUnavailable, BadNotation, BadOption, EngineError, IllegalMove, UnknownGame
from protocol import ErrorCode

ENGINE_FAMILIES: tuple[tuple[type[EngineError], ErrorCode], ...] = (
    (IllegalMove, ErrorCode.ILLEGAL_MOVE),
    (BadNotation, ErrorCode.BAD_NOTATION),
    (BadOption, ErrorCode.BAD_OPTION),
    (UnknownGame, ErrorCode.UNKNOWN_GAME),
    (ActionUnavailable, ErrorCode.UNAVAILABLE),
)


class Refusal(Exception):
    """A request the server will not carry out; nothing has changed."""

    def __init__(self, code: ErrorCode, message: str, reason: str | None = None, game_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.game_id = game_id


def from_engine(error: EngineError, game_id: str | None = None) -> Refusal:
    """The refusal for an engine error (an unknown subclass counts as an illegal move)."""
    code = next((family for kind, family in ENGINE_FAMILIES if isinstance(error, kind)), ErrorCode.ILLEGAL_MOVE)
    return Refusal(code, error.message, reason=error.code, game_id=game_id)
