"""Friends, notifications and challenges: the requests and the replies.

A friend code is 8 Crockford base32 characters (40 random bits), shown as
``XXXX-XXXX`` and read back whatever its case, dashes or spaces (``O`` is
read as ``0``, ``I`` and ``L`` as ``1``).  Who holds a code may ask to be
friends; a code its player reissued stops working.

A pair of players is in one of four states, as each side sees it:
``friend``, ``request_sent``, ``request_received``, ``blocked`` (you
blocked them; nobody is told they are blocked).  Notifications are kept
in a bounded inbox, sent to a connected player at once and the unread
ones again after each ``hello``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .parts import Event, Owner, Part
from .request import GameName, Options, PlayerId, RaceDealKind, DealNumber, Request

FriendCodeText = Annotated[str, Field(min_length=1, max_length=20, description="a friend code, e.g. 7KQ2-M9XD")]
FriendState = Literal["friend", "request_sent", "request_received", "blocked"]
FriendAction = Literal["accept", "decline", "remove", "block", "unblock"]
NotificationKind = Literal["friend_request", "friend_accepted", "challenge", "challenge_declined", "friend_finished_daily"]
NotificationId = Annotated[str, Field(min_length=1, max_length=64, description="a notification id")]


# ---------------------------------------------------------------- requests


class Friends(Request):
    """Your friend code and every player you are linked to, with the state of each."""

    type: Literal["friends"] = "friends"


class FriendCode(Request):
    """Your friend code; ``reissue`` draws a new one and the old one stops working."""

    type: Literal["friend_code"] = "friend_code"
    reissue: bool = False


class FriendAdd(Request):
    """Ask the holder of a friend code to be friends.  If they already asked
    you, you are friends at once."""

    type: Literal["friend_add"] = "friend_add"
    code: FriendCodeText


class FriendChange(Request):
    """Answer a request (``accept``, ``decline``), end a friendship or
    withdraw your request (``remove``), or ``block`` / ``unblock`` a player."""

    type: Literal["friend_change"] = "friend_change"
    player_id: PlayerId
    action: FriendAction


class Notifications(Request):
    """Your inbox, newest first (only the unread ones with ``unread``)."""

    type: Literal["notifications"] = "notifications"
    unread: bool = False
    limit: Annotated[int, Field(ge=1, le=100)] = 50


class ReadNotifications(Request):
    """Mark notifications read: the ones named, or every one when none is named."""

    type: Literal["read_notifications"] = "read_notifications"
    notification_ids: list[NotificationId] = Field(default_factory=list, max_length=100)


class Challenge(Request):
    """Invite a friend who is online to a race: the race is created with
    you as its host (as ``create_race`` would, and you get its ``race``
    reply) and your friend gets a ``challenge`` notification with its
    invite code."""

    type: Literal["challenge"] = "challenge"
    player_id: PlayerId
    game: GameName
    options: Options = Field(default_factory=dict)
    deal: DealNumber | RaceDealKind = "daily"


class ChallengeAnswer(Request):
    """Accept a challenge (you join its race, as ``join_race`` would) or
    decline it (the challenger is told)."""

    type: Literal["challenge_answer"] = "challenge_answer"
    challenge_id: NotificationId
    accept: bool


# ---------------------------------------------------------------- replies


class FriendEntry(Part):
    player_id: str
    name: str
    state: FriendState
    since_ms: int = Field(description="when the pair came to this state")


class FriendList(Event):
    """Reply to ``friends``."""

    type: Literal["friends"] = "friends"
    code: str = Field(description="your friend code, XXXX-XXXX")
    friends: list[FriendEntry]


class FriendCodeReply(Event):
    """Reply to ``friend_code``."""

    type: Literal["friend_code"] = "friend_code"
    code: str = Field(description="your friend code, XXXX-XXXX")


class FriendReply(Event):
    """Reply to ``friend_add`` and ``friend_change``: the pair's state as
    you see it now (``none``: no link left)."""

    type: Literal["friend"] = "friend"
    player_id: str
    name: str
    state: FriendState | Literal["none"]


class NotificationEntry(Part):
    notification_id: str
    kind: NotificationKind
    at_ms: int
    read: bool = False
    sender: Owner
    race_code: str | None = Field(None, description="challenge: the race's invite code")
    race_id: str | None = Field(None, description="challenge: the race")
    game: str | None = Field(None, description="challenge, friend_finished_daily: the game")
    expires_ms: int | None = Field(None, description="challenge: when it can no longer be accepted")
    result: str | None = Field(None, description="friend_finished_daily: won, lost or resigned")
    moves: int | None = Field(None, description="friend_finished_daily: moves made")


class Notification(Event):
    """A notification, as it arrives (and, after ``hello``, each unread one)."""

    type: Literal["notification"] = "notification"
    notification: NotificationEntry


class NotificationList(Event):
    """Reply to ``notifications``."""

    type: Literal["notifications"] = "notifications"
    notifications: list[NotificationEntry]
    unread: int = Field(description="unread notifications in the inbox")
