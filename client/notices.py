"""What the terminal client says of news it did not ask for: a
notification (one line each, with what to type to act on it), and the
connection dropping and coming back."""

from __future__ import annotations

from typing import Callable

from protocol import friends as pf

from .board import counted
from .connection import ArenaClient, ClientState

CLOSE_WORDS = {
    1001: "the server is going away",
    1011: "the server failed",
    1012: "the server is restarting",
    1013: "the server was too busy for this connection",
}
"""Why a connection closed, by its WebSocket close code, as people say it;
any other code is told with the server's own reason (1008: which rule)."""
NO_CLOSE_FRAME = 1006


def notification_line(entry: pf.NotificationEntry) -> str:
    """One line for a notification, with the command that answers it."""
    who = entry.sender.name
    if entry.kind == "friend_request":
        return f"! {who} asks to be your friend: arena friends accept {entry.sender.player_id}"
    if entry.kind == "friend_accepted":
        return f"! {who} is now your friend"
    if entry.kind == "challenge":
        return f"! {who} challenges you to a {entry.game} race: arena race join {entry.race_code}"
    if entry.kind == "challenge_declined":
        return f"! {who} declined your {entry.game} challenge"
    moves = "" if entry.moves is None else f" in {counted(entry.moves, 'move')}"
    return f"! {who} finished today's {entry.game} daily: {entry.result}{moves}"


def close_text(code: int | None, reason: str) -> str:
    """Why the connection ended, in words, with the code for bug reports."""
    if code is None or code == NO_CLOSE_FRAME:
        return "the connection dropped"
    if code in CLOSE_WORDS:
        return f"{CLOSE_WORDS[code]} ({code})"
    return f"the server closed it ({code}{': ' + reason if reason else ''})"


def connection_line(client: ArenaClient, state: ClientState, was: ClientState) -> str | None:
    """What to tell the player when the connection goes from ``was`` to
    ``state``; None for the changes the command reports itself (opening,
    closing, giving up)."""
    if state is ClientState.RECONNECTING:
        return f"connection lost: {close_text(client.close_code, client.close_reason)}; reconnecting..."
    if state is ClientState.OPEN and was is ClientState.RECONNECTING:
        return "reconnected: back in step with the server"
    return None


def tell_connection(client: ArenaClient, say: Callable[[str], None]) -> None:
    """``say`` a line each time the connection drops and comes back."""
    was = client.state

    def tell(state: ClientState) -> None:
        nonlocal was
        line, was = connection_line(client, state, was), state
        if line is not None:
            say(line)

    client.on_state(tell)
