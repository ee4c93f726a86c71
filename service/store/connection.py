"""What every part of the store shares: its Redis client, the lifetimes of what it keeps, and writes
acknowledged only once replicated (``WAIT``), with the replica and failover handling that needs.

:class:`StoreConnection` is that one client; each of the six parts of the store (games, bot accounts,
players, ratings, webhooks, tournaments) is a :class:`StorePart` holding it, and
:class:`service.store.Store` holds the six. Why the TTLs live here and not with the games: a bot
account's indexes expire with the games they list, so the game part and the bot-account part both
need a game's lifetime. A part names the Lua scripts it runs with :class:`RegisteredScript`.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Self, Unpack

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, RedisError, ResponseError

from service.base.settings import Settings
from service.store.migration import settle
from service.store.records import ReplicationUnconfirmed
from service.store.redis_clients import AsyncClient, PoolOptions, async_client


class RegisteredScript:
    """A Lua script of a store class (service/store/scripts.py), registered on a store's client the
    first time that store runs it (``register_script`` only computes its SHA; a node that lacks the
    script gets it on the NOSCRIPT answer). Declared once per class, so the game store and the
    bot-account store each name their own scripts and neither needs an ``__init__`` of its own."""

    def __init__(self, lua: str) -> None:
        self.lua = lua
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, part: StorePart | None, owner: type | None = None) -> Any:
        if part is None:
            return self
        script = SettlingScript(part.r.register_script(self.lua), part.connection)
        part.__dict__[self.name] = script  # no __set__: from now on the instance's own attribute wins
        return script


class SettlingScript:
    """A registered script whose call is tried again while a Cluster slot migration refuses it
    (service/store/migration.py), for up to the connection's ``migration_wait_ms``. ``sha`` and
    ``script`` are redis-py's, for the store's own replicated writes."""

    def __init__(self, script: Any, connection: StoreConnection) -> None:
        self.inner = script
        self.sha: str = script.sha
        self.script: str = script.script
        self.connection = connection

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        return await settle(
            lambda: self.inner(keys=keys, args=args), self.connection.migration_wait_ms / 1000
        )


class StoreConnection:
    """One Redis (or Redis Cluster) client of the store, with the writes a client is told about made
    durable across a failover (:meth:`_write`): the one every part of a :class:`service.store.Store`
    holds."""

    def __init__(
        self, client: AsyncClient, abandoned_ttl: int, finished_ttl: int, idempotency_ttl: int
    ) -> None:
        # redis-py's return types are unions of bytes and str; with decode_responses they are str.
        self.r: Any = client
        self.abandoned_ttl = abandoned_ttl
        self.finished_ttl = finished_ttl
        self.idempotency_ttl = idempotency_ttl
        self.wait_replicas = 0  # replicas a write must reach before it is acknowledged (WAIT); 0: none
        self.wait_ms = 1000
        self._replicas_seen: dict[str, tuple[float, int]] = {}  # master -> (when, connected replicas)
        self.migration_wait_ms = 0  # how long a call refused by a slot migration is retried

    @classmethod
    def from_url(
        cls,
        url: str,
        abandoned_ttl: int,
        finished_ttl: int,
        idempotency_ttl: int,
        *,
        cluster: bool = False,
        wait_replicas: int = 0,
        wait_ms: int = 1000,
        migration_wait_ms: int = 0,
        **pool: Unpack[PoolOptions],
    ) -> Self:
        """A connection on its own client (service/store/redis_clients.py: resilient to a Redis restart or a
        failover; with ``cluster``, ``url`` is any node of a Redis Cluster; ``pool`` sizes the client's
        pool and timeouts). ``wait_replicas`` > 0: writes that matter are acknowledged only once that
        many replicas have them (see :meth:`_write`); ``migration_wait_ms``: how long a script a
        Cluster slot migration refuses is tried again (service/store/migration.py)."""
        connection = cls(
            async_client(url, cluster=cluster, **pool), abandoned_ttl, finished_ttl, idempotency_ttl
        )
        connection.wait_replicas, connection.wait_ms = wait_replicas, wait_ms
        connection.migration_wait_ms = migration_wait_ms
        return connection

    @classmethod
    def from_settings(cls, settings: Settings, **pool: Unpack[PoolOptions]) -> Self:
        """The connection every process of the server uses (the API, a bot worker): the settings' Redis,
        lifetimes and replication; ``pool`` is what the process sizes for itself."""
        if not settings.redis_url:
            raise ValueError("REDIS_URL is not set")
        return cls.from_url(
            settings.redis_url,
            settings.abandoned_ttl,
            settings.finished_ttl,
            settings.idempotency_ttl,
            cluster=settings.redis_cluster,
            wait_replicas=settings.redis_wait_replicas,
            wait_ms=settings.redis_wait_ms,
            migration_wait_ms=settings.redis_migration_wait_ms,
            **pool,
        )

    @property
    def cluster(self) -> bool:
        return isinstance(self.r, RedisCluster)

    @property
    def game_lifetime(self) -> int:
        """The longest a game outlives its last activity: how long an index entry of it may matter."""
        return max(self.abandoned_ttl, self.finished_ttl)

    async def close(self) -> None:
        await self.r.aclose()

    async def ping(self) -> bool:
        return bool(await self.r.ping())

    async def _entries_after(
        self, key: str, after: str, count: int, block_ms: int | None = None
    ) -> list[tuple[str, dict[str, str]]]:
        """The entries of the stream ``key`` after the id ``after`` (exclusive), oldest first: what
        there is now (XRANGE), or with ``block_ms`` up to that long waited for (XREAD BLOCK; [] on
        timeout). A game's events and a bot's notices are both read so."""
        if block_ms is None:
            entries: list[tuple[str, dict[str, str]]] = await self.r.xrange(
                key, min=f"({after}" if after != "0-0" else "-", count=count
            )
            return entries
        reply = await self.r.xread({key: after}, count=count, block=block_ms)
        return [entry for _key, batch in reply or [] for entry in batch]

    # --- writes acknowledged once replicated (WAIT) -------------------------------------------

    async def _write(self, script: Any, keys: list[str], args: list[str]) -> Any:
        """Run one of the scripts whose write a client is told about (a new game, a join, a move).
        With ``wait_replicas`` and a master that has replicas, the answer waits until they have it,
        so a failover never loses an acknowledged move. A refusal of a slot migration (the script
        sent where the slot was, or its keys split between two masters) is tried again until the
        slot settles, for up to ``migration_wait_ms``."""
        if self.wait_replicas <= 0:
            return await script(keys=keys, args=args)
        # a MOVED reply is learnt by _heal; the replicas are counted per master, a new one afresh
        return await settle(lambda: self._write_once(script, keys, args), self.migration_wait_ms / 1000)

    async def _write_once(self, script: Any, keys: list[str], args: list[str]) -> Any:
        node, replicas = await self._master_of(keys[0])
        if replicas == 0:
            # none configured, or a replica that just took over and has none yet: nobody could
            # confirm, and refusing every write would stop the games for nothing
            return await getattr(script, "inner", script)(keys=keys, args=args)
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


class StorePart:
    """One part of the store (the games, the bot accounts, the players, ...), on the connection it
    shares with the other parts: ``r`` is that connection's client, and the part's own Lua scripts
    (:class:`RegisteredScript`) are registered on it. The TTLs, the replicated writes and the stream
    reads are the connection's (``self.connection``)."""

    def __init__(self, connection: StoreConnection) -> None:
        self.connection = connection
        # redis-py's return types are unions of bytes and str; with decode_responses they are str.
        self.r: Any = connection.r
