"""Frames on their way to the peers, and what a peer that fell behind gets.

Every part of the server sends through one ``Outbox``, so a full send
queue is handled in one place whoever was sending: the peer's backlog is
replaced by fresh state (a snapshot of each game and race it follows,
queued by the parts that know them, ``on_overflow``), and a peer that
keeps falling behind is closed with 1013.

``send_each`` is the server's one fan-out: a message for many peers (a
game's watchers, a race's followers) is encoded at most once per codec
and the same bytes go to each, however many watch.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from protocol import to_client as tc
from protocol.codec import Codec
from protocol.to_server import RequestId
from server.runtime.metrics import Metrics
from server.net.peer import Peer
from server.model.refusal import Refusal

CLOSE_TRY_AGAIN_LATER = 1013

Resync = Callable[[Peer], None]
"""Queue in ``peer.backlog`` the fresh state of what it follows."""

Message = tc.Event | dict[str, Any]
"""A message as a model, or as plain data already in the wire's shape (a
``diff``, which skips building a model on the hot path)."""


def with_id(request_id: RequestId | None, data: dict[str, Any]) -> dict[str, Any]:
    """A reply built as plain data: its ``id`` first, and none when the
    request had none, as ``Event`` encodes it."""
    return data if request_id is None else {"id": request_id, **data}


def encode(codec: Codec, message: Message) -> bytes:
    return codec.encode_data(message) if isinstance(message, dict) else codec.encode(message)


class Outbox:
    """Sending for every part; see the module docstring."""

    def __init__(self, send_overflows: int, metrics: Metrics) -> None:
        self._send_overflows = send_overflows
        self._metrics = metrics
        self._resyncs: list[Resync] = []

    def on_overflow(self, resync: Resync) -> None:
        """Have ``resync`` queue its part of an overflowed peer's fresh state."""
        self._resyncs.append(resync)

    def send(self, peer: Peer, message: Message) -> None:
        self.send_frame(peer, encode(peer.codec, message))

    def send_frame(self, peer: Peer, frame: bytes) -> None:
        """Send bytes already encoded with ``peer``'s codec."""
        if not peer.send(frame):
            self.overflow(peer)

    def send_each(self, peers: Iterable[Peer], message: Message, skip: Peer | None = None) -> None:
        """Send one message to every peer but ``skip``, encoded at most once
        per codec (see the module docstring)."""
        frames: dict[Codec, bytes] = {}
        for peer in list(peers):
            if peer is skip:
                continue
            frame = frames.get(peer.codec)
            if frame is None:
                frame = frames[peer.codec] = encode(peer.codec, message)
            self.send_frame(peer, frame)

    def error(self, peer: Peer, refusal: Refusal, request_id: RequestId | None) -> None:
        self._metrics.errors.labels(refusal.code.value).inc()
        self.send(
            peer,
            tc.Error(
                id=request_id,
                code=refusal.code,
                message=refusal.message,
                reason=refusal.reason,
                game_id=refusal.game_id,
            ),
        )

    def overflow(self, peer: Peer) -> None:
        """The peer's queue is full: replace its backlog by fresh snapshots,
        or give up on it (1013) when it keeps falling behind."""
        self._metrics.overflows.inc()
        peer.backlog.clear()
        peer.overflows += 1
        if peer.overflows > self._send_overflows:
            peer.close(CLOSE_TRY_AGAIN_LATER, "too slow to keep up; reconnect and watch again")
            return
        for resync in self._resyncs:
            resync(peer)
        if peer.backlog:
            peer.outlet.wake()
