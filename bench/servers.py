"""What the benchmarks share: servers started in their own process group, and percentiles."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import redis

from service.runtime.embedded_redis import EmbeddedRedis, free_port

if TYPE_CHECKING:
    import aiohttp


def start_server(
    args: list[str], env: dict[str, str], probe: str, method: str = "GET", cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start a server in its own process group and wait until ``probe`` answers. Its output is
    dropped, or appended to the file ``BENCH_SERVER_LOG`` names (to see why a run failed)."""
    where = os.environ.get("BENCH_SERVER_LOG")
    log = open(where, "ab") if where else subprocess.DEVNULL  # noqa: SIM115 (the child holds it)
    proc = subprocess.Popen(args, env=env, stdout=log, stderr=log, start_new_session=True, cwd=cwd)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.request(method, probe, timeout=1)
            return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    stop_server(proc)
    raise RuntimeError(f"server did not start: {' '.join(args)}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the whole group (the server's workers too), SIGKILL if it does not end in time."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def served_api(name: str, **settings: str) -> Iterator[tuple[str, redis.Redis, str]]:
    """A real redis-server (free port, no AOF) and ``atout serve`` on it, rate limits off and
    ``settings`` (``ATOUT_*`` variables) added: yields the API's base URL, a client of the Redis and
    its URL; both servers are stopped on the way out."""
    with tempfile.TemporaryDirectory(prefix=f"atout-bench-{name}-") as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            "ATOUT_LOG_LEVEL": "warning",
            "ATOUT_RATE_LIMITS": "false",
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
            **settings,
        }
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        api = None
        r = redis.Redis.from_url(server.url)
        try:
            api = start_server(
                [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)],
                env,
                base + "/healthz",
            )
            yield base, r, server.url
        finally:
            r.close()
            if api is not None:
                stop_server(api)
            server.stop()


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


async def gather_bounded(jobs: list[Any], limit: int) -> list[Any]:
    """Run the coroutines ``jobs`` with at most ``limit`` at once, results in order."""
    gate = asyncio.Semaphore(limit)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(j) for j in jobs)))


async def call(
    http: aiohttp.ClientSession, base: str, method: str, path: str, token: str | None = None, body: Any = None
) -> dict[str, Any]:
    """One JSON request of a load generator; an error status raises with the answer in the message."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with http.request(method, base + path, json=body, headers=headers) as r:
        data: dict[str, Any] = await r.json(content_type=None)
        if r.status >= 400:
            raise RuntimeError(f"{method} {path}: {r.status} {data}")
        return data


async def sse_events(r: aiohttp.ClientResponse) -> AsyncIterator[Any]:
    """The events (parsed ``data``) of an SSE response, as they come."""
    fields: dict[str, str] = {}
    async for raw in r.content:
        line = raw.decode().rstrip("\r\n")
        if line:
            if not line.startswith(":"):
                key, _, value = line.partition(": ")
                fields[key] = value
            continue
        if "data" in fields:
            yield json.loads(fields["data"])
        fields = {}
