"""Ratings and ladders in Redis (the domain, what a rating is and how a match moves it, is
service/games/ratings.py).

Keys, each command naming one hash tag (so one Redis Cluster slot):

- ``atout:rating:{<account>}:<kind>``      hash: ``mu``, ``sigma``, ``ordinal``, ``matches`` of one account
  in one game kind (``<account>`` is ``player:<id>``, ``bot:<id>`` or ``builtin:<level>``);
- ``atout:ratinghist:{<account>}:<kind>``  list: the account's rating changes, newest first, capped;
- ``atout:ladder:{<kind>}:people|bots``    sorted set: the accounts of a game kind, scored by ordinal;
- ``atout:rated:{<game>}``                 string, set once (NX) by the finish that rates the game, so a
  retried finish never rates twice;
- ``atout:ratedgroup:{<digest>}``          counter of rated matches between one set of accounts in one
  game kind, expiring 24 hours after the first of them (the repeat rule).

A person's or bot account's rating and history expire after the account's idle TTL from its last rated
match (a built-in bot's never); the ladders hold one member per rated account and game kind, dropped when
the account is deleted (:meth:`forget_ratings`) or met by a read after its rating expired
(:meth:`prune_ladder`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.store.connection import RegisteredScript, StorePart

BOARDS = ("people", "bots")
REPEAT_WINDOW = 24 * 3600


def rating_key(account: str, kind: str) -> str:
    return f"atout:rating:{{{account}}}:{kind}"


def rating_history_key(account: str, kind: str) -> str:
    return f"atout:ratinghist:{{{account}}}:{kind}"


def ladder_key(kind: str, board: str) -> str:
    return f"atout:ladder:{{{kind}}}:{board}"


def rated_marker_key(gid: str) -> str:
    return f"atout:rated:{{{gid}}}"


def rated_group_key(kind: str, accounts: Sequence[str]) -> str:
    digest = hashlib.sha256("\0".join([kind, *sorted(accounts)]).encode()).hexdigest()
    return f"atout:ratedgroup:{{{digest}}}"


@dataclass(frozen=True)
class RatingWrite:
    """One account's new rating in one game kind, the change to add to its history, the ladder it is on,
    and how long the rating lives without another rated match (0: for ever, the bots')."""

    account: str
    kind: str
    fields: dict[str, str]
    change: dict[str, Any]
    board: str
    ordinal: float
    ttl: int = 0


@dataclass(frozen=True)
class LadderEntry:
    account: str
    ordinal: float
    rank: int  # 1 for the best


# KEYS: an account's rating hash and history list (one hash tag); ARGV: the ``mu`` the new rating was
# computed from ('' = never rated), the history entry, the history's length, the TTL (0: none), then the
# hash's field, value pairs. Writes nothing and answers 0 when the rating moved since it was read.
RATE_LUA = """
if (redis.call('HGET', KEYS[1], 'mu') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
if ARGV[4] ~= '0' then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
return 1
"""


class RatingStore(StorePart):
    """Async access to the ratings, their histories and the ladders."""

    _rate = RegisteredScript(RATE_LUA)

    async def write_rating(self, w: RatingWrite, expected_mu: str, history_length: int) -> bool:
        """Write one account's new rating and history entry if its rating is still the one it was
        computed from (``expected_mu``, "" for none), then its ladder score; False, writing nothing,
        when the rating moved meanwhile. The ladder lives under another hash tag, so its ZADD is a
        command of its own, after the rating's."""
        fields = [item for pair in w.fields.items() for item in pair]
        args = [expected_mu, json.dumps(w.change, sort_keys=True), str(history_length), str(w.ttl), *fields]
        keys = [rating_key(w.account, w.kind), rating_history_key(w.account, w.kind)]
        if not await self._rate(keys=keys, args=args):
            return False
        await self.r.zadd(ladder_key(w.kind, w.board), {w.account: w.ordinal})
        return True

    async def claim_rating(self, gid: str) -> bool:
        """True for the one finish of ``gid`` that rates it (SET NX); False for any retry after it."""
        return bool(
            await self.r.set(
                rated_marker_key(gid), "1", nx=True, ex=self.connection.game_lifetime + REPEAT_WINDOW
            )
        )

    async def count_group_match(self, kind: str, accounts: Sequence[str]) -> int:
        """Count one more rated match between exactly ``accounts``: the how-manieth it is in the 24 hours
        since the first of them."""
        key = rated_group_key(kind, accounts)
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.set(key, 0, nx=True, ex=REPEAT_WINDOW)  # the window starts at the first (INCR keeps the TTL)
            pipe.incr(key)
            _, count = await pipe.execute()
        return int(count)

    async def load_ratings(self, accounts: Sequence[str], kind: str) -> list[dict[str, str]]:
        """The stored ratings of ``accounts`` in ``kind`` ({} for an account never rated), one round trip."""
        async with self.r.pipeline(transaction=False) as pipe:
            for account in accounts:
                pipe.hgetall(rating_key(account, kind))
            replies = await pipe.execute()
        return [dict(reply) for reply in replies]

    async def write_ratings(self, writes: Sequence[RatingWrite], history_length: int) -> None:
        """Write each account's rating, history entry and ladder score, pipelined and unchecked (every
        command names one key, so a Cluster sends each to its own slot): a bulk load (a bench, an
        import); a match's end writes each account with :meth:`write_rating`."""
        async with self.r.pipeline(transaction=False) as pipe:
            for w in writes:
                key, hist = rating_key(w.account, w.kind), rating_history_key(w.account, w.kind)
                pipe.hset(key, mapping=w.fields)
                pipe.lpush(hist, json.dumps(w.change, sort_keys=True))
                pipe.ltrim(hist, 0, history_length - 1)
                if w.ttl:
                    pipe.expire(key, w.ttl)
                    pipe.expire(hist, w.ttl)
                pipe.zadd(ladder_key(w.kind, w.board), {w.account: w.ordinal})
            await pipe.execute()

    async def rating_history(self, account: str, kind: str, limit: int) -> list[dict[str, Any]]:
        return [
            json.loads(item) for item in await self.r.lrange(rating_history_key(account, kind), 0, limit - 1)
        ]

    async def ladder_size(self, kind: str, board: str) -> int:
        return int(await self.r.zcard(ladder_key(kind, board)))

    async def ladder_page(
        self, kind: str, board: str, limit: int, after: tuple[float, str] | None = None
    ) -> list[LadderEntry]:
        """Up to ``limit`` entries of a ladder, best first, after the entry ``after`` (its ordinal and
        account; None: from the top). Keyset paging: the page starts just after that account when it
        still holds that ordinal (ZREVRANK), else after every account rated above that ordinal, so a
        rating that changes meanwhile shifts the rest by at most that one entry. O(log N + limit)."""
        key = ladder_key(kind, board)
        start = 0
        if after is not None:
            score, account = after
            async with self.r.pipeline(transaction=False) as pipe:
                pipe.zscore(key, account)
                pipe.zrevrank(key, account)
                pipe.zcount(key, f"({score!r}", "+inf")
                held, rank, above = await pipe.execute()
            start = (
                int(rank) + 1
                if held is not None and float(held) == score and rank is not None
                else int(above)
            )
        rows = await self.r.zrevrange(key, start, start + limit - 1, withscores=True)
        return [LadderEntry(str(m), float(s), start + i + 1) for i, (m, s) in enumerate(rows)]

    async def ladder_around(
        self, kind: str, board: str, account: str, around: int
    ) -> list[LadderEntry] | None:
        """``account``'s entry with up to ``around`` neighbours either side (None: not on the ladder)."""
        key = ladder_key(kind, board)
        rank = await self.r.zrevrank(key, account)
        if rank is None:
            return None
        start = max(0, int(rank) - around)
        rows = await self.r.zrevrange(key, start, int(rank) + around, withscores=True)
        return [LadderEntry(str(m), float(s), start + i + 1) for i, (m, s) in enumerate(rows)]

    async def ratings_and_names(
        self, accounts: Sequence[str], kind: str, name_keys: Sequence[str]
    ) -> tuple[list[dict[str, str]], list[str]]:
        """The stored ratings of ``accounts`` in ``kind`` and the ``name`` field of each account hash in
        ``name_keys`` ("" when gone), in one round trip (a ladder page's)."""
        async with self.r.pipeline(transaction=False) as pipe:
            for account in accounts:
                pipe.hgetall(rating_key(account, kind))
            for key in name_keys:
                pipe.hget(key, "name")
            replies = await pipe.execute()
        n = len(accounts)
        return [dict(reply) for reply in replies[:n]], [str(reply or "") for reply in replies[n:]]

    async def accounts_exist(self, account_hashes: Sequence[str]) -> list[bool]:
        """Whether each account hash in ``account_hashes`` exists (a player or bot account not deleted)."""
        async with self.r.pipeline(transaction=False) as pipe:
            for key in account_hashes:
                pipe.exists(key)
            replies = await pipe.execute()
        return [bool(reply) for reply in replies]

    async def prune_ladder(self, kind: str, board: str, accounts: Sequence[str]) -> None:
        """Drop from a ladder the accounts whose rating hash has expired."""
        await self.r.zrem(ladder_key(kind, board), *accounts)

    async def forget_ratings(self, account: str, kinds: Sequence[str]) -> None:
        """Drop a deleted account's ratings, histories and ladder entries in every game kind."""
        async with self.r.pipeline(transaction=False) as pipe:
            for kind in kinds:
                pipe.delete(rating_key(account, kind))
                pipe.delete(rating_history_key(account, kind))
                for board in BOARDS:
                    pipe.zrem(ladder_key(kind, board), account)
            await pipe.execute()
