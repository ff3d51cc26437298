"""What every server message is built from: the base models and the
result names.  Kept apart so that ``to_client`` (games) and ``standings``
(races, dailies, records, leaderboards) share them without importing
each other."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .request import RequestId

Status = Literal["playing", "won", "lost", "resigned", "abandoned"]
Result = Literal["won", "lost", "resigned", "abandoned"]


def _absent(value: object) -> bool:
    return value is None


def empty(value: object) -> bool:
    """Whether an optional field added to a message later is left out of
    its frame: null or an empty list, so the frames of every message it
    does not concern are those sent before the field existed."""
    return value is None or value == []


class Part(BaseModel):
    """Every server model: it ignores fields it does not know
    (``extra="ignore"``, said once here rather than left to pydantic's
    default), which is what lets a client built today read the frames of
    a newer server of the same protocol version, as the module docstring
    promises."""

    model_config = ConfigDict(extra="ignore")


class Event(Part):
    """Fields every server message has."""

    id: RequestId | None = Field(default=None, exclude_if=_absent)


class Owner(Part):
    player_id: str
    name: str
