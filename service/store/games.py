"""Games in Redis: one hash per game, one Stream of its events, one list of its moves (the keys are
laid out in service/store/keys.py), and the index of the games waiting for players.

A move is a compare-and-set: the Lua script checks the version, writes the state, bumps the
version, appends the events and the log entry and records the idempotent result in one atomic
step. A lost race writes nothing and reports the current version. A join and a leave are checked
the same way (the seat still open, the token still holding it); the writes a client is told about
are acknowledged once replicated (``StoreConnection._write``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from service.store.connection import RegisteredScript, StorePart
from service.store.keys import (
    BOT_NOTICES_MAXLEN,
    GAME_ID,
    OPEN_INDEX,
    STATUS_FINISHED,
    STATUS_WAITING,
    account_keys,
    events_key,
    game_key,
    idem_key,
    log_key,
    open_games_key,
)
from service.store.records import (
    AlreadySeated,
    CommitResult,
    GameMissing,
    GameOver,
    GameRecord,
    GameStart,
    ListPosition,
    OpenGamesPage,
    SeatLost,
    SeatTaken,
    StartChanged,
    StreamEvent,
    VersionConflict,
)
from service.store.scripts import CLAIM_REMATCH_LUA, COMMIT_LUA, CREATE_LUA, JOIN_LUA, LEAVE_LUA, REPLACE_LUA


class GameStore(StorePart):
    """Async access to the games in one Redis (or Redis Cluster)."""

    _commit = RegisteredScript(COMMIT_LUA)
    _join = RegisteredScript(JOIN_LUA)
    _leave = RegisteredScript(LEAVE_LUA)
    _create = RegisteredScript(CREATE_LUA)
    _claim_rematch = RegisteredScript(CLAIM_REMATCH_LUA)
    _replace = RegisteredScript(REPLACE_LUA)

    def ttl_for(self, status: str) -> int:
        return self.connection.finished_ttl if status == STATUS_FINISHED else self.connection.abandoned_ttl

    async def create(self, record: GameRecord, events: Sequence[str]) -> bool:
        """Write a new game and the events of its first deal (version ``record.version``).

        Returns False, writing nothing, when a game with this id already exists.
        """
        fields = [item for pair in record.to_hash().items() for item in pair]
        created = await self.connection._write(
            self._create,
            keys=[game_key(record.id), events_key(record.id)],
            args=[str(self.ttl_for(record.status)), str(record.version), *fields, "--", *events],
        )
        if created and record.listed and record.status == STATUS_WAITING:
            await self._list_open(record.id, record.created_at)
        return bool(created)

    async def claim_rematch(self, gid: str, rematch_id: str) -> str:
        """Link the finished game ``gid`` to its rematch, once: returns the rematch that won (HSETNX,
        so players asking at the same moment all land in one rematch). The field exists, empty, from
        the game's creation on, hence a script rather than HSETNX itself."""
        return str(await self._claim_rematch(keys=[game_key(gid)], args=[rematch_id]))

    async def drop_unstarted(self, gid: str) -> None:
        """Delete a game nobody can know of (a rematch that lost the claim): its hash and stream."""
        await self.r.delete(game_key(gid), events_key(gid))

    async def _list_open(self, gid: str, created_at: float) -> None:
        """Add a game to the open index, dropping entries older than an abandoned game can live and
        refreshing the index's own TTL: the index never outlives the games it lists."""
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.zadd(OPEN_INDEX, {gid: created_at})
            pipe.zremrangebyscore(OPEN_INDEX, "-inf", self._stale_open())
            pipe.expire(OPEN_INDEX, self.connection.abandoned_ttl)
            await pipe.execute()

    async def load(self, gid: str) -> GameRecord | None:
        if not GAME_ID.match(gid):
            return None
        h = await self.r.hgetall(game_key(gid))
        if not h:
            return None
        return GameRecord.from_hash(gid, h)

    async def commit(
        self,
        gid: str,
        expected_version: int,
        state: str,
        status: str,
        events: Sequence[str],
        log_entry: str | None = None,
        idempotency: tuple[str, str] | None = None,
        idempotent_result: str = "",
        seat: int | None = None,
        credential: str = "",
        notice: tuple[str, str] | None = None,
        to_act: int | None = None,
    ) -> CommitResult:
        """Compare-and-set: write ``state`` as version ``expected_version + 1`` or raise.

        ``idempotency`` is (scope, key); ``idempotent_result`` is what a replay of the request returns.
        ``credential`` (the token hash of ``seat``, or "bot") is checked in the same atomic step, so
        a seat given up a moment ago can no longer move. ``notice`` is (bot account, JSON notice): the
        account's next turn, appended to its notices in the same step on one Redis (a Cluster keeps a
        bot's keys on another node: ``notified`` is then False and the caller sends it with
        ``notify_account``)."""
        idem = idem_key(gid, *idempotency) if idempotency is not None else game_key(gid)
        keys = [game_key(gid), events_key(gid), log_key(gid), idem]
        notified = notice is not None and not self.connection.cluster
        if notified:
            assert notice is not None
            keys += list(account_keys(notice[0]))
        args = [
            str(expected_version),
            state,
            status,
            repr(time.time()),
            str(self.ttl_for(status)),
            str(self.connection.idempotency_ttl),
            idempotent_result if idempotency is not None else "",
            log_entry or "",
            "" if seat is None else str(seat),
            credential if seat is not None else "",
            notice[1] if notified and notice is not None else "",
            str(BOT_NOTICES_MAXLEN),
            str(self.connection.game_lifetime),
            "" if to_act is None else str(to_act),
            *events,
        ]
        reply = await self.connection._write(self._commit, keys=keys, args=args)
        outcome, value = reply[0], reply[1]
        if outcome == "ok":
            if status == STATUS_FINISHED:
                await self.forget_unfinished(gid)
            return CommitResult(version=int(value), timeouts=int(reply[2]), notified=notified)
        if outcome == "replay":
            return CommitResult(version=-1, replayed=value)
        if outcome == "conflict":
            raise VersionConflict(int(value))
        if outcome == "seat":
            raise SeatLost(seat)
        raise GameMissing(gid)

    async def idempotent_result(self, gid: str, scope: str, key: str) -> str | None:
        value = await self.r.get(idem_key(gid, scope, key))
        return None if value is None else str(value)

    async def join(
        self,
        gid: str,
        seat: int | None,
        token_hash: str,
        name: str,
        reservation: str = "",
        owner: str = "",
        client_seed: str = "",
        start: GameStart | None = None,
    ) -> tuple[int, bool]:
        """Take ``seat`` (or the first open one); a reserved seat needs its ``reservation``.

        The join that takes the last seat starts the game with ``start`` (its first deal, computed
        from the client seeds read before), written only if those seeds still hold: otherwise (or
        without ``start``) nothing is written and :class:`StartChanged` asks for a fresh read.
        Returns (seat, whether the game started)."""
        start_args: list[str] = ["", "", "0"]
        if start is not None:
            to_act = "" if start.to_act is None else str(start.to_act)
            start_args = [
                start.state,
                to_act,
                str(len(start.client_seeds)),
                *start.client_seeds,
                *start.events,
            ]
        outcome, value = await self.connection._write(
            self._join,
            keys=[game_key(gid), events_key(gid)],
            args=[
                str(-1 if seat is None else seat),
                token_hash,
                name,
                repr(time.time()),
                str(self.connection.abandoned_ttl),
                reservation,
                owner,
                client_seed,
                *start_args,
            ],
        )
        if outcome == "missing":
            raise GameMissing(gid)
        if outcome == "retry":
            raise StartChanged(int(value))
        if outcome == "full":
            raise SeatTaken(None)
        if outcome == "taken":
            raise SeatTaken(int(value))
        if outcome == "twice":
            raise AlreadySeated(int(value))
        if outcome == "started":
            await self.r.zrem(OPEN_INDEX, gid)
        return int(value), outcome == "started"

    async def leave(self, gid: str, seat: int, token_hash: str, replacement: str) -> str:
        """Give up ``seat``: before the start it opens again; during the match ``replacement`` (a bot
        kind) takes it over. Returns "left" or "replaced"; raises SeatLost or GameMissing."""
        outcome, _status = await self._leave(
            keys=[game_key(gid), events_key(gid)],
            args=[str(seat), token_hash, repr(time.time()), replacement],
        )
        if outcome == "missing":
            raise GameMissing(gid)
        if outcome == "seat":
            raise SeatLost(seat)
        if outcome == "over":
            raise GameOver(gid)
        if outcome == "left":
            record = await self.load(gid)
            if record is not None and record.listed and record.status == STATUS_WAITING:
                await self._list_open(gid, record.created_at)
        return str(outcome)

    async def replace_seat(self, gid: str, seat: int, kind: str, reason: str) -> bool:
        """Hand a seat of a running game to ``kind`` (a bot), revoking its token."""
        done = await self._replace(
            keys=[game_key(gid), events_key(gid)], args=[str(seat), kind, reason, repr(time.time())]
        )
        return bool(done)

    async def set_field(self, gid: str, field: str, value: str) -> None:
        await self.r.hset(game_key(gid), field, value)

    async def events(self, gid: str, after: str = "0-0", count: int = 1000) -> list[StreamEvent]:
        """The events after stream id ``after`` (exclusive), oldest first."""
        entries = await self.connection._entries_after(events_key(gid), after, count)
        return [StreamEvent.from_entry(*entry) for entry in entries]

    async def wait_events(self, gid: str, after: str, block_ms: int, count: int = 1000) -> list[StreamEvent]:
        """Block up to ``block_ms`` for events after ``after``; [] on timeout."""
        entries = await self.connection._entries_after(events_key(gid), after, count, block_ms)
        return [StreamEvent.from_entry(*entry) for entry in entries]

    async def log(self, gid: str) -> list[Any]:
        return [json.loads(item) for item in await self.r.lrange(log_key(gid), 0, -1)]

    async def open_games(self, limit: int = 50) -> list[GameRecord]:
        """Listed games still waiting for players, newest first (the first page of :meth:`open_page`)."""
        return (await self.open_page(limit)).records

    async def open_page(self, limit: int = 50, after: ListPosition | None = None) -> OpenGamesPage:
        """Up to ``limit`` listed games still waiting for players, newest first, strictly after
        ``after`` (None: from the newest); stale index entries are dropped on the way.

        Keyset paging on the index's order (creation time, then id, both descending): a page starts
        after the last game of the previous one, not at an offset, so a game created meanwhile (newer
        than every position already handed out) is never seen twice nor pushes another one out of
        reach, and a game leaving the index does not shift the rest. The next position is given only
        when a further open game exists, so the last page says so (``next`` None)."""
        await self.r.zremrangebyscore(OPEN_INDEX, "-inf", self._stale_open())
        found: list[tuple[ListPosition, GameRecord]] = []
        position = after
        while len(found) <= limit:
            entries = await self._index_after(position, limit + 1 - len(found))
            if not entries:
                break
            records = await self._load_many([place.game_id for place in entries])
            for place, record in zip(entries, records, strict=True):
                if record is None or record.status != STATUS_WAITING or not record.listed:
                    await self.r.zrem(OPEN_INDEX, place.game_id)
                else:
                    found.append((place, record))
            position = entries[-1]
        page = found[:limit]
        more = len(found) > limit and bool(page)
        return OpenGamesPage([record for _, record in page], page[-1][0] if more else None)

    async def _index_after(self, position: ListPosition | None, count: int) -> list[ListPosition]:
        """At least ``count`` entries of the open index after ``position`` in its descending order
        (fewer at its end; more when games share the position's creation time: all of those)."""
        if position is None:
            ties: list[ListPosition] = []
            below = "+inf"
        else:
            # games created at the very same instant as the position: ordered by id, descending
            score = repr(position.created_at)
            same = await self.r.zrevrangebyscore(OPEN_INDEX, score, score)
            ties = [ListPosition(position.created_at, gid) for gid in same if gid < position.game_id]
            below = f"({position.created_at!r}"
        rest = await self.r.zrevrangebyscore(OPEN_INDEX, below, "-inf", start=0, num=count, withscores=True)
        return [*ties, *(ListPosition(float(score), gid) for gid, score in rest)]

    async def _load_many(self, gids: list[str]) -> list[GameRecord | None]:
        """The records of ``gids`` (None for a missing one), read in one pipelined round trip."""
        async with self.r.pipeline(transaction=False) as pipe:
            for gid in gids:
                pipe.hgetall(game_key(gid))
            replies = await pipe.execute()
        return [GameRecord.from_hash(gid, h) if h else None for gid, h in zip(gids, replies, strict=True)]

    def _stale_open(self) -> str:
        """The score (exclusive) below which an open index entry is older than a game can live unplayed."""
        return f"({time.time() - self.connection.abandoned_ttl!r}"

    async def ttl(self, gid: str) -> int:
        return int(await self.r.ttl(game_key(gid)))

    # --- the count of unfinished games (service/games/quotas.py decides; the store keeps the books)

    async def forget_unfinished(self, gid: str) -> None:
        """A finished game leaves the server-wide count (its creator's set drops it lazily)."""
        await self.r.zrem(open_games_key(gid), gid)
