"""Games in Redis: one hash per game, one Stream of its events, one list of its moves.

Keys of game ``g`` (all share the hash tag ``{g}``, so a game lives in one Cluster slot):

- ``atout:game:{g}``      hash: ``version``, ``state`` (the engine's JSON), ``status``, the game's
  fixed facts (``game``, ``players``, ``options``, ``seed`` …) and one ``seat:<i>:*`` group per seat;
- ``atout:events:{g}``    stream: one entry per event, fields ``v`` (version) and ``e`` (event JSON);
- ``atout:log:{g}``       list: the applied actions in order, the replay log;
- ``atout:idem:{g}:<k>``  string: the first result of a request sent with an Idempotency-Key.

Bot account ``b``: ``atout:bot:{b}`` (name, API key hash), ``atout:botgames:{b}`` (its games) and
``atout:botturns:{b}`` (a stream of its "your turn" and "game over" notices). The account expires
after ``bot_idle_ttl`` seconds without its key being used; its two indexes expire with the games
they list (and its notices stream is capped in length).

Keys shared by games, every one bounded: ``atout:open`` (listed games waiting for players, checked
on read; entries older than the abandoned-game TTL are pruned on every write and read, and the
key's own TTL is refreshed on write), ``atout:opengames:{0..15}`` (the unfinished games, sharded,
scored by expiry: the server-wide count of service/games/quotas.py) and ``atout:creator:{c}`` (one
creator's unfinished games, scored by expiry, at most the per-creator cap).

A move is a compare-and-set: the Lua script checks the version, writes the state, bumps the
version, appends the events and the log entry and records the idempotent result in one atomic
step. A lost race writes nothing and reports the current version.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.redis_clients import async_client

OPEN_INDEX = "atout:open"  # sorted set of listed games with open seats: a hint, the game hash is the truth
OPEN_GAME_SHARDS = 16  # shards of the count of unfinished games (service/games/quotas.py)
BOT_NOTICES_MAXLEN = 10_000  # a bot's notice stream keeps about this many
DEFAULT_BOT_IDLE_TTL = 90 * 24 * 3600  # for a bot account registered before accounts had a TTL
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# A Redis stream id, ``<ms>-<seq>``; ``<ms>`` alone means ``<ms>-0`` (as XREAD reads it). At most 19
# digits each, so both stay below 2**64 as Redis requires; match it with ``fullmatch`` (``$`` alone
# would let a trailing newline through).
STREAM_ID_PATTERN = re.compile(r"^\d{1,19}(-\d{1,19})?$")

STATUS_WAITING = "waiting"
STATUS_ACTIVE = "active"
STATUS_FINISHED = "finished"


def game_key(gid: str) -> str:
    return f"atout:game:{{{gid}}}"


def events_key(gid: str) -> str:
    return f"atout:events:{{{gid}}}"


def log_key(gid: str) -> str:
    return f"atout:log:{{{gid}}}"


def idem_key(gid: str, scope: str, key: str) -> str:
    digest = hashlib.sha256(f"{scope}\0{key}".encode()).hexdigest()
    return f"atout:idem:{{{gid}}}:{digest}"


def bot_key(bid: str) -> str:
    return f"atout:bot:{{{bid}}}"


def bot_games_key(bid: str) -> str:
    return f"atout:botgames:{{{bid}}}"


def bot_turns_key(bid: str) -> str:
    return f"atout:botturns:{{{bid}}}"


def open_games_key(gid: str) -> str:
    """One of ``OPEN_GAME_SHARDS`` sorted sets counting the server's unfinished games (a shard per hash
    tag, so no key holds them all and each lives in its own Cluster slot)."""
    shard = int.from_bytes(hashlib.sha256(gid.encode()).digest()[:4], "big") % OPEN_GAME_SHARDS
    return open_games_shard(shard)


def open_games_shard(shard: int) -> str:
    return f"atout:opengames:{{{shard}}}"


def creator_key(creator: str) -> str:
    """The sorted set of one creator's unfinished games (``creator`` is already a digest)."""
    return f"atout:creator:{{{creator}}}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class StoreError(Exception):
    """Base of the store's expected failures."""


class GameMissing(StoreError):
    def __init__(self, gid: str) -> None:
        super().__init__(f"no game {gid}")
        self.gid = gid


class VersionConflict(StoreError):
    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class SeatLost(StoreError):
    """The seat's credential no longer holds it (the player left, a bot took over)."""

    def __init__(self, seat: int | None) -> None:
        super().__init__(f"seat {seat} is no longer held by this credential")
        self.seat = seat


class GameOver(StoreError):
    def __init__(self, gid: str) -> None:
        super().__init__(f"game {gid} is over")
        self.gid = gid


class SeatTaken(StoreError):
    def __init__(self, seat: int | None) -> None:
        super().__init__("no open seat" if seat is None else f"seat {seat} is taken")
        self.seat = seat


class ReplicationUnconfirmed(RedisTimeoutError):
    """A write reached the master but not, in time, the replicas it must reach before it is
    acknowledged: it may be lost in a failover. A store fault (503 store_unavailable): the client
    retries with the same Idempotency-Key, which finds the write if it survived."""


class StartChanged(StoreError):
    """The join would start the game, but not with the start state computed (seats changed since)."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"joining seat {seat} starts the game: compute the start again")
        self.seat = seat


@dataclass(frozen=True)
class GameStart:
    """A game's start, computed before the join that takes its last seat: the state with the first
    hand dealt, the client seeds (by seat) it was dealt from, and the start's events (JSON)."""

    state: str
    client_seeds: Sequence[str]
    events: Sequence[str]


@dataclass
class Seat:
    kind: str  # "open", "reserved" (for a rematch), "human" or "bot:<level>"
    name: str = ""
    token_hash: str = ""
    reserved_for: str = ""  # the token hash a reserved seat waits for
    owner: str = ""  # the bot account that joined this seat, if any
    client_seed: str = ""  # the seat's own entropy, mixed into every hand (docs/fairness.md)

    @property
    def is_open(self) -> bool:
        return self.kind == "open"

    @property
    def is_bot(self) -> bool:
        return self.kind.startswith("bot:")


@dataclass
class GameRecord:
    id: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int | str  # the match key K in hex, or the whole number the administrator chose
    version: int
    state: str
    status: str
    seats: list[Seat]
    listed: bool = True
    invite_hash: str = ""
    explicit_deal: bool = False
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    extra: dict[str, Any] = field(default_factory=dict)
    rematch: str = ""  # the id of the rematch offered once the match is over

    def to_hash(self) -> dict[str, str]:
        fields = {
            "game": self.game,
            "players": str(self.players),
            "options": json.dumps(self.options, sort_keys=True),
            "seed": str(self.seed),
            "version": str(self.version),
            "state": self.state,
            "status": self.status,
            "listed": "1" if self.listed else "0",
            "invite_hash": self.invite_hash,
            "explicit_deal": "1" if self.explicit_deal else "0",
            "created_at": repr(self.created_at),
            "updated_at": repr(self.updated_at),
            "extra": json.dumps(self.extra, sort_keys=True),
            "rematch": self.rematch,
        }
        for i, seat in enumerate(self.seats):
            fields[f"seat:{i}:kind"] = seat.kind
            fields[f"seat:{i}:name"] = seat.name
            fields[f"seat:{i}:token"] = seat.token_hash
            fields[f"seat:{i}:reserved"] = seat.reserved_for
            fields[f"seat:{i}:owner"] = seat.owner
        return fields

    @classmethod
    def from_hash(cls, gid: str, h: dict[str, str]) -> GameRecord:
        players = int(h["players"])
        seats = [
            Seat(
                kind=h.get(f"seat:{i}:kind", "open"),
                name=h.get(f"seat:{i}:name", ""),
                token_hash=h.get(f"seat:{i}:token", ""),
                reserved_for=h.get(f"seat:{i}:reserved", ""),
                owner=h.get(f"seat:{i}:owner", ""),
                client_seed=h.get(f"seat:{i}:client_seed", ""),
            )
            for i in range(players)
        ]
        return cls(
            id=gid,
            game=h["game"],
            players=players,
            options=json.loads(h["options"]),
            seed=_seed_of(h["seed"]),
            version=int(h["version"]),
            state=h["state"],
            status=h["status"],
            seats=seats,
            listed=h.get("listed") == "1",
            invite_hash=h.get("invite_hash", ""),
            explicit_deal=h.get("explicit_deal") == "1",
            created_at=float(h.get("created_at", "0")),
            updated_at=float(h.get("updated_at", "0")),
            extra=json.loads(h.get("extra", "{}")),
            rematch=h.get("rematch", ""),
        )


def _seed_of(stored: str) -> int | str:
    """An administrator's seed is a whole number (at most 2**53, 16 digits); a match key is 64 hex digits."""
    return int(stored) if stored.isdigit() and len(stored) < 64 else stored


@dataclass(frozen=True)
class StreamEvent:
    id: str
    version: int
    event: dict[str, Any]


@dataclass(frozen=True)
class CommitResult:
    version: int
    replayed: str | None = None  # the stored first result when the Idempotency-Key was seen before
    timeouts: int = 0  # with a "timer" move: how many turns in a row the seat has let run out


# KEYS: game, events, log[, idem]
# ARGV: expected version, state, status, now, ttl, idem ttl, idem value, log entry, seat, credential,
#       event...   (credential: the seat's token hash, "bot" for a bot seat's move, "timer" for a move
#       played when the seat's time ran out, or "" = unchecked)
COMMIT_LUA = """
if #KEYS >= 4 then
  local prior = redis.call('GET', KEYS[4])
  if prior then return {'replay', prior} end
end
local cur = redis.call('HGET', KEYS[1], 'version')
if not cur then return {'missing', ''} end
if ARGV[10] ~= '' and ARGV[10] ~= 'timer' then
  local seat = 'seat:' .. ARGV[9]
  if ARGV[10] == 'bot' then
    local kind = redis.call('HGET', KEYS[1], seat .. ':kind') or ''
    if string.sub(kind, 1, 4) ~= 'bot:' then return {'seat', ''} end
  elseif redis.call('HGET', KEYS[1], seat .. ':token') ~= ARGV[10] then
    return {'seat', ''}
  end
end
if cur ~= ARGV[1] then return {'conflict', cur} end
local v = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'version', v, 'state', ARGV[2], 'status', ARGV[3], 'updated_at', ARGV[4])
for i = 11, #ARGV do
  redis.call('XADD', KEYS[2], '*', 'v', v, 'e', ARGV[i])
end
if ARGV[8] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[8]) end
-- refresh the TTLs when the log list is new, every 16 moves and on finishing: "abandoned" is
-- measured in days, and EXPIRE on every move would be most of the script's work
if v == 1 or v % 16 == 0 or ARGV[3] ~= 'active' then
  local ttl = tonumber(ARGV[5])
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
end
if #KEYS >= 4 then redis.call('SET', KEYS[4], ARGV[7], 'EX', tonumber(ARGV[6])) end
-- consecutive turns a seat let run out: counted on a timer's move, cleared by the seat's own
local timeouts = 0
if ARGV[10] == 'timer' then
  timeouts = redis.call('HINCRBY', KEYS[1], 'seat:' .. ARGV[9] .. ':timeouts', 1)
elseif ARGV[10] ~= '' and ARGV[10] ~= 'bot' then
  redis.call('HDEL', KEYS[1], 'seat:' .. ARGV[9] .. ':timeouts')
end
return {'ok', tostring(v), tostring(timeouts)}
"""

# KEYS: game, events
# ARGV: seat (-1 = first open), token hash, name, now, ttl, reservation (the token hash a reserved
#       seat waits for, or ""), owner (a bot account id, or ""), client seed, start state ("" = none
#       computed), n, then n expected client seeds (by seat), then the start events.
# The join that fills the last seat starts the game: Python computed the first deal from the client
# seeds it read; it is written only if those are still the seeds (else 'retry', nothing written).
JOIN_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing', ''} end
local n = tonumber(redis.call('HGET', KEYS[1], 'players'))
local seat = tonumber(ARGV[1])
if seat < 0 then
  for i = 0, n - 1 do
    if redis.call('HGET', KEYS[1], 'seat:' .. i .. ':kind') == 'open' then seat = i; break end
  end
  if seat < 0 then return {'full', ''} end
end
local kind = redis.call('HGET', KEYS[1], 'seat:' .. seat .. ':kind')
local reserved = kind == 'reserved' and ARGV[6] ~= ''
  and redis.call('HGET', KEYS[1], 'seat:' .. seat .. ':reserved') == ARGV[6]
if kind ~= 'open' and not reserved then return {'taken', tostring(seat)} end
local open = 0
for i = 0, n - 1 do
  local k = redis.call('HGET', KEYS[1], 'seat:' .. i .. ':kind')
  if i ~= seat and (k == 'open' or k == 'reserved') then open = open + 1 end
end
local starting = open == 0 and status == 'waiting'
local expected = tonumber(ARGV[10])
if starting then
  if ARGV[9] == '' or expected ~= n then return {'retry', tostring(seat)} end
  for i = 0, n - 1 do
    local cs = ARGV[8]
    if i ~= seat then cs = redis.call('HGET', KEYS[1], 'seat:' .. i .. ':client_seed') or '' end
    if cs ~= ARGV[10 + 1 + i] then return {'retry', tostring(seat)} end
  end
end
redis.call('HSET', KEYS[1], 'seat:' .. seat .. ':kind', 'human', 'seat:' .. seat .. ':token', ARGV[2],
  'seat:' .. seat .. ':name', ARGV[3], 'seat:' .. seat .. ':reserved', '',
  'seat:' .. seat .. ':owner', ARGV[7], 'seat:' .. seat .. ':client_seed', ARGV[8], 'updated_at', ARGV[4])
local v = redis.call('HGET', KEYS[1], 'version')
redis.call('XADD', KEYS[2], '*', 'v', v, 'e', cjson.encode({type='seat_joined', seat=seat, name=ARGV[3]}))
local result = 'joined'
if starting then
  redis.call('HSET', KEYS[1], 'status', 'active', 'state', ARGV[9])
  for j = 10 + expected + 1, #ARGV do redis.call('XADD', KEYS[2], '*', 'v', v, 'e', ARGV[j]) end
  result = 'started'
end
local ttl = tonumber(ARGV[5])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
return {result, tostring(seat)}
"""

# KEYS: game, events
# ARGV: seat, token hash, now, replacement kind for a running game
LEAVE_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing', ''} end
local seat = 'seat:' .. ARGV[1]
if redis.call('HGET', KEYS[1], seat .. ':token') ~= ARGV[2] then return {'seat', status} end
local v = redis.call('HGET', KEYS[1], 'version')
local n = tonumber(ARGV[1])
if status == 'waiting' then
  redis.call('HSET', KEYS[1], seat .. ':kind', 'open', seat .. ':token', '', seat .. ':name', '',
    'updated_at', ARGV[3])
  redis.call('XADD', KEYS[2], '*', 'v', v, 'e', cjson.encode({type='seat_left', seat=n}))
  return {'left', status}
end
if status == 'active' then
  redis.call('HSET', KEYS[1], seat .. ':kind', ARGV[4], seat .. ':token', '', 'updated_at', ARGV[3])
  local event = cjson.encode({type='seat_forfeited', seat=n, replaced_by=ARGV[4]})
  redis.call('XADD', KEYS[2], '*', 'v', v, 'e', event)
  return {'replaced', status}
end
return {'over', status}
"""

# KEYS: game, events;  ARGV: seat, replacement kind, reason, now
REPLACE_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'active' then return 0 end
local seat = 'seat:' .. ARGV[1]
redis.call('HSET', KEYS[1], seat .. ':kind', ARGV[2], seat .. ':token', '', 'updated_at', ARGV[4])
redis.call('HDEL', KEYS[1], seat .. ':timeouts')
local v = redis.call('HGET', KEYS[1], 'version')
local event = cjson.encode({type='seat_forfeited', seat=tonumber(ARGV[1]), replaced_by=ARGV[2],
  reason=ARGV[3]})
redis.call('XADD', KEYS[2], '*', 'v', v, 'e', event)
return 1
"""

# KEYS: game, events;  ARGV: ttl, version, field, value, field, value, ..., '--', event...
CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local i = 3
while ARGV[i] ~= '--' do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for j = i + 1, #ARGV do redis.call('XADD', KEYS[2], '*', 'v', ARGV[2], 'e', ARGV[j]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1])) end
return 1
"""


# KEYS: bot;  ARGV: default idle ttl.  The account's fields, its TTL refreshed (by its own idle_ttl).
LOAD_BOT_LUA = """
local h = redis.call('HGETALL', KEYS[1])
if #h > 0 then
  local ttl = tonumber(redis.call('HGET', KEYS[1], 'idle_ttl') or ARGV[1]) or tonumber(ARGV[1])
  redis.call('EXPIRE', KEYS[1], ttl)
end
return h
"""

# KEYS: bot, its notices stream;  ARGV: notice JSON, max length, ttl
NOTIFY_BOT_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[1])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return 1
"""

# KEYS: a finished game;  ARGV: the id of its rematch.  Sets the link once; returns the link that holds.
CLAIM_REMATCH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return '' end
local current = redis.call('HGET', KEYS[1], 'rematch')
if current and current ~= '' then return current end
redis.call('HSET', KEYS[1], 'rematch', ARGV[1])
return ARGV[1]
"""


class Store:
    """Async access to the games in one Redis (or Redis Cluster)."""

    def __init__(self, client: aioredis.Redis, abandoned_ttl: int, finished_ttl: int, idempotency_ttl: int):
        # redis-py's return types are unions of bytes and str; with decode_responses they are str.
        self.r: Any = client
        self.abandoned_ttl = abandoned_ttl
        self.finished_ttl = finished_ttl
        self.idempotency_ttl = idempotency_ttl
        self._commit = client.register_script(COMMIT_LUA)
        self._join = client.register_script(JOIN_LUA)
        self._leave = client.register_script(LEAVE_LUA)
        self._create = client.register_script(CREATE_LUA)
        self._claim_rematch = client.register_script(CLAIM_REMATCH_LUA)
        self._replace = client.register_script(REPLACE_LUA)
        self._load_bot = client.register_script(LOAD_BOT_LUA)
        self._notify_bot = client.register_script(NOTIFY_BOT_LUA)
        self.wait_replicas = 0  # replicas a write must reach before it is acknowledged (WAIT); 0: none
        self.wait_ms = 1000
        self._replicas_seen: dict[str, tuple[float, int]] = {}  # master -> (when, connected replicas)

    @classmethod
    def from_url(
        cls,
        url: str,
        abandoned_ttl: int,
        finished_ttl: int,
        idempotency_ttl: int,
        *,
        socket_timeout: float = 60.0,
        max_connections: int = 100,
        pool_wait: float = 5.0,
        cluster: bool = False,
        wait_replicas: int = 0,
        wait_ms: int = 1000,
    ) -> Store:
        """A store on its own client (service/store/redis_clients.py: resilient to a Redis restart or a
        failover; with ``cluster``, ``url`` is any node of a Redis Cluster). ``wait_replicas`` > 0:
        writes that matter are acknowledged only once that many replicas have them (see
        ``_write_replicated``)."""
        client = async_client(
            url,
            cluster=cluster,
            max_connections=max_connections,
            pool_wait=pool_wait,
            socket_timeout=socket_timeout,
        )
        store = cls(client, abandoned_ttl, finished_ttl, idempotency_ttl)
        store.wait_replicas, store.wait_ms = wait_replicas, wait_ms
        return store

    # --- writes acknowledged once replicated (WAIT) -------------------------------------------

    async def _write(self, script: Any, keys: list[str], args: list[str]) -> Any:
        """Run one of the scripts whose write a client is told about (a new game, a join, a move).
        With ``wait_replicas`` and a master that has replicas, the answer waits until they have it,
        so a failover never loses an acknowledged move."""
        if self.wait_replicas <= 0:
            return await script(keys=keys, args=args)
        node, replicas = await self._master_of(keys[0])
        if replicas == 0:
            # none configured, or a replica that just took over and has none yet: nobody could
            # confirm, and refusing every write would stop the games for nothing
            return await script(keys=keys, args=args)
        need = min(self.wait_replicas, replicas)
        try:
            reply, acked = await self._script_then_wait(node, script, keys, args, need)
            if isinstance(reply, NoScriptError):  # a master that never ran it (a promoted replica)
                await self._on_connection(node, [("SCRIPT", "LOAD", script.script)])
                reply, acked = await self._script_then_wait(node, script, keys, args, need)
        except RedisError:
            await self._heal(keys[0], node)
            raise
        if isinstance(reply, Exception):  # a moved slot, a master gone read-only, OOM …
            await self._heal(keys[0], node)
            raise reply
        if isinstance(acked, Exception) or int(acked) < need:
            self._replicas_seen.pop(self._name(node), None)  # count them again next time
            raise ReplicationUnconfirmed(f"write not confirmed by {need} replica(s) in {self.wait_ms} ms")
        return reply

    async def _script_then_wait(
        self, node: Any, script: Any, keys: list[str], args: list[str], need: int
    ) -> tuple[Any, Any]:
        """The script and a WAIT on one connection: WAIT counts the replicas that have every write
        made on its own connection, so the two must share it."""
        reply, acked = await self._on_connection(
            node, [("EVALSHA", script.sha, len(keys), *keys, *args), ("WAIT", need, self.wait_ms)]
        )
        return reply, acked

    async def _on_connection(self, node: Any, commands: list[tuple[Any, ...]]) -> list[Any]:
        """``commands`` sent together on one connection to ``node`` (None: the plain Redis); each
        reply, or the error it got, in order."""
        if node is None:
            async with self.r.pipeline(transaction=False) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                return list(await pipe.execute(raise_on_error=False))
        connection = node.acquire_connection()
        try:
            await connection.send_packed_command(connection.pack_commands(commands))
            replies: list[Any] = []
            for _ in commands:
                try:
                    replies.append(await connection.read_response())
                except ResponseError as error:
                    replies.append(error)
        except BaseException:
            await connection.disconnect(nowait=True)  # replies may be left unread on it
            raise
        finally:
            node.release(connection)
        return replies

    async def _master_of(self, key: str) -> tuple[Any, int]:
        """The master holding ``key`` (None for a plain Redis) and its connected replicas, counted
        at most every 5 s (``INFO replication``)."""
        node = None
        if self.cluster:
            await self.r.initialize()
            node = self.r.get_node_from_key(key)
        name = self._name(node)
        seen = self._replicas_seen.get(name)
        now = time.monotonic()
        if seen is None or now - seen[0] > 5:
            try:
                if node is None:
                    info = await self.r.info("replication")
                else:
                    info = await node.execute_command("INFO", "replication")
            except ResponseError:  # INFO renamed or denied (some managed Redis): nothing to wait for
                info = {}
            count = int(info.get("connected_slaves", 0)) if isinstance(info, dict) else 0
            seen = self._replicas_seen[name] = (now, count)
        return node, seen[1]

    @staticmethod
    def _name(node: Any) -> str:
        return "" if node is None else str(node.name)

    async def _heal(self, key: str, node: Any) -> None:
        """After a fault met on a connection of our own, let the client learn the new layout (redis-py
        re-reads the slot map when a command it sends meets a moved slot or a dead master)."""
        self._replicas_seen.pop(self._name(node), None)
        if self.cluster:
            with contextlib.suppress(RedisError):
                await self.r.exists(key)

    @property
    def cluster(self) -> bool:
        return isinstance(self.r, RedisCluster)

    async def close(self) -> None:
        await self.r.aclose()

    async def ping(self) -> bool:
        return bool(await self.r.ping())

    def ttl_for(self, status: str) -> int:
        return self.finished_ttl if status == STATUS_FINISHED else self.abandoned_ttl

    async def create(self, record: GameRecord, events: Sequence[str]) -> bool:
        """Write a new game and the events of its first deal (version ``record.version``).

        Returns False, writing nothing, when a game with this id already exists.
        """
        fields = [item for pair in record.to_hash().items() for item in pair]
        created = await self._write(
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
            pipe.zremrangebyscore(OPEN_INDEX, "-inf", f"({time.time() - self.abandoned_ttl!r}")
            pipe.expire(OPEN_INDEX, self.abandoned_ttl)
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
    ) -> CommitResult:
        """Compare-and-set: write ``state`` as version ``expected_version + 1`` or raise.

        ``idempotency`` is (scope, key); ``idempotent_result`` is what a replay of the request returns.
        ``credential`` (the token hash of ``seat``, or "bot") is checked in the same atomic step, so
        a seat given up a moment ago can no longer move.
        """
        keys = [game_key(gid), events_key(gid), log_key(gid)]
        if idempotency is not None:
            keys.append(idem_key(gid, *idempotency))
        args = [
            str(expected_version),
            state,
            status,
            repr(time.time()),
            str(self.ttl_for(status)),
            str(self.idempotency_ttl),
            idempotent_result,
            log_entry or "",
            "" if seat is None else str(seat),
            credential if seat is not None else "",
            *events,
        ]
        reply = await self._write(self._commit, keys=keys, args=args)
        outcome, value = reply[0], reply[1]
        if outcome == "ok":
            if status == STATUS_FINISHED:
                await self.forget_unfinished(gid)
            return CommitResult(version=int(value), timeouts=int(reply[2]))
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
        start_args: list[str] = ["", "0"]
        if start is not None:
            start_args = [start.state, str(len(start.client_seeds)), *start.client_seeds, *start.events]
        outcome, value = await self._write(
            self._join,
            keys=[game_key(gid), events_key(gid)],
            args=[
                str(-1 if seat is None else seat),
                token_hash,
                name,
                repr(time.time()),
                str(self.abandoned_ttl),
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

    # --- bot accounts: one hash per bot, the set of its games, a stream of "your turn" notices

    async def create_bot(
        self, bid: str, name: str, key_hash: str, contact: str = "", idle_ttl: int = DEFAULT_BOT_IDLE_TTL
    ) -> None:
        """A new account, expiring after ``idle_ttl`` seconds unless its key is used (see load_bot)."""
        fields = {
            "name": name,
            "key_hash": key_hash,
            "contact": contact,
            "created_at": repr(time.time()),
            "idle_ttl": str(idle_ttl),
        }
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(bot_key(bid), mapping=fields)
            pipe.expire(bot_key(bid), idle_ttl)
            await pipe.execute()

    async def load_bot(self, bid: str) -> dict[str, str] | None:
        """The account, its idle TTL refreshed in the same step: every use of the key keeps it alive."""
        if not GAME_ID.match(bid):
            return None
        flat: list[str] = await self._load_bot(keys=[bot_key(bid)], args=[str(DEFAULT_BOT_IDLE_TTL)])
        return dict(zip(flat[::2], flat[1::2], strict=True)) or None

    async def delete_bot(self, bid: str) -> bool:
        """Delete the account and its indexes (one slot: one command); False when there was none."""
        if not GAME_ID.match(bid):
            return False
        return bool(await self.r.delete(bot_key(bid), bot_games_key(bid), bot_turns_key(bid)) > 0)

    @property
    def game_lifetime(self) -> int:
        """The longest a game outlives its last activity: how long an index entry of it may matter."""
        return max(self.abandoned_ttl, self.finished_ttl)

    async def add_bot_game(self, bid: str, gid: str) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.sadd(bot_games_key(bid), gid)
            pipe.expire(bot_games_key(bid), self.game_lifetime)
            await pipe.execute()

    async def forget_bot_game(self, bid: str, gid: str) -> None:
        await self.r.srem(bot_games_key(bid), gid)

    async def bot_games(self, bid: str) -> list[str]:
        return sorted(await self.r.smembers(bot_games_key(bid)))

    async def notify_bot(self, bid: str, notice: dict[str, Any]) -> None:
        """Append a notice to the bot's stream (kept to the last ``BOT_NOTICES_MAXLEN`` or so, and for as
        long as a game lives); a deleted or expired account gets none (no stream is created for it)."""
        await self._notify_bot(
            keys=[bot_key(bid), bot_turns_key(bid)],
            args=[json.dumps(notice), str(BOT_NOTICES_MAXLEN), str(self.game_lifetime)],
        )

    # --- the count of unfinished games (service/games/quotas.py decides; the store keeps the books)

    async def forget_unfinished(self, gid: str) -> None:
        """A finished game leaves the server-wide count (its creator's set drops it lazily)."""
        await self.r.zrem(open_games_key(gid), gid)

    async def bot_notices(
        self, bid: str, after: str, block_ms: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        if block_ms is None:
            start = f"({after}" if after != "0-0" else "-"
            entries = await self.r.xrange(bot_turns_key(bid), min=start, count=1000)
        else:
            reply = await self.r.xread({bot_turns_key(bid): after}, count=1000, block=block_ms)
            entries = [entry for _key, batch in reply or [] for entry in batch]
        return [(eid, json.loads(fields["e"])) for eid, fields in entries]

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
        entries = await self.r.xrange(
            events_key(gid), min=f"({after}" if after != "0-0" else "-", count=count
        )
        return [_stream_event(eid, fields) for eid, fields in entries]

    async def wait_events(self, gid: str, after: str, block_ms: int, count: int = 1000) -> list[StreamEvent]:
        """Block up to ``block_ms`` for events after ``after``; [] on timeout."""
        reply = await self.r.xread({events_key(gid): after}, count=count, block=block_ms)
        out: list[StreamEvent] = []
        for _key, entries in reply or []:
            out.extend(_stream_event(eid, fields) for eid, fields in entries)
        return out

    async def log(self, gid: str) -> list[Any]:
        return [json.loads(item) for item in await self.r.lrange(log_key(gid), 0, -1)]

    async def open_games(self, limit: int = 50) -> list[GameRecord]:
        """Listed games still waiting for players, newest first; stale index entries are dropped."""
        await self.r.zremrangebyscore(OPEN_INDEX, "-inf", f"({time.time() - self.abandoned_ttl!r}")
        ids = await self.r.zrevrange(OPEN_INDEX, 0, max(limit * 2, limit) - 1)
        out: list[GameRecord] = []
        for gid in ids:
            record = await self.load(gid)
            if record is None or record.status != STATUS_WAITING or not record.listed:
                await self.r.zrem(OPEN_INDEX, gid)
                continue
            out.append(record)
            if len(out) >= limit:
                break
        return out

    async def ttl(self, gid: str) -> int:
        return int(await self.r.ttl(game_key(gid)))


def _stream_event(eid: str, fields: dict[str, str]) -> StreamEvent:
    return StreamEvent(id=eid, version=int(fields["v"]), event=json.loads(fields["e"]))
