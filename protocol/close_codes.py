"""The WebSocket close codes a server of this protocol uses, and when.

One table for every place that explains them (``docs/protocol.md``'s
close-code table is generated from it, the AsyncAPI document carries it),
so a client author reads the same sentence everywhere.
"""

from __future__ import annotations

from typing import NamedTuple


class CloseCode(NamedTuple):
    code: int
    when: str


CLOSE_CODES: tuple[CloseCode, ...] = (
    CloseCode(1000, "normal closure"),
    CloseCode(1007, "a text frame that is not valid UTF-8 (a binary frame of bad bytes is only a `bad_message`)"),
    CloseCode(1008, "message rate abuse; the address then cools down (see *Limits per address*)"),
    CloseCode(1009, "a frame larger than `max_frame_bytes`"),
    CloseCode(1011, "no pong within `ping_timeout`, or an unexpected server failure"),
    CloseCode(
        1012,
        "the server is restarting: every request it received before the close has its reply (in-flight actions "
        "finish first, later ones are refused with `shutting_down`); reconnect with your token",
    ),
    CloseCode(
        1013,
        "too slow to keep up (`send_overflows` overflows), or stopped reading (no frame could be written for "
        "`write_timeout_seconds`): reconnect and watch again",
    ),
    CloseCode(
        4001,
        "the token this connection said hello with was revoked (`revoke_device`, on any device) or rotated away "
        "(`rotate_token` on another connection of the same device): it is `bad_token` now",
    ),
)
