"""Notifications as the terminal client shows them: one line each, and
what to type to act on it."""

from __future__ import annotations

from protocol import friends as pf


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
    moves = "" if entry.moves is None else f" in {entry.moves} moves"
    return f"! {who} finished today's {entry.game} daily: {entry.result}{moves}"
