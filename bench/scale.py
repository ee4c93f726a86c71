"""Scale-out over a Redis Cluster: 1, 2 and 3 API processes and 2 bot workers, every request of a
game sent to a random instance and its event stream read from yet another.

A real cluster of 3 masters and 3 replicas (``tests/cluster/embedded_cluster.py``, a dev-only helper the
package does not ship) holds the games; a plain redis-server holds the RQ queues. For each count of API
processes (``atout serve`` against the cluster, one uvicorn process each, rate limits off, access log
off), ``--clients`` clients play Le Rough: each creates a table with three open seats and one heuristic
bot, joins the three seats, opens the game's SSE stream on an instance other than the one it created the
game on, and plays its seats — each request (GET the legal actions, POST a random one, GET the game) to
an instance drawn at random. When the bot is to act, the client waits for the bot's move to arrive on
the stream (a bot worker plays it; the move is then read on yet another instance). A match that ends is
followed by a new one. At the end of a phase every stream is checked against the game's whole event list
(read once more, after the last move): **lost** counts events the stream never delivered, **duplicated**
the events it delivered twice.

Printed per instance count: moves/s (the players' and the bot's), the players' action latency
p50/p99 (the POST), the stream delivery lag p50 (from the POST's response to the event on the
stream), events delivered, lost and duplicated. This machine has few cores: every API process,
the two workers, the seven redis-servers and this loader share them, so more processes do not
mean more throughput here — the figures show that the service scales out correctly (no lost or
duplicated event, any instance serving any request) and what each instance count costs, not a
speed-up a bigger machine would show. Loopback only; every phase is bounded; processes are
stopped by PID.

    python bench/scale.py [--quick] [--clients 12] [--seconds 20] [--instances 1,2,3]

The last line is ``bench scale: cpus=… moves_per_s_1=… moves_per_s_2=… moves_per_s_3=…
action_p99_ms_1=… … lost=… duplicated=…``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "cluster"))  # embedded_cluster: dev-only, not in the package

from embedded_cluster import EmbeddedCluster  # noqa: E402
from servers import call, percentile, sse_events, start_server, stop_server  # noqa: E402

from service.runtime.embedded_redis import EmbeddedRedis, free_port  # noqa: E402

SEATS = ["open", "open", "open", "bot:heuristic"]
BOT_SEAT = 3
OPTIONS = {"target_score": 200}
STALL_SECONDS = 30.0  # a bot move not seen on the stream in this long is a failure


@dataclass
class Watched:
    """One game's stream as a client saw it."""

    game: str
    ids: list[str] = field(default_factory=list)
    arrivals: dict[int, float] = field(default_factory=dict)  # version -> first arrival
    version: int = -1
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    errors: list[str] = field(default_factory=list)
    breaks: list[str] = field(default_factory=list)
    reconnects: int = 0


@dataclass
class Phase:
    instances: int
    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    moves: int = 0
    delivered: int = 0
    lost: int = 0
    duplicated: int = 0
    reconnects: int = 0
    breaks: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    responses: dict[tuple[str, int], float] = field(default_factory=dict)


async def watch(http: aiohttp.ClientSession, base: str, stream: Watched, stop: asyncio.Event) -> None:
    """Read the game's SSE stream from its start until ``stop`` or the match's end; a stream that
    breaks is opened again with its Last-Event-ID, as an EventSource does (counted in
    ``reconnects``)."""
    while not stop.is_set():
        headers = {"Last-Event-ID": stream.ids[-1]} if stream.ids else {}
        try:
            async with http.get(f"{base}/v1/games/{stream.game}/events", headers=headers) as r:
                if r.status != 200:
                    stream.errors.append(f"{r.status} {await r.text()}")
                    return
                ended_by = None
                async for event in sse_events(r):
                    if "id" in event and "version" in event:
                        stream.ids.append(event["id"])
                        stream.arrivals.setdefault(event["version"], time.perf_counter())
                        stream.version = max(stream.version, event["version"])
                        stream.changed.set()
                    elif event.get("type") in ("lagged", "server_closing"):
                        ended_by = event["type"]  # come back after the last event, as told
            if ended_by is None:
                return  # the server ends a match's stream after its last event
            stream.breaks.append(ended_by)
        except (TimeoutError, aiohttp.ClientError) as exc:
            stream.breaks.append(type(exc).__name__)
        if not stop.is_set():
            stream.reconnects += 1
            await asyncio.sleep(0.1)


async def stored_ids(http: aiohttp.ClientSession, base: str, gid: str) -> list[tuple[str, int]]:
    """The game's whole event list (id, version), read once more."""
    async with http.get(f"{base}/v1/games/{gid}/events?follow=false") as r:
        return [(e["id"], e["version"]) async for e in sse_events(r) if "id" in e and "version" in e]


async def settle(
    http: aiohttp.ClientSession, bases: list[str], phase: Phase, stream: Watched, version: int
) -> None:
    """Once a client stops playing a game: every stored event up to the last version it knows of must
    reach the stream (waited for, bounded); then the stream is compared with the stored list."""
    stored = [eid for eid, v in await stored_ids(http, random.choice(bases), stream.game) if v <= version]
    deadline = time.perf_counter() + 10
    while not set(stored) <= set(stream.ids) and time.perf_counter() < deadline:
        stream.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stream.changed.wait(), 0.5)
    seen = [eid for eid in stream.ids if eid in set(stored)]
    phase.delivered += len(set(seen))
    phase.duplicated += len(stream.ids) - len(set(stream.ids))
    phase.lost += len(set(stored) - set(seen))
    phase.reconnects += stream.reconnects
    phase.breaks.extend(stream.breaks)
    phase.failures.extend(stream.errors)
    for v, arrived in stream.arrivals.items():
        answered = phase.responses.get((stream.game, v))
        if answered is not None:
            phase.lags.append(arrived - answered)


async def play(http: aiohttp.ClientSession, bases: list[str], phase: Phase, i: int, until: float) -> None:
    """Play matches until ``until``: every request to a random instance, the stream on another."""
    rng = random.Random(i)
    pick = rng.choice
    while time.perf_counter() < until:
        home = pick(bases)
        created = await call(
            http, home, "POST", "/v1/games", body={"kind": "rough", "seats": SEATS, "options": OPTIONS}
        )
        gid = created["game"]["game_id"]
        stream = Watched(gid)
        elsewhere = [b for b in bases if b != home] or bases
        stop = asyncio.Event()
        reader = asyncio.create_task(watch(http, pick(elsewhere), stream, stop))
        tokens: dict[int, str] = {}
        for seat in range(BOT_SEAT):
            joined = await call(http, pick(bases), "POST", f"/v1/games/{gid}/join", body={"seat": seat})
            tokens[seat] = joined["token"]
        game = await call(http, pick(bases), "GET", f"/v1/games/{gid}")
        version, to_act = game["version"], game["to_act"]
        try:
            while to_act is not None and time.perf_counter() < until:
                if to_act == BOT_SEAT:
                    deadline = time.perf_counter() + STALL_SECONDS
                    while stream.version <= version and time.perf_counter() < deadline:
                        stream.changed.clear()
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(stream.changed.wait(), 1.0)
                    if stream.version <= version:
                        phase.failures.append(f"{gid}: the bot's move at version {version} never arrived")
                        return
                    game = await call(http, pick(bases), "GET", f"/v1/games/{gid}")
                    phase.moves += game["version"] - version
                    version, to_act = game["version"], game["to_act"]
                    continue
                path = f"/v1/games/{gid}/actions"
                legal = (await call(http, pick(bases), "GET", path, tokens[to_act]))["legal_actions"]
                action = rng.choice(legal)
                if action["type"] == "discard" and "choices" in action:
                    action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
                start = time.perf_counter()
                posted = await call(http, pick(bases), "POST", path, tokens[to_act], {"action": action})
                done = time.perf_counter()
                phase.latencies.append(done - start)
                phase.responses[(gid, posted["version"])] = done
                phase.moves += posted["version"] - version
                version, to_act = posted["version"], posted["to_act"]
        except RuntimeError as exc:
            phase.failures.append(str(exc)[:200])
            return
        finally:
            await settle(http, bases, phase, stream, version)
            stop.set()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader


async def run_phase(bases: list[str], clients: int, seconds: float) -> Phase:
    phase = Phase(len(bases))
    timeout = aiohttp.ClientTimeout(total=None, sock_read=STALL_SECONDS + 10)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as http:
        until = time.perf_counter() + seconds
        await asyncio.gather(*(play(http, bases, phase, i, until) for i in range(clients)))
    return phase


def start_api(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)]
    return start_server(args, env, f"http://127.0.0.1:{port}/healthz", cwd=ROOT), f"http://127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short phases (the whole run under a minute)")
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=None, help="seconds of play per instance count")
    parser.add_argument("--instances", default="1,2,3", help="API process counts to measure")
    args = parser.parse_args()
    seconds = args.seconds or (8.0 if args.quick else 30.0)
    counts = [int(n) for n in args.instances.split(",")]
    cpus = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="atout-scale-") as tmp:
        cluster = EmbeddedCluster(Path(tmp) / "cluster").start()
        queues = EmbeddedRedis(Path(tmp) / "queues", appendonly=False).start()
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "REDIS_URL": cluster.url,
            "ATOUT_REDIS_CLUSTER": "1",
            "ATOUT_QUEUE_URL": queues.url,
            "ATOUT_RATE_LIMITS": "false",
            "ATOUT_ACCESS_LOG": "false",
            "ATOUT_LOG_LEVEL": "warning",
            "ATOUT_STREAM_WINDOW": "100000",  # the whole match stays in its stream: checked event by event
            "ATOUT_MAX_OPEN_GAMES_PER_CREATOR": "100000",
        }
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", "service.runtime.cli", "worker"],
                env=env,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            for _ in range(2)
        ]
        apis: list[tuple[subprocess.Popen[bytes], str]] = []
        phases: list[Phase] = []
        try:
            for n in counts:
                while len(apis) < n:
                    apis.append(start_api(env))
                phase = asyncio.run(run_phase([base for _, base in apis[:n]], args.clients, seconds))
                phases.append(phase)
                p50, p99 = percentile(phase.latencies, 50) * 1000, percentile(phase.latencies, 99) * 1000
                print(
                    f"{n} API process(es): {phase.moves / seconds:7.1f} moves/s, action p50 {p50:.1f} ms "
                    f"p99 {p99:.1f} ms, stream lag p50 {percentile(phase.lags, 50) * 1000:.1f} ms, events "
                    f"delivered {phase.delivered}, lost {phase.lost}, duplicated {phase.duplicated}, "
                    f"reconnects {phase.reconnects}, failures {len(phase.failures)}",
                    flush=True,
                )
                if phase.breaks:
                    print("  streams broken:", dict(Counter(phase.breaks)))
                for failure in phase.failures[:5]:
                    print("  failure:", failure)
        finally:
            for proc, _ in apis:
                stop_server(proc)
            for worker in workers:
                stop_server(worker)
            queues.stop()
            cluster.stop()
    figures = [f"cpus={cpus}", f"clients={args.clients}", f"seconds={seconds:g}"]
    for phase in phases:
        n = phase.instances
        figures += [
            f"moves_per_s_{n}={phase.moves / seconds:.1f}",
            f"action_p50_ms_{n}={percentile(phase.latencies, 50) * 1000:.1f}",
            f"action_p99_ms_{n}={percentile(phase.latencies, 99) * 1000:.1f}",
            f"lag_p50_ms_{n}={percentile(phase.lags, 50) * 1000:.1f}",
        ]
    figures += [
        f"delivered={sum(p.delivered for p in phases)}",
        f"lost={sum(p.lost for p in phases)}",
        f"duplicated={sum(p.duplicated for p in phases)}",
        f"reconnects={sum(p.reconnects for p in phases)}",
        f"failures={sum(len(p.failures) for p in phases)}",
    ]
    print("bench scale: " + " ".join(figures))


if __name__ == "__main__":
    main()
