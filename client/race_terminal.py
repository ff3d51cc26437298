"""``arena race create``, ``join``, ``rematch`` and ``watch``: a race in
the terminal.

A racer's session has three stages in one terminal: the lobby (the host
sees who joins and types ``start``), the countdown, then the racer's own
board, played with every command of ``arena play``, while a line per
rival move shows everyone's progress.  When the race ends the results
table is printed and the program exits.  Input and the race's news are
handled at once: a daemon thread reads lines (``InputLines``) while a
task prints what the race mirror reports.

Decisions made here, and why:
- Rivals' progress is printed as it comes, one line each (``»``); the
  racer's own progress is the board, drawn after each of their actions
  with everyone's lines under it.
- The last three seconds of the countdown are counted down aloud;
  ``go!`` is printed when the board has come.
- ``quit`` (or the end of input) leaves the race running on the server
  (a racer's clock does not stop); the program prints how to come back:
  ``arena race join CODE --token TOKEN`` (joining a race one is in just
  follows it again, and ``hello`` gives back the board).
- A rematch is its own command, ``arena race rematch RACE_ID``, which the
  results print for each racer: whoever runs it first hosts the new race
  (same racers, game and options, a new winnable deal, a new code) and
  the others join it.  The race that ended stays what it was, so the
  program still exits with the results, as scripts expect.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from collections.abc import Coroutine
from typing import TextIO

from protocol import MSGPACK_SUBPROTOCOL
from protocol import to_client as tc
from protocol.to_server import OptionValue

from .board import game_over_text, render
from .connection import ArenaClient, ClientState, RaceDeal
from .errors import ClientError
from .feed import Updates
from .mirror import GameMirror
from .race_mirror import RaceMirror, RaceUpdate
from .race_text import deal_text, invite_text, race_lines, racer_line, results_lines
from .reveal import race_reveal_problems, verdict
from .identity import Identity, server_flag, signed_in
from .notices import notification_line, tell_connection
from .console import Console, InputLines
from .terminal import HELP, come_back, refusal_text, run_command

RACE_HELP = """\
Race commands:
  start             start the countdown (the host only, in the lobby)
  racers            everyone's progress
  code              the invite code
  help              this text
  quit              leave (the race goes on; see the line printed on leaving)
Once your board has come, type moves and the commands of arena play."""

COUNTED_SECONDS = 3
QUIT_WORDS = ("quit", "exit", "q")


@dataclass
class RaceRequest:
    """What ``arena race create`` (``game`` set) or ``join`` (``code`` set) was asked for."""

    url: str
    subprotocol: str = MSGPACK_SUBPROTOCOL
    identity: Identity = field(default_factory=Identity)
    name: str | None = None
    code: str | None = None
    rematch_of: str | None = None
    game: str | None = None
    options: dict[str, OptionValue] = field(default_factory=dict)
    deal: int | RaceDeal = "daily"


async def race(request: RaceRequest, console: Console, stdin: TextIO, interactive: bool) -> int:
    """Run ``arena race create``, ``join`` or ``rematch``; the exit code
    (0: the race ended or the racer left, 1: it could not be joined or
    the connection was lost)."""
    async with signed_in(request.url, request.identity, subprotocol=request.subprotocol, name=request.name) as client:
        client.on_notification(lambda entry: console.say(notification_line(entry)))
        tell_connection(client, console.say)
        if request.rematch_of is not None:
            followed = await client.rematch(request.rematch_of)
        elif request.code is not None:
            followed = await client.join_race(request.code)
        else:
            assert request.game is not None, "create needs a game"
            followed = await client.create_race(request.game, request.options, request.deal)
        return await RaceSession(client, followed, console).run(InputLines(stdin), interactive)


async def watch_race(url: str, race_id: str, subprotocol: str, console: Console) -> int:
    """Run ``arena race watch``: the race, then everyone's progress and
    the results, without taking part."""
    async with ArenaClient(url, subprotocol=subprotocol, identify=False) as client:
        followed = await client.watch_race(race_id)
        tell_connection(client, console.say)
        session = RaceSession(client, followed, console)
        session.introduce()
        with followed.updates() as stream:
            await session.narrate(stream)
        return 1 if followed.closed else 0


class RaceSession:
    """One racer's (or spectator's) view of one race in the terminal."""

    def __init__(self, client: ArenaClient, race: RaceMirror, console: Console) -> None:
        self.client = client
        self.race = race
        self.console = console
        self.board: GameMirror | None = None
        self.known = {racer.player_id for racer in race.racers}
        self.over = asyncio.Event()
        self._told_game_over = False
        self._came_back = race.phase == "running"
        self._helpers: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ racing

    async def run(self, lines: InputLines, interactive: bool) -> int:
        """Play the race to its end (or until the racer leaves)."""
        self.introduce()
        if self.race.ended:
            return 0
        with self.race.updates() as stream:
            self._spawn(self.narrate(stream))
            self._spawn(self._await_board())
            if self.race.phase == "countdown":
                self._spawn(self._count_down())
            try:
                return await self._read(lines, interactive)
            finally:
                helpers = list(self._helpers)
                for helper in helpers:
                    helper.cancel()
                await asyncio.gather(*helpers, return_exceptions=True)

    def _spawn(self, work: Coroutine[object, object, None]) -> None:
        task = asyncio.create_task(work)
        self._helpers.add(task)
        task.add_done_callback(self._helpers.discard)

    def introduce(self) -> None:
        """The race as it is now (with its results if it is already over)."""
        for line in race_lines(self.race, server_flag(self.client.url)):
            self.console.say(line)
        info = self.race.info
        if info is not None and info.phase == "lobby" and self.client.player_id is not None:
            host = info.host.player_id == self.client.player_id
            self.console.say("type start when everyone is in" if host else f"waiting for {info.host.name} to start")
        elif info is not None and info.phase == "finished":
            self._tell_results(info)

    async def _read(self, lines: InputLines, interactive: bool) -> int:
        over = asyncio.create_task(self.over.wait())
        try:
            while True:
                if interactive:
                    self.console.prompt()
                reading = asyncio.create_task(lines.next())
                await asyncio.wait({reading, over}, return_when=asyncio.FIRST_COMPLETED)
                self.console.answered()
                if not reading.done():
                    reading.cancel()
                    return self._ending()
                line = reading.result()
                if line is None or line.strip().lower() in QUIT_WORDS:
                    self._leave()
                    return 0
                await self._command(line.strip())
        finally:
            over.cancel()

    def _ending(self) -> int:
        if self.client.state is ClientState.CLOSED:
            self.console.say("error: the connection to the server is lost")
            return 1
        return 0

    def _leave(self) -> None:
        code = invite_text(self.race.code) if self.race.code else self.race.race_id
        again = come_back(f"arena race join {code}", self.client)
        # The board can come before the race's own update says it runs.
        running = self.board is not None or self.race.phase == "running"
        where = "your clock runs on" if running else "you are still in it"
        self.console.say(f"left race {self.race.race_id} ({where}); to come back: {again}")

    async def _command(self, line: str) -> None:
        verb = line.split()[0].lower() if line else ""
        if not verb:
            return
        if verb in ("help", "?"):
            self.console.say(HELP + "\n" + RACE_HELP if self.board is not None else RACE_HELP)
        elif verb in ("racers", "progress"):
            self._show_racers()
        elif verb == "code":
            self.console.say(invite_text(self.race.code) if self.race.code else "no invite code: you are not racing")
        elif verb == "start":
            try:
                await self.client.start_race(self.race.race_id)
            except ClientError as error:
                self.console.say(refusal_text(error))
        elif self.board is None:
            self.console.say(f"no board yet: it comes when the race starts ({self.race.phase}); type help")
        else:
            await run_command(self.client, self.board, line, self.console)
            self._show_racers(rivals_only=True)
            self._tell_game_over()

    def _show_racers(self, rivals_only: bool = False) -> None:
        for racer in self.race.racers:
            if not (rivals_only and racer.player_id == self.client.player_id):
                self.console.say("  " + racer_line(racer))

    def _tell_game_over(self) -> None:
        board = self.board
        if board is not None and board.result is not None and not self._told_game_over:
            self._told_game_over = True
            self.console.say(game_over_text(board.result))
            self.console.say("waiting for the others to finish (type racers to see them)")

    # ------------------------------------------------------------ news

    async def narrate(self, stream: Updates[RaceUpdate]) -> None:
        """Print the race's news until it ends."""
        try:
            async for update in stream:
                self._tell(update)
        finally:
            self.over.set()

    def _tell(self, update: RaceUpdate) -> None:
        if isinstance(update, tc.RaceProgress):
            if update.racer.player_id != self.client.player_id:
                self.console.say("» " + racer_line(update.racer))
            return
        info = update.race
        for racer in info.racers:
            if racer.player_id not in self.known:
                self.known.add(racer.player_id)
                self.console.say(f"{racer.name} joined ({len(info.racers)}/{info.limit})")
        if update.event == "started" and info.starts_at is not None:
            seconds = max(0, info.starts_at - update.server_time) / 1000
            self.console.say(f"the race starts in {seconds:.1f} s")
            if self.client.player_id in self.known:
                self._spawn(self._count_down())
        elif update.event == "finished":
            self._tell_results(info)

    def _tell_results(self, info: tc.RaceInfo) -> None:
        self.console.say(f"the race is over ({deal_text(info)})")
        if info.seed is not None:
            checked = verdict(race_reveal_problems(info))
            self.console.say(f"its secret deal is revealed: seed {info.seed}, nonce {info.nonce}: {checked}")
        for line in results_lines(info.results or []):
            self.console.say(line)
        if self.client.player_id in {racer.player_id for racer in info.racers}:
            again = come_back(f"arena race rematch {info.race_id}", self.client)
            self.console.say(f"race them again (a new deal, whoever asks first hosts): {again}")

    async def _count_down(self) -> None:
        """Say 3, 2, 1 as the countdown's last seconds pass."""
        while (left := self.race.countdown_ms()) is not None and left > 0:
            seconds = math.ceil(left / 1000)
            if seconds <= COUNTED_SECONDS:
                self.console.say(f"{seconds}...")
            await asyncio.sleep((left - (seconds - 1) * 1000) / 1000)

    async def _await_board(self) -> None:
        try:
            board = await self.client.race_board(self.race.race_id)
        except ClientError:
            return
        self.board = board
        self.console.say("your board, as you left it:" if self._came_back else "go!")
        self.console.say(render(board))
        self._show_racers(rivals_only=True)
