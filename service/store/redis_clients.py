"""The one place the service's async Redis clients are built (a plain Redis or a Redis Cluster), and
the one place the options live that make every client of the service, async or synchronous (the RQ
connection of workers/jobs/queue.py), survive a Redis restart or a failover: :func:`resilience`.

Connecting gives up after a couple of seconds (a request fails fast with 503 instead of hanging), a
command that meets a dead connection is retried on a fresh one, and idle pooled connections are
PINGed before use. On a Cluster, redis-py follows MOVED/ASK redirections and re-reads the slot map
when a node fails; the service's keys are laid out so that no command ever names two slots (see
service/store/keys.py).
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.cluster import PRIMARY
from redis.exceptions import ConnectionError, MaxConnectionsError, NoScriptError
from redis.retry import Retry as SyncRetry

AsyncClient = aioredis.Redis | RedisCluster

CONNECT_TIMEOUT = 2.0
"""Seconds a client tries to connect before it gives up: a Redis restart costs a failed attempt (503),
never a request or a process stuck on it."""

HEALTH_CHECK_INTERVAL = 5
"""Seconds a pooled connection may sit idle before it is PINGed on its next use: one a Redis restart
closed is found before a command is lost on it."""


class PoolOptions(TypedDict, total=False):
    """A client's pool and timeouts, which each user of :func:`async_client` sizes for its own use
    (requests, stream readers, rate limits, a worker); the resilience options are the same for all."""

    max_connections: int
    pool_wait: float
    socket_timeout: float
    socket_connect_timeout: float


def resilience(
    *, cluster: bool = False, sync: bool = False, connect_timeout: float = CONNECT_TIMEOUT
) -> dict[str, Any]:
    """The connection options of every Redis client the service builds (``sync``: a ``redis.Redis``,
    else an asyncio client). A plain Redis retries lost connections only, never a timeout: a hung
    Redis must not hold a request for three socket timeouts. A Cluster client also retries timeouts,
    longer: a failover takes a few seconds, and the client re-reads the slot map between tries."""
    if cluster:
        retry: Retry | SyncRetry = Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=3)
    else:
        retry_class = SyncRetry if sync else Retry
        retry = retry_class(
            ExponentialBackoff(cap=0.2, base=0.02), retries=2, supported_errors=(ConnectionError,)
        )
    return {
        "socket_connect_timeout": connect_timeout,
        "socket_keepalive": True,
        "health_check_interval": HEALTH_CHECK_INTERVAL,
        "retry": retry,
    }


class BoundedCluster(RedisCluster):
    """redis-py's Cluster client, made to behave like the service's plain pool under load:

    - **bounded, waiting**: at most ``command_slots`` commands of this client run at once; one more
      waits up to ``pool_wait`` seconds (then MaxConnectionsError: 503 server_full), where redis-py
      would open connections up to its per-node cap and then fail. Worse, a pipeline refused for
      want of a connection is handled there like a dead node: every idle connection of the node is
      closed while other commands pick them up, and those fail in turn (seen under load as
      "Connection closed by server" and AttributeErrors on a ``None`` writer). The slots leave
      connections over for pipelines (at most one per node each).
    - **shielded**: a command finishes even when its caller is cancelled (a stream's client went
      away); cancelled while awaiting a reply, redis-py's cluster client can put the connection back
      with the reply unread. The caller still gets its CancelledError at once. Reads on a Cluster
      never BLOCK (service/store/fanout.py polls), so a shielded command is short.
    - **redirected to a new master**: an ASK redirection names the importing node, which redis-py
      looks up among the nodes it knows; a master just added holds no slot until its first
      migration settles, so no client knows it, and redis-py 8 then fails every redirected command
      (``'NoneType' object has no attribute …``). Such a node is added to the client's nodes, as
      redis-py does for a MOVED one.
    """

    command_slots: asyncio.Semaphore
    pool_wait: float

    def get_node(
        self, host: str | None = None, port: int | None = None, node_name: str | None = None
    ) -> ClusterNode | None:
        node = super().get_node(host, port, node_name)
        if node is None and host and port:
            manager = self.nodes_manager
            node = ClusterNode(host, port, PRIMARY, **manager.connection_kwargs)
            manager.set_nodes(manager.nodes_cache, {node.name: node})
        return node

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.shield(self._bounded(*args, **kwargs))

    async def _bounded(self, *args: Any, **kwargs: Any) -> Any:
        try:
            await asyncio.wait_for(self.command_slots.acquire(), self.pool_wait)
        except TimeoutError:
            raise MaxConnectionsError("every connection to the game store is busy") from None
        try:
            try:
                return await super().execute_command(*args, **kwargs)
            except (AttributeError, RuntimeError):
                # redis-py 8's cluster pool can close a connection another command is opening (its
                # writer gone: "NoneType has no attribute writelines", "handler is closed"); the
                # command was not sent, so it is sent again once, then reported as a lost connection.
                try:
                    return await super().execute_command(*args, **kwargs)
                except (AttributeError, RuntimeError) as again:
                    raise ConnectionError(f"connection torn down under the command: {again}") from again
        finally:
            self.command_slots.release()


def async_client(
    url: str,
    *,
    cluster: bool = False,
    max_connections: int = 100,
    pool_wait: float = 5.0,
    socket_timeout: float = 60.0,
    socket_connect_timeout: float = CONNECT_TIMEOUT,
    decode_responses: bool = True,
) -> Any:
    """A client of ``url``: with ``cluster``, a Cluster client seeded by that one node.

    A plain client's pool blocks: a burst of more commands than ``max_connections`` waits up to
    ``pool_wait`` seconds for a connection instead of failing at once with "Too many connections".
    A Cluster client (``BoundedCluster``) runs at most three quarters of ``max_connections``
    commands at once and makes the others wait, as long; the rest of its connections (per node)
    serve pipelines.
    ``socket_timeout`` bounds a reply from a hung Redis; it must outlast the longest XREAD BLOCK sent
    on the client. Both kinds get :func:`resilience`'s options.
    """
    options = resilience(cluster=cluster, connect_timeout=socket_connect_timeout)
    if cluster:
        client = cast(
            BoundedCluster,
            BoundedCluster.from_url(
                url,
                decode_responses=decode_responses,
                max_connections=max_connections,
                socket_timeout=socket_timeout,
                **options,
            ),
        )
        client.command_slots = asyncio.Semaphore(max(1, max_connections * 3 // 4))
        client.pool_wait = pool_wait
        return client
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=pool_wait,
        decode_responses=decode_responses,
        socket_timeout=socket_timeout,
        **options,
    )
    pool.max_connections = max_connections  # the URL may carry another max_connections
    return aioredis.Redis.from_pool(pool)


async def run_scripts(client: Any, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
    """Registered scripts ``(script, keys, args)`` pipelined in one round trip (one per node on a
    Cluster, whose pipelines refuse redis-py's script helpers). A node that lacks a script answers
    NOSCRIPT without running it: that script is loaded and run again on its own (a promoted replica,
    a restarted Redis). Any other error is raised."""
    async with client.pipeline(transaction=False) as pipe:
        for script, keys, args in calls:
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        replies = await pipe.execute(raise_on_error=False)
    out: list[Any] = []
    for (script, keys, args), reply in zip(calls, replies, strict=True):
        if isinstance(reply, NoScriptError):
            reply = await script(keys=keys, args=args)  # loads it where it is missing, then runs it
        elif isinstance(reply, Exception):
            raise reply
        out.append(reply)
    return out


def hash_reply(flat: Any) -> dict[str, str]:
    """A hash's fields as Redis answers them: a flat list ``[field, value, …]`` (a script's HGETALL, a
    stream entry in a raw command's reply, RESP2) or already a map (RESP3)."""
    if isinstance(flat, dict):
        return flat
    return dict(zip(flat[::2], flat[1::2], strict=True))
