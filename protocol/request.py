"""What every client message is made of: the base model and the value
types that requests of several modules share (``to_server`` for games and
races, ``friends`` for friends, notifications and challenges).  Kept apart
so those modules build on it without importing each other."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

SAFE_INTEGER = (1 << 53) - 1
SafeInt = Annotated[int, Field(ge=-SAFE_INTEGER, le=SAFE_INTEGER)]
DealNumber = Annotated[int, Field(ge=-(1 << 63), le=(1 << 63) - 1, description="a numbered deal")]
RequestId = Annotated[SafeInt | Annotated[str, Field(max_length=64)], Field(description="echoed in the reply")]
OptionValue = bool | SafeInt | Annotated[str, Field(max_length=40)] | None
Options = Annotated[
    dict[Annotated[str, Field(min_length=1, max_length=40)], OptionValue],
    Field(max_length=16, description="a game's options by name, e.g. {\"draw\": 3}"),
]
RaceDealKind = Literal["daily", "winnable"]
GameName = Annotated[str, Field(min_length=1, max_length=40, description="a game id, e.g. klondike")]
PlayerId = Annotated[str, Field(min_length=1, max_length=64, description="a player id from welcome or a game list")]


class Request(BaseModel):
    """Fields every client message has."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: RequestId | None = None
