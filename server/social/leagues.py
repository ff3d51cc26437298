"""Leagues: creating one, its invite code, joining, leaving, removing a
member, the daily board of its members and its weekly standings
(``server.social.league_weeks``).

Only members read a league: a league id that is unknown, gone, or not
one of the asker's leagues is refused alike (``league_not_found``), so
guessing ids tells nothing, and league ids are random (72 bits) besides.

Invite codes cannot be enumerated: a join whose code names no league
counts against the player and its address, and past
``league_lookup_failures_per_hour`` (per address:
``league_lookup_failures_per_address``) within the hour every join by
code is refused, right or wrong, as friend codes are
(``server.social.friends``).  A player the owner blocked is told the code
names no league, and that counts as a failure too, so a block cannot be
learned from a join.  Removing a member does not bar them: the owner
re-issues the code to keep them out, and the old code then names nothing.

Limits are checked before the write, so two joins at the same moment may
pass a limit by one each; the next join is refused.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

from protocol import ErrorCode
from protocol import leagues as pl
from server.deals.daily import known_game, requested_day
from server.games.owners import owner_of, owners_of
from server.games.replayed import ReplayedSessions
from server.model.codes import LEAGUE_CODE
from server.model.refusal import Refusal
from server.net.outbox import Outbox, with_id
from server.net.peer import Peer, require_player
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.social.friends_board import chosen_variant, ranked_rows, stored_rows
from server.social.league_weeks import LeagueWeeks
from server.social.part import FailedLookups, SocialPart
from server.storage.base import Store
from server.storage.leagues import LeagueRecords

CODE_DRAWS = 5
"""Codes drawn before giving up on finding a free one (40 bits each)."""

Blocks = Callable[[str, str], Awaitable[bool]]
"""Whether the first player blocked the second (``Friends.blocks``)."""

Handler = Callable[[Peer, Any], Awaitable[None]]


class Leagues(SocialPart):
    """The league requests."""

    def __init__(self, settings: Settings, store: Store, clock: Callable[[], int], entropy: Entropy, outbox: Outbox,
                 blocks: Blocks, replayed: ReplayedSessions) -> None:
        super().__init__(settings, store, clock, entropy, outbox)
        self._replayed = replayed
        self._leagues = LeagueRecords(store)
        self._weeks = LeagueWeeks(settings, store, clock, self._leagues)
        self._blocks = blocks
        self._failed_lookups = FailedLookups(
            self._records, clock, entropy, "league_lookups", settings.league_lookup_failures_per_hour,
            settings.league_lookup_failures_per_address,
            ErrorCode.LEAGUE_LOOKUPS_LIMITED, "too many league codes that named no league; try again within the hour",
        )

    def handlers(self) -> dict[type[Any], Handler]:
        """The requests this part serves, for the Hub's table."""
        return {
            pl.CreateLeague: self.create, pl.LeagueCode: self.code, pl.JoinLeague: self.join,
            pl.LeaveLeague: self.leave, pl.RemoveLeagueMember: self.remove, pl.Leagues: self.listing,
            pl.LeagueBoard: self.board, pl.LeagueStandings: self.standings,
        }

    # ---------------------------------------------------------------- membership

    async def create(self, peer: Peer, message: pl.CreateLeague) -> None:
        me = require_player(peer).player_id
        variants: list[list[str]] = []
        for choice in message.variants:
            game_cls, variant = chosen_variant(choice.game, choice.options)
            if [game_cls.id, variant] not in variants:
                variants.append([game_cls.id, variant])
        await self._check_own_limit(me)
        now = self._now()
        league_id = self._entropy.new_id("l_")
        league = {"league_id": league_id, "name": message.name, "owner": me, "variants": variants,
                  "code": await self._draw_code(league_id), "created_ms": now}
        await self._leagues.put_league(league)
        await self._leagues.add_member(league_id, me, now)
        await self._reply(peer, message.id, league)

    async def code(self, peer: Peer, message: pl.LeagueCode) -> None:
        league, _ = await self._league_of_member(peer, message.league_id)
        self._check_owner(peer, league)
        old = str(league["code"])
        league = league | {"code": await self._draw_code(message.league_id)}
        await self._leagues.put_league(league)
        await self._leagues.release_code(message.league_id, old)
        await self._reply(peer, message.id, league)

    async def join(self, peer: Peer, message: pl.JoinLeague) -> None:
        me = require_player(peer).player_id
        league = await self._lookup(peer, message.code)
        if league is None or await self._blocks(str(league["owner"]), me):
            await self._failed_lookups.count(peer)
            raise Refusal(ErrorCode.LEAGUE_CODE_UNKNOWN, f"no league has the invite code {message.code!r}")
        league_id = str(league["league_id"])
        if await self._leagues.member(league_id, me) is None:
            await self._check_own_limit(me)
            limit = self._settings.league_members_limit
            if len(await self._members(league_id)) >= limit:
                raise Refusal(ErrorCode.LEAGUE_LIMIT, f"this league has its {limit} members", reason="members")
            await self._leagues.add_member(league_id, me, self._now())
        await self._reply(peer, message.id, league)

    async def leave(self, peer: Peer, message: pl.LeaveLeague) -> None:
        me = require_player(peer).player_id
        league, members = await self._league_of_member(peer, message.league_id)
        await self._weeks.settle(league, members)
        await self._leagues.drop_member(message.league_id, me)
        others = [member for member in members if member["player_id"] != me]
        if not others:
            await self._leagues.drop_league(message.league_id)
            await self._leagues.release_code(message.league_id, str(league["code"]))
        elif league["owner"] == me:
            await self._leagues.put_league(league | {"owner": others[0]["player_id"]})
        await self.listing(peer, pl.Leagues(id=message.id))

    async def remove(self, peer: Peer, message: pl.RemoveLeagueMember) -> None:
        league, members = await self._league_of_member(peer, message.league_id)
        self._check_owner(peer, league)
        if message.player_id == league["owner"] or all(member["player_id"] != message.player_id for member in members):
            raise Refusal(ErrorCode.NOT_LEAGUE_OWNER, "remove names another member of the league")
        await self._weeks.settle(league, members)
        await self._leagues.drop_member(message.league_id, message.player_id)
        await self._reply(peer, message.id, league)

    async def listing(self, peer: Peer, message: pl.Leagues) -> None:
        me = require_player(peer).player_id
        limit = self._settings.leagues_per_player
        mirrors = await self._leagues.leagues_of(me, 2 * limit)
        leagues = await self._leagues.leagues([str(mirror["league_id"]) for mirror in mirrors])
        infos = []
        for mirror in mirrors:
            league = leagues.get(str(mirror["league_id"]))
            if league is None:
                await self._leagues.drop_member(str(mirror["league_id"]), me)
            elif await self._leagues.member(str(league["league_id"]), me) is not None:
                infos.append(await self._info(league))
        self._outbox.send(peer, pl.LeagueList(id=message.id, leagues=infos[:limit]))

    async def share_a_league(self, player_id: str, other_id: str) -> bool:
        """Whether both players are members of one league and neither blocked
        the other: a member may race another member's ghost."""
        if await self._blocks(player_id, other_id) or await self._blocks(other_id, player_id):
            return False
        limit = 2 * self._settings.leagues_per_player  # room for mirrors of leagues left, as ``listing`` reads
        mine, theirs = await asyncio.gather(self._leagues.leagues_of(player_id, limit), self._leagues.leagues_of(other_id, limit))
        common = {str(membership.get("league_id", "")) for membership in mine} & {
            str(membership.get("league_id", "")) for membership in theirs
        }
        # The lists mirror the memberships; the members themselves decide.
        for league_id in sorted(common - {""}):
            both = await asyncio.gather(self._leagues.member(league_id, player_id), self._leagues.member(league_id, other_id))
            if all(both):
                return True
        return False

    # ---------------------------------------------------------------- reading

    async def board(self, peer: Peer, message: pl.LeagueBoard) -> None:
        league, members = await self._league_of_member(peer, message.league_id)
        variants = [tuple(pair) for pair in league["variants"]]
        if message.game is None:
            game_id, variant = variants[0]
        else:
            game_cls, variant = chosen_variant(message.game, message.options)
            game_id = game_cls.id
            if (game_id, variant) not in variants:
                raise Refusal(ErrorCode.BAD_OPTION, f"this league does not play {game_id} {variant}")
        now = self._now()
        key = (game_id, variant, requested_day(message.date, now).isoformat())
        me = require_player(peer).player_id
        owners = await owners_of(self._store, [str(member["player_id"]) for member in members])
        rows = await stored_rows(self._store, self._replayed, key, owners, me, now)
        self._outbox.send(peer, with_id(message.id, {
            "type": "league_board", "league_id": message.league_id, "name": str(league["name"]), "game": game_id,
            "title": known_game(game_id).title, "variant": variant, "date": key[2], "rows": ranked_rows(rows), "server_time": now,
        }))

    async def standings(self, peer: Peer, message: pl.LeagueStandings) -> None:
        league, members = await self._league_of_member(peer, message.league_id)
        self._outbox.send(peer, await self._weeks.reply(message.id, league, members, message.week))

    # ---------------------------------------------------------------- inside

    async def _league_of_member(self, peer: Peer, league_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The league and its members, earliest joined first, if the asker is one."""
        me = require_player(peer).player_id
        league = await self._leagues.league(league_id)
        if league is None or await self._leagues.member(league_id, me) is None:
            raise Refusal(ErrorCode.LEAGUE_NOT_FOUND, "you are in no league with this id")
        return league, await self._members(league_id)

    async def _members(self, league_id: str) -> list[dict[str, Any]]:
        """The members whose both halves exist (``LeagueRecords.member``), earliest joined first."""
        listed = await self._leagues.members(league_id, 2 * self._settings.league_members_limit)
        whole = await self._leagues.whole_members(league_id, [str(member["player_id"]) for member in listed])
        return sorted(whole.values(), key=lambda member: int(member["joined_ms"]))

    async def _info(self, league: dict[str, Any]) -> pl.LeagueInfo:
        members = await self._members(str(league["league_id"]))
        owners = await owners_of(self._store, [str(member["player_id"]) for member in members])
        code = LEAGUE_CODE.shown(str(league["code"]))
        return pl.LeagueInfo(
            league_id=league["league_id"], name=league["name"], owner=await owner_of(self._store, str(league["owner"])),
            variants=[pl.LeagueVariant(game=game, variant=variant) for game, variant in league["variants"]],
            code=code, link=f"/#league={code}",
            members=[pl.LeagueMember(player=owner, joined_ms=member["joined_ms"]) for owner, member in zip(owners, members)],
        )

    async def _reply(self, peer: Peer, request_id: Any, league: dict[str, Any]) -> None:
        self._outbox.send(peer, pl.League(id=request_id, league=await self._info(league)))

    def _check_owner(self, peer: Peer, league: dict[str, Any]) -> None:
        if league["owner"] != require_player(peer).player_id:
            raise Refusal(ErrorCode.NOT_LEAGUE_OWNER, "only the league's owner may do this")

    async def _check_own_limit(self, player_id: str) -> None:
        limit = self._settings.leagues_per_player
        if len(await self._leagues.leagues_of(player_id, limit)) >= limit:
            raise Refusal(ErrorCode.LEAGUE_LIMIT, f"you are in {limit} leagues, the most one may be in", reason="leagues")

    async def _draw_code(self, league_id: str) -> str:
        for _ in range(CODE_DRAWS):
            code = LEAGUE_CODE.code_from(self._entropy.token_bytes(LEAGUE_CODE.random_bytes))
            if await self._leagues.claim_code(league_id, code):
                return code
        raise Refusal(ErrorCode.INTERNAL_ERROR, "no free league code was found; try again")

    async def _lookup(self, peer: Peer, text: str) -> dict[str, Any] | None:
        """The league of a code, refused while its asker or address has too
        many failures within the hour, whatever the code."""
        await self._failed_lookups.check(peer)
        code = LEAGUE_CODE.normalize(text)
        return None if code is None else await self._leagues.league_of_code(code)
