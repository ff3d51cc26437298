"""The requests about players and the server rather than one game:
``hello``, the list of live games, the catalogue of the games offered,
records, the daily challenge and its leaderboard, ``ping``.

Decisions made here, and why:
- The catalogue is sent on request (``catalogue``), not with ``welcome``:
  a lobby shows the games before anyone says hello, and a client written
  before the catalogue never receives a message it does not know.
- Watching needs no identity (anonymous spectators); starting or playing
  a game needs ``hello``.
- On ``hello`` with a token the player re-watches all of its live games
  (``welcome`` lists them and a ``snapshot`` of each follows) and follows
  its unfinished races again; so does a ``hello`` with a link code, which
  is the same player on a new device (``server.social.devices``).
- Every ``hello`` names the connection's device (``Peer.device_id``): the
  token's, the new one a link code made, or a new player's first; a
  ``device`` name given renames it.
"""

from __future__ import annotations

import hashlib
from typing import Awaitable, Callable, Protocol

from engine.descriptor import GameDescriptor
from engine.games import DESCRIPTORS
from engine.options import SAFE_INTEGER
from protocol import PROTOCOL_VERSION, ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.net.admission import Admission
from server.deals.daily import TodaysRecord, daily_info
from server.games.leaderboards import Leaderboards
from server.games.listing import LiveListing
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.games.records import records_reply
from server.model.refusal import Refusal
from server.games.room import summarize
from server.games.watching import HiddenFrom, nobody_hidden
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.model.records import PlayerRecord, SessionHeader
from server.storage.base import Store
from server.storage.devices_base import first_device


def hash_token(token: str) -> str:
    """Tokens are stored only as this hash, so a leaked store leaks no identity."""
    return hashlib.sha256(token.encode()).hexdigest()


def catalogue_game(descriptor: GameDescriptor) -> tc.CatalogueGame:
    """A game's entry in the ``catalogue``: its descriptor's lobby facts,
    so a client's lobby and boards need nothing of a game but its layout."""
    lobby = descriptor.lobby
    rules = descriptor.rules
    return tc.CatalogueGame(
        game=descriptor.id,
        title=descriptor.title,
        blurb=lobby.blurb,
        cards=lobby.cards,
        first_deal=rules.FIRST_DEAL,
        last_deal=rules.LAST_DEAL if rules.LAST_DEAL <= SAFE_INTEGER else None,
        deal_kinds=list(lobby.deal_kinds),
        choose_random_deal=lobby.choose_random_deal,
        options=[
            tc.CatalogueOption(
                name=option.name,
                label=option.label,
                toggle=option.toggle,
                choices=[tc.CatalogueChoice(value=value, label=label) for value, label in option.choices],
            )
            for option in lobby.options
        ],
        changeable=list(lobby.changeable),
        counters=[
            tc.CatalogueCounter(name=counter.name, label=counter.label, out_of=counter.out_of)
            for counter in descriptor.counters
        ],
        automatic=[option.name for option in rules.OPTIONS if option.automatic],
        daily_variants=len(descriptor.daily),
    )


class Linking(Protocol):
    """What ``hello`` asks of the devices part (``server.social.devices``)."""

    async def redeem(self, peer: Peer, code: str, name: str | None) -> tuple[PlayerRecord, str]:
        """The player a link code names and the token of the new device the
        connection now is; a ``Refusal`` for a bad code or too many tries."""

    async def follow_revocations(self) -> None:
        """Make sure a revocation published from now on closes the connections it names."""


class Lobby:
    """Identity and the server-wide requests; see the module docstring.

    What a returning player gets back is asked of the other parts:
    ``live_headers`` (its unfinished games), ``watch_game`` and
    ``rejoin_races``; a link code is redeemed by ``linking``."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int],
        entropy: Entropy,
        admission: Admission,
        today_record: TodaysRecord,
        outbox: Outbox,
        listing: LiveListing,
        leaderboards: Leaderboards,
        live_headers: Callable[[str], Awaitable[list[SessionHeader]]],
        watch_game: Callable[[Peer, str], Awaitable[None]],
        rejoin_races: Callable[[Peer, str], Awaitable[None]],
        linking: Linking,
    ) -> None:
        self._settings = settings
        self._store = store
        self._clock = clock
        self._entropy = entropy
        self._admission = admission
        self._today_record = today_record
        self._outbox = outbox
        self._listing = listing
        self.leaderboards = leaderboards
        """Shared with the HTTP API's leaderboards, and what they keep."""
        self._live_headers = live_headers
        self._watch_game = watch_game
        self._rejoin_races = rejoin_races
        self._linking = linking
        self.hidden_from: HiddenFrom = nobody_hidden
        """Set by the Hub once the social part exists: a blocker's games are
        left out of a blocked player's ``list_games``."""

    async def hello(self, peer: Peer, message: ts.Hello) -> None:
        """Identify the connection.  A new identity costs one of its
        address's hourly allowance (``too_many_identities`` past it), since
        each would otherwise be a free ranked attempt; a token is free, and
        so is a link code (a device of a player there is already).
        ``bot`` marks the identity for good (``Peer.bot``)."""
        if peer.player is not None:
            raise Refusal(ErrorCode.FORBIDDEN, "this connection has already said hello")
        await self._linking.follow_revocations()
        returning = message.token is not None or message.link_code is not None
        if message.link_code is not None:
            player, token = await self._linking.redeem(peer, message.link_code, message.device)
        elif message.token is not None:
            token = message.token
            found = await self._store.device_by_token_hash(hash_token(token), self._clock())
            if found is None:
                raise Refusal(ErrorCode.BAD_TOKEN, "no player has this token; say hello without one to start afresh")
            player, device = found
            peer.device_id = device.device_id
            if message.device is not None and message.device != device.name:
                await self._store.rename_device(player.player_id, device.device_id, message.device)
        if returning:
            if message.name is not None and message.name != player.display_name:
                await self._store.set_display_name(player.player_id, message.name)
                player.display_name = message.name
            if message.bot and not player.bot:
                await self._store.mark_bot(player.player_id)
                player.bot = True
            if player.address != peer.address:
                await self._store.note_address(player.player_id, peer.address)
                player.address = peer.address
        else:
            denial = self._admission.new_identity(peer.address)
            if denial is not None:
                raise Refusal(denial.code, denial.message)
            token = self._entropy.token_urlsafe(32)
            player_id = self._entropy.new_id("p_")
            name = message.name or f"player-{player_id[-4:]}"
            player = PlayerRecord(player_id, name, hash_token(token), self._clock(), bot=message.bot, address=peer.address)
            await self._store.create_player(player)
            peer.device_id = first_device(player).device_id
            if message.device is not None:
                await self._store.rename_device(player_id, peer.device_id, message.device)
        peer.player = player
        live = await self._live_headers(player.player_id)
        owner = tc.Owner(player_id=player.player_id, name=player.display_name)
        settings = self._settings
        self._outbox.send(
            peer,
            tc.Welcome(
                id=message.id,
                player_id=player.player_id,
                name=player.display_name,
                token=token,
                server_time=self._clock(),
                protocol=PROTOCOL_VERSION,
                games=[summarize(header, owner) for header in live],
                limits=tc.Limits(
                    max_frame_bytes=settings.max_frame_bytes,
                    messages_per_second=settings.rate_per_second,
                    burst=settings.rate_burst,
                ),
                bot=player.bot,
            ),
        )
        for header in live:
            try:
                await self._watch_game(peer, header.game_id)
            except Refusal:
                continue
        if returning:
            await self._rejoin_races(peer, player.player_id)

    async def list_games(self, peer: Peer, message: ts.ListGames) -> None:
        viewer = peer.player.player_id if peer.player is not None else None
        games = await self._listing.page(viewer, message.game, message.limit, self.hidden_from)
        self._outbox.send(peer, {"id": message.id, "type": "games", "games": games})

    async def catalogue(self, peer: Peer, message: ts.Catalogue) -> None:
        self._outbox.send(peer, tc.CatalogueReply(id=message.id, games=[catalogue_game(game) for game in DESCRIPTORS.values()]))

    async def ping(self, peer: Peer, message: ts.Ping) -> None:
        self._outbox.send(peer, tc.Pong(id=message.id, server_time=self._clock()))

    async def records(self, peer: Peer, message: ts.Records) -> None:
        """A player's records; records are public, like a leaderboard's
        entries (anyone may ask by ``player_id``; yours need ``hello``)."""
        if message.player_id is None:
            player = require_player(peer)
        else:
            found = await self._store.get_player(message.player_id)
            if found is None:
                raise Refusal(ErrorCode.PLAYER_NOT_FOUND, f"there is no player {message.player_id!r}")
            player = found
        self._outbox.send(peer, await records_reply(self._store, player.player_id, player.display_name, message.id))

    async def daily(self, peer: Peer, message: ts.Daily) -> None:
        """Answered from the records already fixed (``DailyKeeper.today``):
        a connection's frames are handled in order, so a ``daily`` that
        waited for a proof held up every later request of its connection
        (the browser's lobby asks for the catalogue, the dailies, the
        leaderboards and the games at once)."""
        info = await daily_info(self._store, self._settings, self._today_record, message, self._clock())
        self._outbox.send(peer, info)

    async def leaderboard(self, peer: Peer, message: ts.Leaderboard) -> None:
        self._outbox.send(peer, await self.leaderboards.page(message, peer.player, self._clock()))
