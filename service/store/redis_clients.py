"""The one place the service's async Redis clients are built: a plain Redis or a Redis Cluster.

Every client is tuned to survive a Redis restart or a failover: connecting gives up after a couple
of seconds (a request fails fast with 503 instead of hanging), a command that meets a dead
connection is retried on a fresh one, and idle pooled connections are PINGed before use. On a
Cluster, redis-py follows MOVED/ASK redirections and re-reads the slot map when a node fails; the
service's keys are laid out so that no command ever names two slots (see service/store/game_store.py).
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, MaxConnectionsError, NoScriptError

AsyncClient = aioredis.Redis | RedisCluster


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
    """

    command_slots: asyncio.Semaphore
    pool_wait: float

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
    socket_connect_timeout: float = 2.0,
    decode_responses: bool = True,
) -> Any:
    """A client of ``url``: with ``cluster``, a Cluster client seeded by that one node.

    A plain client's pool blocks: a burst of more commands than ``max_connections`` waits up to
    ``pool_wait`` seconds for a connection instead of failing at once with "Too many connections".
    A Cluster client (``BoundedCluster``) runs at most three quarters of ``max_connections``
    commands at once and makes the others wait, as long; the rest of its connections (per node)
    serve pipelines.
    ``socket_timeout`` bounds a reply from a hung Redis; it must outlast the longest XREAD BLOCK sent
    on the client. The retries cover lost connections only, never a timeout: a hung Redis must not
    hold a request for three socket timeouts.
    """
    if cluster:
        client = cast(
            BoundedCluster,
            BoundedCluster.from_url(
                url,
                decode_responses=decode_responses,
                max_connections=max_connections,
                socket_timeout=socket_timeout,
                socket_connect_timeout=socket_connect_timeout,
                socket_keepalive=True,
                health_check_interval=5,
                # a failover takes a few seconds: the cluster client re-reads the slot map between tries
                retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=3),
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
        socket_connect_timeout=socket_connect_timeout,
        socket_keepalive=True,
        health_check_interval=5,
        retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), retries=2, supported_errors=(ConnectionError,)),
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
