"""Caps on unfinished games: per creator and on the whole server, so no client can fill Redis.

Who is the creator: the bot account whose API key is the bearer token, else the client address
(a bearer token that is not a valid bot key is not trusted as an identity: a made-up token per
request would otherwise be a fresh quota per request). A rematch counts for the bot account of the
seat that asked for it, else for the caller's address. The administrator is exempt from the
per-creator cap (not from the total).

Bookkeeping, Cluster-friendly (each script touches one key; no key grows without bound):

- ``atout:creator:{c}``: a sorted set of the creator's unfinished games scored by the time each
  would expire if abandoned. Admission is one atomic script on that key (prune the expired,
  count, add), so two racing creates cannot both take the last place. A finished game is not
  removed when it finishes (the finishing write knows the game, not its creator): when the count
  reaches the cap, the set is checked against the games themselves, finished or vanished games
  leave it and live ones are re-scored with their current TTL, and admission is tried again.
- ``atout:opengames:{0..15}``: the server-wide count, sharded by game id; each shard is a sorted set
  scored by expiry, pruned when written, and a game leaves its shard as it finishes
  (:meth:`GameStore.commit`). The total is the sum of the shards' sizes, recounted when the last count
  is over a second old or near the cap, so far from the cap admission costs one write.

Batches: a tournament starts a round's games at once (service/games/tournaments.py), so
:func:`admit_games` admits several games all or none, against the same three bounds, plus, for
tournament games, ``atout:creator:{tournament-games}``: the server's running tournament games, capped by
``tournament_max_running_games`` and kept as a creator's set is (the name is no creator's digest).

Approximations, on purpose: a game still running past ``abandoned_ttl`` after it was created (its
TTL is refreshed every 16 moves) leaves the total early; with several API replicas, each may admit
a few games past the total cap between two recounts. The per-creator cap is exact.
"""

from __future__ import annotations

import hashlib
import time
import weakref
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.core import GameCore
from service.store.games import GameStore
from service.store.keys import (
    OPEN_GAME_SHARDS,
    STATUS_FINISHED,
    creator_key,
    game_key,
    open_games_key,
    open_games_shard,
)
from service.store.records import GameRecord
from service.store.redis_clients import run_scripts

RETRY_AFTER = "60"  # seconds: a running game may finish any minute
RECOUNT_SECONDS = 1.0

client_address: ContextVar[str] = ContextVar("atout_client_address", default="")

# KEYS: creator set;  ARGV: now, expiry of the new games, cap, key ttl, game id, game id…
# Returns -1 when all the games were admitted, else (none was) the number of unfinished games the
# creator has: all or none, so a tournament's round never starts half.
ADMIT_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
if n + #ARGV - 4 > tonumber(ARGV[3]) then return n end
for i = 5, #ARGV do redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return -1
"""

# KEYS: a shard of the total;  ARGV: now, expiry, key ttl, game id, game id…
COUNT_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for i = 4, #ARGV do redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""

TOURNAMENT_GAMES = creator_key("tournament-games")
"""The server's running tournament games: a creator's set in form (no creator's digest has a dash)."""


@dataclass
class _Total:
    value: int = 0
    counted_at: float = float("-inf")
    admitted_since: int = 0


_totals: weakref.WeakKeyDictionary[GameStore, _Total] = weakref.WeakKeyDictionary()
_scripts: weakref.WeakKeyDictionary[GameStore, tuple[Any, Any]] = weakref.WeakKeyDictionary()


def _scripts_of(store: GameStore) -> tuple[Any, Any]:
    scripts = _scripts.get(store)
    if scripts is None:
        scripts = _scripts[store] = (store.r.register_script(ADMIT_LUA), store.r.register_script(COUNT_LUA))
    return scripts


def quota_id(who: str) -> str:
    """The quota id of ``who`` (``bot:<id>`` or ``addr:<address>``): a digest, no address or key in Redis."""
    return hashlib.sha256(f"atout-creator\0{who}".encode()).hexdigest()[:32]


async def creator_of(core: GameCore, token: str | None, owner: str = "") -> str | None:
    """The creator's quota id, or None for the administrator."""
    if core.credentials.is_admin(token):
        return None
    if owner:
        who = f"bot:{owner}"
    elif token and token.startswith("atb_"):
        try:
            who = f"bot:{await core.credentials.bot_of(token)}"
        except ProblemError:
            who = f"addr:{client_address.get()}"
    else:
        who = f"addr:{client_address.get()}"
    return quota_id(who)


async def admit(core: GameCore, record: GameRecord, token: str | None, owner: str = "") -> None:
    """Count ``record`` (about to be written) against its creator's cap and the server's, or refuse:
    429 ``too_many_games`` for the creator, 503 ``server_full`` for the server."""
    await admit_games(core, [record.id], await creator_of(core, token, owner))


async def admit_games(
    core: GameCore, gids: list[str], creator: str | None, tournament_cap: int | None = None
) -> None:
    """Count the games ``gids`` (about to be written) against the caps, all of them or none: the
    server's total (503 ``server_full``), the creator's (``creator``, a :func:`quota_id`; None, the
    administrator, is exempt: 429 ``too_many_games``) and, with ``tournament_cap``, the server's
    running tournament games (503 ``tournaments_full``). Nothing stays counted after a refusal."""
    if not gids:
        return
    store, settings = core.store.games, core.settings
    await _check_total(store, settings.max_open_games, len(gids))
    now = time.time()
    expiry = now + store.connection.abandoned_ttl
    admit_script, count_script = _scripts_of(store)
    cap = settings.max_open_games_per_creator
    args = [repr(now), repr(expiry), str(cap), str(store.connection.abandoned_ttl), *gids]
    shards: dict[str, list[str]] = {}
    for gid in gids:
        shards.setdefault(open_games_key(gid), []).append(gid)
    # One round trip in the common case: the creator's script and the count's (other slots, so other
    # scripts, pipelined); a refused game is taken off the count again.
    calls: list[tuple[Any, list[str], list[Any]]] = []
    if creator is not None:
        calls.append((admit_script, [creator_key(creator)], args))
    for shard, held in shards.items():
        calls.append(
            (count_script, [shard], [repr(now), repr(expiry), str(store.connection.game_lifetime), *held])
        )
    replies = await run_scripts(store.r, calls)
    count = int(replies[0]) if creator is not None else -1
    if count >= 0 and creator is not None:
        await _recheck(store, creator_key(creator), now)
        count = int(await admit_script(keys=[creator_key(creator)], args=args))
    if count >= 0:
        await _uncount(store, shards)
        raise _too_many(count, cap, len(gids))
    if tournament_cap is not None:
        pool = [repr(now), repr(expiry), str(tournament_cap), str(store.connection.abandoned_ttl), *gids]
        running = int(await admit_script(keys=[TOURNAMENT_GAMES], args=pool))
        if running >= 0:
            await _recheck(store, TOURNAMENT_GAMES, now)
            running = int(await admit_script(keys=[TOURNAMENT_GAMES], args=pool))
        if running >= 0:
            if creator is not None:
                await store.r.zrem(creator_key(creator), *gids)
            await _uncount(store, shards)
            raise ProblemError(
                "tournaments_full",
                Text(
                    "The server runs its most tournament games at once ({cap}); {wanted} more must wait "
                    "until some have finished.",
                    cap=tournament_cap,
                    wanted=len(gids),
                ),
                headers={"Retry-After": RETRY_AFTER},
                limit=tournament_cap,
            )
    _totals.setdefault(store, _Total()).admitted_since += len(gids)


async def forget_games(core: GameCore, gids: list[str], creator: str | None) -> None:
    """Games known to be over leave their creator's set and the running tournament games at once
    (the tournament's check scores them), rather than at the next recheck (:func:`_recheck`)."""
    if not gids:
        return
    async with core.store.r.pipeline(transaction=False) as pipe:
        if creator is not None:
            pipe.zrem(creator_key(creator), *gids)
        pipe.zrem(TOURNAMENT_GAMES, *gids)
        await pipe.execute()


def _too_many(count: int, cap: int, wanted: int) -> ProblemError:
    if wanted == 1:
        text = Text(
            "You already have {count} unfinished games, the most one creator may have; finish one "
            "(an abandoned game expires on its own) before creating another.",
            count=count,
        )
    else:
        text = Text(
            "These {wanted} games do not fit: you have {count} unfinished games and one creator may have "
            "{cap}; retry once enough of them have finished.",
            wanted=wanted,
            count=count,
            cap=cap,
        )
    return ProblemError("too_many_games", text, headers={"Retry-After": RETRY_AFTER}, limit=cap)


async def _uncount(store: GameStore, shards: dict[str, list[str]]) -> None:
    """Take refused games off the server's count again."""
    async with store.r.pipeline(transaction=False) as pipe:
        for shard, held in shards.items():
            pipe.zrem(shard, *held)
        await pipe.execute()


async def _check_total(store: GameStore, cap: int, wanted: int = 1) -> None:
    """Refuse (503) when ``wanted`` more games would take the server past ``cap``."""
    total = _totals.setdefault(store, _Total())
    now = time.monotonic()
    estimate = total.value + total.admitted_since
    if now - total.counted_at > RECOUNT_SECONDS or estimate + wanted - 1 >= cap * 0.9:
        total.value, total.counted_at, total.admitted_since = await count_unfinished(store), now, 0
        estimate = total.value
    if estimate + wanted > cap:
        raise ProblemError(
            "server_full",
            Text(
                "The server holds its most unfinished games ({cap}); retry once some have finished.", cap=cap
            ),
            headers={"Retry-After": RETRY_AFTER},
        )


async def count_unfinished(store: GameStore) -> int:
    """The server's unfinished games: the expired leave each shard first (one round trip)."""
    cutoff = repr(time.time())
    async with store.r.pipeline(transaction=False) as pipe:
        for shard in range(OPEN_GAME_SHARDS):
            pipe.zremrangebyscore(open_games_shard(shard), "-inf", cutoff)
            pipe.zcard(open_games_shard(shard))
        replies = await pipe.execute()
    return sum(int(n) for n in replies[1::2])


async def _recheck(store: GameStore, key: str, now: float) -> None:
    """Check a creator's set against the games: finished or vanished ones leave it, and the others are
    re-scored with the TTL their game has now (a running game's TTL is refreshed as it is played)."""
    gids: list[str] = await store.r.zrange(key, 0, -1)
    if not gids:
        return
    async with store.r.pipeline(transaction=False) as pipe:
        for gid in gids:
            pipe.hget(game_key(gid), "status")
            pipe.ttl(game_key(gid))
        replies = await pipe.execute()
    gone = [gid for gid, status in zip(gids, replies[::2], strict=True) if status in (None, STATUS_FINISHED)]
    alive = {
        gid: now + int(ttl)
        for gid, status, ttl in zip(gids, replies[::2], replies[1::2], strict=True)
        if status not in (None, STATUS_FINISHED) and int(ttl) > 0
    }
    async with store.r.pipeline(transaction=True) as pipe:
        if gone:
            pipe.zrem(key, *gone)
        if alive:
            pipe.zadd(key, alive, xx=True)
        await pipe.execute()
