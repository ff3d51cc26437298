"""A game session held in memory: header, action log, and the engine game
that is their replay.

Sessions are logs (``docs/architecture.md``, *Sessions are logs*): the state is the deterministic
replay of the header and the actions, so any server process can rebuild
any game from the store, and two processes that apply the same log
entries reach the same views and therefore send the same diffs.

Applying an action is two steps with the store in between:
``perform`` asks the engine (which raises and changes nothing if the
action is refused); the caller persists the log entry; ``commit`` then
records it and returns the ``Change`` to broadcast.  If persisting fails,
a replay of the log (``replay``) gives the session as the log says it is,
which undoes the performed action without trusting any engine undo.

Decisions: the clock runs from the first action to the last and restart
does not reset it (a restarted daily deal would otherwise be a free
retry of the timer); a game whose engine status is ``lost`` is finished
only when undo cannot rescue it (assisted modes allow undo recovery); a
live game's view has no ``deal`` number, because with the public shuffle
the number reveals every face-down card; ``game_over`` reveals it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple, Sequence

import engine
from engine import LOST, WON, Game
from server.model.records import Action, ActionLog, SessionHeader



class ActionKind(StrEnum):
    """What a log entry does to its game.  A ``str`` enum, so the log in
    the store, the relay and the wire keep the plain words (``"move"``)
    and entries read back compare equal to the members."""

    MOVE = "move"
    UNDO = "undo"
    REDO = "redo"
    HINT = "hint"
    RESTART = "restart"
    RESIGN = "resign"


ABANDONED = "abandoned"
RESIGNED = "resigned"
FINAL_RESULTS = ("won", "lost", RESIGNED, ABANDONED)


class Change(NamedTuple):
    """What one committed action did, in terms a watcher can use.  A named
    tuple: every action makes one, and a frozen dataclass's ``__init__``
    is several times slower."""

    seq: int
    action: Action
    ops: list[dict[str, Any]]
    finished: bool


def build_game(header: SessionHeader) -> Game:
    """The engine game at the start of a session; raises ``EngineError``."""
    if header.position is not None:
        return engine.from_text(header.game, header.position)
    if header.seed is not None:
        return engine.seeded_game(header.game, header.seed, **header.options)
    return engine.new_game(header.game, header.deal, **header.options)


def public_view(game: Game) -> dict[str, Any]:
    """The engine's view minus the deal number (see the module docstring)."""
    view = game.view()
    view.pop("deal", None)
    return view


class Session:
    """One game session; see the module docstring."""

    def __init__(self, header: SessionHeader, game: Game) -> None:
        self.header = header
        self.game = game
        self.log = ActionLog()
        self.result: str | None = header.status if header.status in FINAL_RESULTS else None
        self.pending = False
        self.automatic_moves = 0
        """Moves the game made by itself after the player's (an
        auto-collect), over the whole log: each counts as an action
        (``fair_play.counted_actions``)."""
        self._publish_state()

    @classmethod
    def replay(cls, header: SessionHeader, log: Sequence[Action]) -> Session:
        """The session as ``log`` leaves it."""
        session = cls(header, build_game(header))
        session.catch_up(log)
        return session

    def catch_up(self, log: Sequence[Action], until: int | None = None) -> None:
        """Apply the entries of ``log`` past this session's own (up to entry
        ``until``, if given).  A stored log only grows, so a session rebuilt
        from it earlier is brought up to date by replaying the rest, not the
        whole game again."""
        for action in log[len(self.log):until]:
            if action.kind == ActionKind.HINT:
                self.game.note_hint(self.game.parse_move(action.text) if action.text else None)
            else:
                self.perform(action.kind, action.text)
            self.log.append(action)
            self.result = self.result or self._outcome(action)
        self.pending = False
        self._publish_state()

    # ----------------------------------------------------------- actions

    def perform(self, kind: str, text: str) -> tuple[str, str | None]:
        """Apply an action to the engine; return the text to log and, for a
        hint, the suggestion (a hint's ``text`` is the move the caller
        already found with ``hint_for_view``, or "" for none).  Raises ``EngineError`` (state unchanged).
        Until ``commit``, readers keep seeing the state before the action."""
        logged, suggestion = self._engine_action(kind, text)
        self.pending = True
        return logged, suggestion

    def _engine_action(self, kind: str, text: str) -> tuple[str, str | None]:
        game = self.game
        if kind == ActionKind.MOVE:
            before = game.moves
            played = str(game.play(text))
            self.automatic_moves += game.moves - before - 1
            return played, None
        if kind == ActionKind.HINT:
            game.check_hint()
            game.note_hint(game.parse_move(text) if text else None)
            return text, text or None
        if kind == ActionKind.UNDO:
            game.undo()
        elif kind == ActionKind.REDO:
            game.redo()
        elif kind == ActionKind.RESTART:
            game.restart()
        elif kind != ActionKind.RESIGN:
            raise ValueError(f"unknown action kind {kind!r}")
        return text, None

    def apply_committed(self, action: Action) -> Change:
        """Apply an entry already in the store's log (relayed from another
        process, or released to a delayed board): its logged text is
        played as is, a hint's suggestion included, never searched again.
        Raises ``EngineError`` if the log does not fit this session."""
        self.perform(action.kind, action.text)
        return self.commit(action)

    def commit(self, action: Action) -> Change:
        """Record a performed action that the store has accepted."""
        self.log.append(action)
        old_view = self.view
        if self.result is None:
            self.result = self._outcome(action)
        self.pending = False
        self._publish_state()
        return Change(len(self.log), action, engine.diff(old_view, self.view), self.result is not None)

    def _publish_state(self) -> None:
        """Cache what watchers may read, so a reader between ``perform`` and
        ``commit`` never sees an action the store has not accepted."""
        game = self.game
        self.view = public_view(game)
        self.legal = None if not game.assists else [] if self.result is not None else game.destinations()
        self.counters = game.counters
        self.moves = game.moves
        self.status = self.result or game.status
        self._standing_at: int | None = None
        if self.log:
            at_ms = self.log.at_ms(-1)
            started, finished, elapsed = self._clock(at_ms)
            self._score_at_commit = game.score_at(elapsed / 1000)
            self._standing = (started, finished, elapsed, self._score_at_commit)
            self._standing_at = at_ms
        else:
            self._score_at_commit = game.score_at(0)

    def ends(self, action: Action) -> bool:
        """Whether ``action``, performed and not yet committed, ends the
        game: the store learns of a game's end in the append of its last
        action (``Store.append``'s ``ends``)."""
        return self.result is None and self._outcome(action) is not None

    def _outcome(self, action: Action) -> str | None:
        if action.kind == ActionKind.RESIGN:
            return ABANDONED if action.text == ABANDONED else RESIGNED
        status = self.game.status
        if status == WON or status == LOST and not self.game.can_undo():
            return status
        return None

    # ----------------------------------------------------------- reading

    @property
    def game_id(self) -> str:
        return self.header.game_id

    @property
    def seq(self) -> int:
        return len(self.log)

    @property
    def started_ms(self) -> int | None:
        """When the clock started: the header's time where the policy fixed
        one (``fair_play.clock_start``, a race's countdown end), else the
        first action's."""
        if self.header.started_ms is not None:
            return self.header.started_ms
        return self.log.at_ms(0) if self.log else None

    @property
    def finished_ms(self) -> int | None:
        return self.log.at_ms(-1) if self.result is not None and self.log else None

    def _clock(self, now_ms: int) -> tuple[int | None, int | None, int]:
        start = self.started_ms
        end = self.finished_ms
        elapsed = 0 if start is None else max(0, (end if end is not None else now_ms) - start)
        return start, end, elapsed

    def elapsed_ms(self, now_ms: int) -> int:
        """Time on the server's clock, as of ``now_ms`` (stopped at the end)."""
        return self._clock(now_ms)[2]

    def score(self, now_ms: int) -> int | None:
        """The score shown at ``now_ms`` (WordLink's falls with time)."""
        return self.standing(now_ms)[3]

    def standing(self, now_ms: int) -> tuple[int | None, int | None, int, int | None]:
        """``started_ms``, ``finished_ms``, ``elapsed_ms`` and ``score`` as of
        ``now_ms``, together: every action's diff shows them all as of the
        action's own time, which its commit has already worked them out for."""
        if now_ms == self._standing_at:
            return self._standing
        started, finished, elapsed = self._clock(now_ms)
        return started, finished, elapsed, self._score_at_commit if self.pending else self.game.score_at(elapsed / 1000)
