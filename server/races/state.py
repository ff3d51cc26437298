"""Races with friends, without I/O: a race is the replay of its ledger.

A race's ledger is a log like a game's (docs/architecture.md, "Sessions
are logs"): entries ``create``, ``join``, ``start``, ``presence``, ``finish``
and ``rematch``, each an ``Action`` whose text is JSON.  It is stored with
the session API (``create_session`` with status ``race``, which no list
of live games shows, then ``append`` with the expected length), because
that append is the one atomic compare-and-append the store offers: two
friends joining the last seat through two server processes, or two
rematch requests, are serialized by the log and the loser re-reads it.
``RaceState`` replays it and checks each request against it, raising
``Refusal``; ``server.races.desk`` does the I/O.

Decisions made here, and why:
- The invite code is 8 characters from ``server.model.ids.CODE_ALPHABET`` (no 0/O, 1/I/L),
  case and dashes ignored, valid ``race_invite_seconds`` after creation
  and only before the start.  The race id (for spectators) is a separate,
  longer id, so a spectator link does not let anyone join.
- The host is the first racer.  Only the host starts; the deal is fixed at
  the start: ``"daily"`` is the daily deal of the start's UTC day (so a
  lobby that crosses midnight races on the new day's deal, never on a
  revealed one), ``"winnable"`` a deal drawn from the verified pool, a
  number is that deal (``verified`` says whether it is in the pool).
- The countdown is part of the race: racers' clocks start at
  ``starts_at`` (the header's ``started_ms``), boards arrive then, and nobody can act
  on or watch a race game before.
- The race ends when every racer's game is over, or at ``ends_at``
  (``race_time_limit_seconds`` after the start), when games still playing
  are abandoned.  Results: winners by time then actions then finishing
  time, then the others by cards on the foundations.
- Only racers who had not seen the deal take a place.  In a daily race,
  a racer who had started the day's daily before plays unranked and is
  listed apart, after every placed racer (``apart`` ``deal_seen``); one
  whose ranked attempt was still being played sits the race out, so the
  race starts for the others (``ranked_first``: no game).
- A racer is ``disconnected`` while no connection of theirs follows the
  race (a ``presence`` entry, so every process agrees); the clock runs on.
- Rematch: any racer of a finished race may ask; the first request makes a
  new race (new code, same game and options, a ``"winnable"`` deal, since
  the day has one daily deal) with every racer of the old one in its
  lobby, hosted by the asker.  Later requests join the same new race.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

import engine
from protocol import ErrorCode
from protocol import to_client as tc
from server.model.race_phases import COUNTDOWN, EXPIRED, FINISHED, LEDGER_STATUS, LOBBY, RUNNING
from server.model.refusal import Refusal
from server.model.fair_play import counted_actions
from server.races.progress import Progress
from server.model.session import ABANDONED, Session
from server.model.records import Action, SessionHeader

EVENT_OF_ENTRY = {"create": "created", "join": "joined", "start": "started", "finish": "finished", "rematch": "rematch"}


@dataclass(frozen=True)
class RaceDeal:
    """What a race starts with: a number the host typed (``seed`` None, the
    race unranked), or a secret seed with its winning line and the nonce
    of its commitment (``daily`` for the day's deal)."""

    number: int
    seed: int | None
    line: tuple[str, ...]
    nonce: str | None
    commitment: str | None
    verified: bool
    daily: str | None


class RosterChanged(Exception):
    """Someone joined while the start was being prepared: prepare again."""


DEAL_SEEN, RANKED_FIRST = "deal_seen", "ranked_first"
"""Why a racer takes no place (``Racer.apart``): they had started the
day's daily before its race (they play it unranked), or their ranked
attempt at it was still being played when the race started (they sit it
out: no game)."""


@dataclass
class Racer:
    player_id: str
    name: str
    joined_ms: int
    connected: bool = True
    game_id: str | None = None
    ranked: bool = False
    apart: str | None = None


def _entry(kind: str, now_ms: int, **payload: Any) -> Action:
    return Action(kind, json.dumps(payload, separators=(",", ":"), sort_keys=True), now_ms)


def create_entry(
    *, code: str, host: tc.Owner, deal: int | str, limit: int, countdown_ms: int, time_limit_ms: int,
    invite_expires_ms: int, racers: list[tc.Owner], now_ms: int,
) -> Action:
    """The first entry of a ledger; ``racers`` are the host and, for a
    rematch, everyone else from the old race."""
    return _entry(
        "create", now_ms, code=code, host=host.player_id, deal=deal, limit=limit, countdown_ms=countdown_ms,
        time_limit_ms=time_limit_ms, invite_expires_ms=invite_expires_ms,
        racers=[[racer.player_id, racer.name] for racer in racers],
    )


@dataclass(frozen=True)
class RaceLedger:
    """The record of a race's ledger: which race, of what game and
    options, hosted by whom, since when (the entries say the rest).

    The store keeps it where it keeps a game's header, as a header with
    status ``race`` (``stored``), so that the log's compare-and-append,
    its expiry and its channel serve races unchanged and ledgers already
    stored still load; everything here reads this type instead
    (``read``), so no code mistakes a ledger for a game."""

    race_id: str
    game: str
    options: dict[str, Any]
    host: str
    created_ms: int

    def stored(self) -> SessionHeader:
        """The header the store keeps (its ``deal`` is unused: the start entry has the deal)."""
        return SessionHeader(
            game_id=self.race_id, game=self.game, deal=0, options=self.options, owner=self.host,
            created_ms=self.created_ms, status=LEDGER_STATUS, race_id=self.race_id,
        )

    @classmethod
    def read(cls, header: SessionHeader) -> RaceLedger | None:
        """The ledger a stored header holds, or None for a game's header."""
        if header.status != LEDGER_STATUS:
            return None
        return cls(header.game_id, header.game, dict(header.options), header.owner, header.created_ms)


@dataclass
class RaceState:
    """A race as its ledger says; see the module docstring."""

    race_id: str
    game: str
    options: dict[str, Any]
    created_ms: int
    host: str = ""
    code: str = ""
    deal_request: int | str = "daily"
    limit: int = 0
    countdown_ms: int = 0
    time_limit_ms: int = 0
    invite_expires_ms: int = 0
    racers: dict[str, Racer] = field(default_factory=dict)
    starts_at: int | None = None
    deal: int | None = None
    seed: int | None = None
    nonce: str | None = None
    line: list[str] | None = None
    commitment: str | None = None
    verified: bool | None = None
    daily: str | None = None
    finished_ms: int | None = None
    results: list[dict[str, Any]] | None = None
    rematch: str | None = None
    seq: int = 0

    @classmethod
    def replay(cls, ledger: RaceLedger, entries: list[Action]) -> RaceState:
        state = cls(ledger.race_id, ledger.game, dict(ledger.options), ledger.created_ms)
        for entry in entries:
            state.apply(entry)
        return state

    def apply(self, entry: Action) -> None:
        """Fold one ledger entry in (entries were checked when appended)."""
        data = json.loads(entry.text)
        kind = entry.kind
        if kind == "create":
            self.host, self.code, self.deal_request = data["host"], data["code"], data["deal"]
            self.limit, self.countdown_ms, self.time_limit_ms = data["limit"], data["countdown_ms"], data["time_limit_ms"]
            self.invite_expires_ms = data["invite_expires_ms"]
            for player_id, name in data["racers"]:
                self.racers[player_id] = Racer(player_id, name, entry.at_ms)
        elif kind == "join":
            self.racers[data["player_id"]] = Racer(data["player_id"], data["name"], entry.at_ms)
        elif kind == "presence":
            self.racers[data["player_id"]].connected = data["connected"]
        elif kind == "start":
            self.starts_at, self.deal, self.verified, self.daily = (
                data["starts_at"], data["deal"], data["verified"], data["daily"]
            )
            self.seed, self.nonce, self.line, self.commitment = (
                data.get("seed"), data.get("nonce"), data.get("line"), data.get("commitment")
            )
            for player_id, (game_id, ranked) in data["games"].items():
                self.racers[player_id].game_id, self.racers[player_id].ranked = game_id, ranked
                if self.daily is not None and not ranked:
                    self.racers[player_id].apart = DEAL_SEEN
            for player_id in data.get("out", []):
                self.racers[player_id].apart = RANKED_FIRST
        elif kind == "finish":
            self.finished_ms, self.results = entry.at_ms, data["results"]
        elif kind == "rematch":
            self.rematch = data["race_id"]
        else:
            raise ValueError(f"unknown race entry {kind!r}")
        self.seq += 1

    # ----------------------------------------------------------- reading

    def phase(self, now_ms: int) -> str:
        if self.finished_ms is not None:
            return FINISHED
        if self.starts_at is None:
            return EXPIRED if now_ms >= self.invite_expires_ms else LOBBY
        return COUNTDOWN if now_ms < self.starts_at else RUNNING

    def wait_sentence(self, now_ms: int) -> str:
        """Why a race game cannot be played or watched yet, for a refusal."""
        if self.starts_at is None:
            return "this race has not started yet"
        seconds = max(0.0, (self.starts_at - now_ms) / 1000)
        return f"the race starts in {seconds:.1f} s (starts_at {self.starts_at}); boards arrive then"

    @property
    def ends_at(self) -> int | None:
        return None if self.starts_at is None else self.starts_at + self.time_limit_ms

    @property
    def games(self) -> dict[str, str]:
        """Game id -> racer, once started."""
        return {racer.game_id: racer.player_id for racer in self.racers.values() if racer.game_id is not None}

    @property
    def deal_kind(self) -> str:
        return self.deal_request if isinstance(self.deal_request, str) else "number"

    def _refuse_unless(self, allowed: bool, code: ErrorCode, message: str) -> None:
        if not allowed:
            raise Refusal(code, message)

    # ----------------------------------------------------------- requests

    def join_entry(self, player_id: str, name: str, now_ms: int) -> Action | None:
        """Join (None if already in: nothing to log)."""
        if player_id in self.racers:
            return None
        phase = self.phase(now_ms)
        self._refuse_unless(phase != EXPIRED, ErrorCode.INVITE_EXPIRED, "this invite code has expired; ask for a new race")
        self._refuse_unless(phase == LOBBY, ErrorCode.RACE_STATE, "this race has already started; you can watch it")
        self._refuse_unless(
            len(self.racers) < self.limit, ErrorCode.RACE_FULL, f"this race is full ({self.limit} racers)"
        )
        return _entry("join", now_ms, player_id=player_id, name=name)

    def check_start(self, player_id: str, now_ms: int) -> None:
        self._refuse_unless(player_id == self.host, ErrorCode.FORBIDDEN, "only the race's host can start it")
        phase = self.phase(now_ms)
        self._refuse_unless(phase != EXPIRED, ErrorCode.RACE_STATE, "this race's invite expired before it started; create a new race")
        self._refuse_unless(phase == LOBBY, ErrorCode.RACE_STATE, "this race has already started")

    def start_entry(
        self, player_id: str, now_ms: int, *, starts_at: int, deal: RaceDeal,
        games: Mapping[str, tuple[str, bool] | None],
    ) -> Action:
        """Start with one prepared game per racer, None for a racer who
        sits the race out (``RosterChanged`` if the racers are not exactly
        those the games were prepared for).  In a daily race, a racer
        whose game is not their ranked attempt takes no place."""
        self.check_start(player_id, now_ms)
        if set(games) != set(self.racers):
            raise RosterChanged()
        return _entry(
            "start", now_ms, starts_at=starts_at, deal=deal.number, seed=deal.seed, nonce=deal.nonce,
            line=list(deal.line), commitment=deal.commitment, verified=deal.verified, daily=deal.daily,
            games={racer: [game[0], game[1]] for racer, game in games.items() if game is not None},
            out=[racer for racer, game in games.items() if game is None],
        )

    def presence_entry(self, player_id: str, connected: bool, now_ms: int) -> Action | None:
        racer = self.racers.get(player_id)
        if racer is None or racer.connected == connected or self.finished_ms is not None:
            return None
        return _entry("presence", now_ms, player_id=player_id, connected=connected)

    def finish_entry(self, now_ms: int, results: list[dict[str, Any]]) -> Action | None:
        if self.finished_ms is not None or self.starts_at is None:
            return None
        return _entry("finish", now_ms, results=results)

    def check_rematch(self, player_id: str, now_ms: int) -> None:
        self._refuse_unless(player_id in self.racers, ErrorCode.FORBIDDEN, "only the racers of a race can ask for a rematch")
        self._refuse_unless(
            self.phase(now_ms) == FINISHED, ErrorCode.RACE_STATE, "a rematch can be asked for once the race is over"
        )

    def rematch_entry(self, player_id: str, race_id: str, now_ms: int) -> Action | None:
        """Point to the rematch (None if another request got there first)."""
        self.check_rematch(player_id, now_ms)
        if self.rematch is not None:
            return None
        return _entry("rematch", now_ms, race_id=race_id)

    # ----------------------------------------------------------- results

    def results_of(self, sessions: dict[str, Session | None]) -> list[dict[str, Any]]:
        """The results table from every racer's final session (None: the
        game was lost from the store, counted as abandoned)."""
        rows: list[dict[str, Any]] = []
        for player_id, racer in self.racers.items():
            if racer.game_id is None:
                continue
            session = sessions.get(player_id)
            progress = Progress.of(session) if session is not None else Progress(result=ABANDONED)
            finished = progress.finished_ms or self.starts_at or 0
            rows.append({
                "player_id": player_id,
                "name": racer.name,
                "result": progress.result or ABANDONED,
                "time_ms": max(0, finished - (self.starts_at or finished)),
                "moves": progress.moves,
                "actions": counted_actions(session) if session is not None else 0,
                "foundation": progress.foundation,
                "counters": progress.counters,
                "finished_ms": finished,
                "ranked": racer.ranked,
                "apart": racer.apart,
            })
        placed = _in_order([row for row in rows if row["apart"] is None])
        for place, row in enumerate((row for row in placed if row["result"] == engine.WON), start=1):
            row["place"] = place
        apart = _in_order([row for row in rows if row["apart"] is not None])
        return [*placed, *apart]

def _in_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Winners by time, then actions, then finishing time, without a place
    yet; then the others by cards on the foundations (``place`` null)."""
    winners = sorted((r for r in rows if r["result"] == engine.WON), key=lambda r: (r["time_ms"], r["actions"], r["finished_ms"]))
    others = sorted((r for r in rows if r["result"] != engine.WON), key=lambda r: (-r["foundation"], r["time_ms"]))
    for row in rows:
        row["place"] = None
    return [*winners, *others]


Milestones = tuple[bool, bool, bool]


def milestones(state: RaceState) -> Milestones:
    """Started, finished, rematched: the changes that have side effects."""
    return state.starts_at is not None, state.finished_ms is not None, state.rematch is not None


def event_of(state: RaceState, before: Milestones, entry: Action | None) -> str:
    """The event to announce: the entry's, or for a reload the latest
    milestone it crossed.  A process that lost an append (two settling
    one race at once), missed entries or came back from an outage takes
    the entry in by reloading, and its relayed copy is then dropped as
    already seen: without this its followers would hear "snapshot"
    instead of "finished" (or "started", "rematch")."""
    if entry is not None:
        return EVENT_OF_ENTRY.get(entry.kind, "snapshot")
    started, finished, rematched = before
    if state.rematch is not None and not rematched:
        return "rematch"
    if state.finished_ms is not None and not finished:
        return "finished"
    if state.starts_at is not None and not started:
        return "started"
    return "snapshot"
