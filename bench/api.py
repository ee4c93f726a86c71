"""API load: N concurrent clients play complete games through REST against ``atout serve``.

In the same run the same load (the same number of clients, each sending requests back to
back) hits a bare Starlette endpoint that does one Redis GET and one SET: the floor of any
Redis-backed HTTP service on this machine. Both servers run under uvicorn with 2 worker
processes on loopback against one real redis-server started here.

Each of our clients creates a game with every seat open, joins every seat, then plays it to
the end: for the seat to act, ``GET /v1/games/{id}/actions`` then ``POST`` one of them (a
random legal action), timing each POST. Printed: actions/s, requests/s, p50/p99 latency of
an action for us and of a request for the baseline, and the ratios.

    python bench/api.py [--quick] [--clients 32]

The last line is ``bench api: key=value ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.embedded_redis import EmbeddedRedis, free_port  # noqa: E402

GAMES = ("five_hundred", "rough", "euchre5")
PLAYERS = {"five_hundred": 4, "rough": 4, "euchre5": 5}

BASELINE_APP = """
import os
import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

pool = aioredis.Redis.from_url(os.environ["REDIS_URL"])

async def touch(request):
    body = await request.body()
    value = await pool.get("bench:baseline")
    await pool.set("bench:baseline", body or b"x")
    return JSONResponse({"ok": True, "had": value is not None})

app = Starlette(routes=[Route("/touch", touch, methods=["POST"])])
"""


def start_server(
    args: list[str], env: dict[str, str], probe: str, method: str = "GET"
) -> subprocess.Popen[bytes]:
    """Start a server in its own process group and wait until ``probe`` answers."""
    proc = subprocess.Popen(
        args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
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
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


async def play_games(base: str, clients: int, seconds: float) -> tuple[int, int, list[float], float]:
    """Clients play whole games until the time is up; returns actions, requests, latencies, elapsed."""
    latencies: list[float] = []
    counts = {"actions": 0, "requests": 0}
    deadline = time.perf_counter() + seconds

    async def call(
        http: aiohttp.ClientSession, method: str, path: str, token: str | None = None, body: object = None
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with http.request(method, base + path, json=body, headers=headers) as r:
            counts["requests"] += 1
            data: dict[str, Any] = await r.json()
            if r.status >= 400:
                raise RuntimeError(f"{method} {path}: {r.status} {data}")
            return data

    async def client(i: int, http: aiohttp.ClientSession) -> None:
        rng = random.Random(i)
        while time.perf_counter() < deadline:
            game = GAMES[(i + counts["actions"]) % len(GAMES)]
            n = PLAYERS[game]
            gid = (await call(http, "POST", "/v1/games", body={"game": game, "seats": ["open"] * n}))["game"][
                "id"
            ]
            tokens = [
                (await call(http, "POST", f"/v1/games/{gid}/join", body={"seat": s, "name": f"c{i}s{s}"}))[
                    "token"
                ]
                for s in range(n)
            ]
            to_act = (await call(http, "GET", f"/v1/games/{gid}/view", tokens[0]))["view"]["to_act"]
            while to_act is not None and time.perf_counter() < deadline:
                legal = (await call(http, "GET", f"/v1/games/{gid}/actions", tokens[to_act]))["actions"]
                action = rng.choice(legal)
                if action["type"] == "discard" and "from" in action:
                    action = {"type": "discard", "cards": rng.sample(action["from"], action["count"])}
                start = time.perf_counter()
                posted = await call(
                    http, "POST", f"/v1/games/{gid}/actions", tokens[to_act], {"action": action}
                )
                latencies.append(time.perf_counter() - start)
                counts["actions"] += 1
                to_act = posted["to_act"]

    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:
        await asyncio.gather(*(client(i, http) for i in range(clients)))
    return counts["actions"], counts["requests"], latencies, time.perf_counter() - started


async def hammer_baseline(base: str, clients: int, seconds: float) -> tuple[int, list[float], float]:
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def client(http: aiohttp.ClientSession) -> None:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            async with http.post(base + "/touch", data=b'{"action":{"type":"pass"}}') as r:
                await r.read()
                r.raise_for_status()
            latencies.append(time.perf_counter() - start)

    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    return len(latencies), latencies, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (under a minute)")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args()
    seconds = args.seconds or (8.0 if args.quick else 30.0)
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        env = {**os.environ, "REDIS_URL": redis_server.url, "ATOUT_LOG_LEVEL": "warning"}
        try:
            port = free_port()
            ours = start_server(
                [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "2"],
                env,
                f"http://127.0.0.1:{port}/healthz",
            )
            try:
                cpu = time.process_time()
                actions, requests, lat, elapsed = asyncio.run(
                    play_games(f"http://127.0.0.1:{port}", args.clients, seconds)
                )
                ours_client_cpu = (time.process_time() - cpu) / elapsed
            finally:
                stop_server(ours)
            app_file = Path(tmp) / "baseline_app.py"
            app_file.write_text(BASELINE_APP)
            bport = free_port()
            baseline = start_server(
                [
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "baseline_app:app",
                    "--port",
                    str(bport),
                    "--workers",
                    "2",
                    "--log-level",
                    "warning",
                    "--app-dir",
                    tmp,
                ],
                env,
                f"http://127.0.0.1:{bport}/touch",
                method="POST",
            )
            try:
                cpu = time.process_time()
                b_requests, b_lat, b_elapsed = asyncio.run(
                    hammer_baseline(f"http://127.0.0.1:{bport}", args.clients, seconds)
                )
                base_client_cpu = (time.process_time() - cpu) / b_elapsed
            finally:
                stop_server(baseline)
        finally:
            redis_server.stop()
    ours_aps, ours_rps, base_rps = actions / elapsed, requests / elapsed, b_requests / b_elapsed
    p50, p99 = percentile(lat, 50) * 1e3, percentile(lat, 99) * 1e3
    b50, b99 = percentile(b_lat, 50) * 1e3, percentile(b_lat, 99) * 1e3
    print(
        f"atout    {args.clients} clients: {ours_aps:7.0f} actions/s ({ours_rps:.0f} requests/s), "
        f"action p50 {p50:.1f} ms p99 {p99:.1f} ms"
    )
    print(
        f"baseline {args.clients} clients: {base_rps:7.0f} requests/s (one GET + one SET), "
        f"p50 {b50:.1f} ms p99 {b99:.1f} ms"
    )
    print(
        f"load generator CPU (share of one core): {ours_client_cpu:.0%} against atout, "
        f"{base_client_cpu:.0%} against the baseline (near 100%: the client, on the same 2 cores, "
        "limits the rate and the ratio reads high)"
    )
    print(
        f"ratio actions/s : baseline requests/s = {ours_aps / base_rps:.2f} (target >= 0.35); "
        f"requests ratio {ours_rps / base_rps:.2f}; action p99 {p99:.1f} ms (target < 50)"
    )
    print(
        "bench api: "
        + " ".join(
            [
                f"clients={args.clients}",
                f"actions_per_s={ours_aps:.0f}",
                f"requests_per_s={ours_rps:.0f}",
                f"action_p50_ms={p50:.1f}",
                f"action_p99_ms={p99:.1f}",
                f"baseline_requests_per_s={base_rps:.0f}",
                f"baseline_p50_ms={b50:.1f}",
                f"baseline_p99_ms={b99:.1f}",
                f"ratio={ours_aps / base_rps:.2f}",
                f"requests_ratio={ours_rps / base_rps:.2f}",
                f"actions={actions}",
                f"client_cpu_ours={ours_client_cpu:.2f}",
                f"client_cpu_baseline={base_client_cpu:.2f}",
                f"seconds={elapsed:.1f}",
                f"stdev_ms={statistics.pstdev(lat) * 1e3:.1f}",
            ]
        )
    )


if __name__ == "__main__":
    main()
