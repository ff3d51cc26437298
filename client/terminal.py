"""The terminal client: ``arena play`` and ``arena watch`` in plain text.

Plain lines in, plain lines out, flushed as they are written, so the
client works the same in a terminal, through a pipe, or driven by a test
as a subprocess.  Input is read by a daemon thread (standard input cannot
be awaited portably), which also lets the program exit while a read is
pending.

Decisions made here, and why:
- A line that is not a command is sent as a move, so the game's notation
  (``t3-t5``, ``w-f``, ``draw``, ``r3-r1``) needs no prefix; the server
  checks it and its sentence is printed on refusal.
- ``quit`` (or the end of input) leaves the game live on the server; the
  program prints how to come back to it (``--token`` and ``--resume``),
  though a new player's token is kept already (``client.identity``), so
  ``--resume`` alone does it on this machine.
- ``--json`` selects the JSON subprotocol (MessagePack is the default);
  the output is the same text either way.
- The prompt ``>`` is printed only when standard input is a terminal, so
  piped output holds nothing but boards and messages.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import dataclass, field
from typing import Callable, Coroutine, TextIO

from pydantic import ValidationError

from engine.games import descriptor_of
from protocol import to_client as tc
from protocol.ghosts import Ghost
from protocol.to_server import DealKind, OptionValue

from .board import analysis_text, counted, describe, game_over_text, hint_text, render
from .connection import ArenaClient, ClientState
from .errors import ArenaError, ClientError, DealSecret
from .ghosts import ghost_line, race_named
from .identity import Identity, server_flag, signed_in
from .notices import notification_line, tell_connection
from .console import Console, InputLines
from .mirror import GameMirror

HELP = """\
Type a move in the game's notation, or a command:
  t3-t5  w-f  t1-t4x3  draw  r3-r1   a move (f: the foundation for the card)
  hint              suggest a move (counted as a hint)
  finish            let the server finish (when the board says it can)
  auto SRC [N]      move the top N cards of SRC (default 1) to their best place
  undo  redo        take back / play again the last action
  restart           back to the start of the deal
  resign            give up the game
  legal             list the legal moves (where the difficulty shows them)
  board             draw the board again
  ghost NAME        race a friend's ghost (or: ghost leader) in a ranked daily
  ghosts            the ghosts' bars again
  help              this text
  quit              leave (the game stays open; see the line printed on leaving)"""

GAME_OVER_WAIT = 2.0
ANALYSIS_TIMEOUT = 120.0
"""Seconds to wait for an analysis: the server searches about log2(moves) + 2 positions."""
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


@dataclass
class PlayRequest:
    """What ``arena play`` was asked for."""

    url: str
    game: str
    deal: int | DealKind = "random"
    options: dict[str, OptionValue] = field(default_factory=dict)
    subprotocol: str = "arena.v1.msgpack"
    identity: Identity = field(default_factory=Identity)
    name: str | None = None
    resume: str | None = None
    practice: bool = False
    ghosts: list[str] = field(default_factory=list)
    """Friends' names or ids, or ``leader``, whose ghosts to race (``--ghost``)."""


def refusal_text(error: ClientError) -> str:
    """The server's sentence, with its code for people who report bugs."""
    if not isinstance(error, ArenaError):
        return f"error: {error}"
    detail = f"{error.code}, {error.reason}" if error.reason and error.reason != error.code else error.code
    return f"error: {error.message} [{detail}]"


def come_back(command: str, client: ArenaClient) -> str:
    """``command`` with the server it must reach and the token that makes
    it the same player again."""
    return f"{command}{server_flag(client.url)} --token={client.token}"


def validation_text(error: ValidationError) -> str:
    """The first thing wrong with a value typed on the command line."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"error: {where}: {first['msg']}" if where else f"error: {first['msg']}"


async def play(request: PlayRequest, console: Console, stdin: TextIO, interactive: bool) -> int:
    """Run ``arena play``; the exit code (0: played or left, 1: could not)."""
    async with signed_in(request.url, request.identity, subprotocol=request.subprotocol, name=request.name) as client:
        client.on_notification(lambda entry: console.say(notification_line(entry)))
        tell_connection(client, console.say)
        game = await _open_game(client, request)
        return await _play_game(client, game, console, InputLines(stdin), interactive, request.ghosts)


async def _play_game(
    client: ArenaClient, game: GameMirror, console: Console, lines: InputLines, interactive: bool, ghosts: list[str]
) -> int:
    started = game.started
    if started is not None:
        verified = "verified" if started.verified else "not verified"
        console.say(f"new {game.title} game {game.game_id}, {started.deal_kind} deal ({verified})")
    console.say(render(game))
    await _race_ghosts(client, game, ghosts, console)
    announcer = asyncio.create_task(_announce_offers(game, console))
    try:
        while not game.finished:
            if interactive:
                console.prompt()
            line = await lines.next()
            console.answered()
            if line is None or line.strip().lower() in ("quit", "exit", "q"):
                resume = come_back(f"arena play {game.game} --resume {game.game_id}", client)
                console.say(f"left {game.game_id} open; to resume it: {resume}")
                return 0
            await run_command(client, game, line.strip(), console)
            if client.state is ClientState.CLOSED:
                console.say("error: the connection to the server is lost")
                return 1
    finally:
        announcer.cancel()
    if game.result is not None:
        console.say(game_over_text(game.result))
        if game.result.result != "won":
            console.say(f"where was it lost? arena analyse {game.game_id}")
    return 0


async def _race_ghosts(client: ArenaClient, game: GameMirror, names: list[str], console: Console) -> None:
    """Race the ghosts asked for; from then on a line of their bars is
    printed each time one of them changes (the server paces them)."""
    cards = descriptor_of(game.game).lobby.cards

    def changed(game_id: str, _: Ghost) -> None:
        if game_id == game.game_id:
            console.say(ghost_line(client.ghosts.of(game_id), cards))

    client.ghosts.on_change(changed)
    for who in names:
        await _race_ghost(client, game, who, console)


async def _race_ghost(client: ArenaClient, game: GameMirror, who: str, console: Console) -> None:
    try:
        await race_named(client, game.game_id, who)
    except ClientError as error:
        console.say(f"ghost {who}: {refusal_text(error)}")


async def _announce_offers(game: GameMirror, console: Console) -> None:
    """Say so when the server offers to finish: the offer comes after the
    move that made it possible, once the solver has proven a path."""
    with game.updates() as stream:
        async for update in stream:
            if isinstance(update, tc.FinishOffer) and not game.finished:
                console.say(f"the server can finish this game ({counted(update.moves, 'move')}): type finish")


async def _open_game(client: ArenaClient, request: PlayRequest) -> GameMirror:
    if request.resume is None:
        return await client.new_game(request.game, request.deal, request.options, practice=request.practice)
    game = client.games.get(request.resume)
    if game is None:
        raise ClientError(f"no live game {request.resume!r} belongs to this token")
    return game


async def run_command(client: ArenaClient, game: GameMirror, line: str, console: Console) -> None:
    """Carry out one line of input and print what happened."""
    words = line.split()
    if not words:
        return
    verb, game_id = words[0].lower(), game.game_id
    try:
        if verb in ("help", "?"):
            console.say(HELP)
            return
        if verb == "board":
            console.say(render(game))
            return
        if verb == "ghosts":
            console.say(ghost_line(client.ghosts.of(game_id), descriptor_of(game.game).lobby.cards))
            return
        if verb == "ghost" and len(words) == 2:
            await _race_ghost(client, game, words[1], console)
            return
        if verb == "legal":
            console.say(" ".join(game.legal) if game.legal is not None else "this difficulty shows no legal moves")
            return
        if verb == "hint":
            console.say(hint_text(await client.hint_reply(game_id)))
            return
        if verb == "finish":
            played = await client.finish(game_id)
            console.say(f"finished with {counted(len(played), 'move')}: {' '.join(played)}")
        elif verb == "auto":
            if len(words) not in (2, 3) or (len(words) == 3 and not words[2].isdigit()):
                console.say("usage: auto SRC [N]")
                return
            moved = await client.auto_move(game_id, words[1], int(words[2]) if len(words) == 3 else 1)
            if moved is None:
                console.say(f"no move for {words[1]}")
                return
        elif verb == "undo":
            await client.undo(game_id)
        elif verb == "redo":
            await client.redo(game_id)
        elif verb == "restart":
            await client.restart(game_id)
        elif verb == "resign":
            await client.resign(game_id)
        else:
            await client.move(game_id, line)
    except ClientError as error:
        console.say(refusal_text(error))
        return
    if game.status != "playing":
        await _await_game_over(game)
    console.say(render(game))


async def _await_game_over(game: GameMirror) -> None:
    """The ``game_over`` message follows the last diff; give it a moment
    (a ``lost`` game that undo can still rescue gets none)."""
    try:
        await game.wait_until(lambda mirror: mirror.result is not None, GAME_OVER_WAIT)
    except TimeoutError:
        return


async def watch(url: str, game_id: str | None, subprotocol: str, console: Console) -> int:
    """Run ``arena watch``: print the board, then each update, until the
    game ends.  Without a game id, list the live games instead."""
    async with ArenaClient(url, subprotocol=subprotocol, identify=False) as client:
        if game_id is None:
            return await _list(client, console)
        tell_connection(client, console.say)
        try:
            board = await client.watch(game_id)
        except DealSecret as secret:
            console.say(str(secret))
            return 0
        return await _follow(board, console)


async def analyse(url: str, game_id: str, subprotocol: str, console: Console) -> int:
    """Run ``arena analyse``: where a finished game stopped being winnable."""
    async with ArenaClient(url, subprotocol=subprotocol, identify=False, timeout=ANALYSIS_TIMEOUT) as client:
        console.say(analysis_text(await client.analyse(game_id)))
    return 0


async def _list(client: ArenaClient, console: Console) -> int:
    games = await client.list_games()
    for summary in games:
        console.say(f"{summary.game_id}  {summary.title:<12} {summary.owner.name:<16} {summary.status}")
    if not games:
        console.say("no live games")
    return 0


async def _follow(game: GameMirror, console: Console) -> int:
    console.say(render(game, typing=False))
    if game.finished:
        console.say(f"this game is over: {game.status}")
        return 0
    with game.updates() as stream:
        async for update in stream:
            console.say(describe(update))
            if update.type != "game_over":
                console.say(render(game, typing=False))
    if not game.finished:
        console.say("error: the connection to the server is lost")
        return 1
    return 0


async def _reported(work: Callable[[Console], Coroutine[object, object, int]], console: Console) -> int:
    try:
        return await work(console)
    except ClientError as error:
        console.say(refusal_text(error))
        return EXIT_FAILURE
    except ValidationError as error:
        console.say(validation_text(error))
        return EXIT_USAGE


class ConsoleLog(logging.Handler):
    """The client library's warnings as the terminal client's own lines
    (``note: the server refused the reconnection …``), instead of Python's
    last-resort handler writing them onto the prompt."""

    def __init__(self, console: Console) -> None:
        super().__init__(logging.WARNING)
        self.console = console

    def emit(self, record: logging.LogRecord) -> None:
        self.console.say(f"note: {record.getMessage()}")


def run(work: Callable[[Console], Coroutine[object, object, int]]) -> int:
    """Run a command, writing to standard output, to its exit code.  A
    refusal or a lost connection is printed (exit 1), and so is a value
    the protocol's models refuse before it is sent, such as a display
    name too long (exit 2); Ctrl-C ends it quietly.  The library's log
    records come through the console; websockets' below ERROR are dropped
    (the client's own lines say what a dropped connection means)."""
    console = Console(sys.stdout)
    client_log, library_log = logging.getLogger("arena.client"), logging.getLogger("websockets")
    handler, library_level = ConsoleLog(console), library_log.level
    client_log.addHandler(handler)
    client_log.propagate = False
    library_log.setLevel(logging.ERROR)
    try:
        return asyncio.run(_reported(work, console))
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return EXIT_INTERRUPTED
    finally:
        client_log.removeHandler(handler)
        client_log.propagate = True
        library_log.setLevel(library_level)
