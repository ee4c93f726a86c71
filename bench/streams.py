"""Open streams against play: 1,000 SSE streams on one API process while 32 clients play through REST.

Issue 9, finding 4: each open stream used to hold a Redis connection of the request pool, so about a
hundred of them failed every other request. Here one API process (``atout serve``, one uvicorn
process) runs against its own redis-server (``service.runtime.embedded_redis``, on a free port). First the
32 players play alone for a while (the reference latency, same run). Then the loader opens the
streams, at most 32 connecting at once, spread over the games: ``--watchers`` spectators on each of
the 32 games about to be played, the rest four to an idle game (created, never played); then the
players each play their own game, seated at every seat (``GET /actions`` then ``POST /actions``, a
random legal move). When a match ends its player starts another and its spectators move on to it.
A stream that ends with a ``lagged`` notice reconnects with its Last-Event-ID, as an EventSource
does.

Printed: the players' action latency p50/p99 (the POST), with and without streams; the streams'
delivery lag p50/p99 (from the moment the action's HTTP response reaches its player to the event's
arrival on a stream, for moves made while that stream was open; it can be negative, a stream may
hear of a move before its player does); the events delivered and lost (each spectator stream is
checked at the end against the whole event list of every game it watched); reconnections after a
lag; and the CPU used by the loader (this process, which parses every event of every stream) and by
the server, in cores, during the measured play. Loopback only; every phase is bounded in time; the
server and redis-server are stopped by PID.

    python bench/streams.py [--quick] [--streams 1000] [--players 32] [--seconds 60] [--alone 20]

The last line is ``bench streams: streams=… players=… action_p50_ms=… action_p99_ms=… lag_p50_ms=…
lag_p99_ms=… delivered=… lost=… …``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from servers import call, percentile, sse_events, start_server, stop_server  # noqa: E402

from service.runtime.embedded_redis import EmbeddedRedis, free_port  # noqa: E402

GAME = "rough"
SEATS = 4


def raise_open_files(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (up to the hard limit); the server,
    started after, inherits it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Stream:
    game: str
    played: bool
    games: list[str] = field(default_factory=list)  # every game followed, in order
    heard: set[str] = field(default_factory=set)  # the games it received at least one event of
    since: dict[str, float] = field(default_factory=dict)  # game -> when its stream first answered
    ids: set[tuple[str, str]] = field(default_factory=set)  # (game, event id)
    arrivals: dict[tuple[str, int], float] = field(default_factory=dict)  # (game, version) -> first arrival
    last_id: str | None = None
    subscribed: asyncio.Event = field(default_factory=asyncio.Event)
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class Load:
    base: str
    responses: dict[tuple[str, int], float] = field(default_factory=dict)  # (game, version) -> when
    successor: dict[str, str] = field(default_factory=dict)  # a finished game -> its player's next one
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    failures: list[str] = field(default_factory=list)


async def seated_game(http: aiohttp.ClientSession, base: str, i: int) -> tuple[str, list[str]]:
    body = {"kind": GAME, "seats": ["open"] * SEATS, "options": {"target_score": 500}}  # long matches
    gid = (await call(http, base, "POST", "/v1/games", body=body))["game"]["game_id"]
    tokens = []
    for s in range(SEATS):
        joined = await call(
            http, base, "POST", f"/v1/games/{gid}/join", body={"seat": s, "name": f"p{i}s{s}"}
        )
        tokens.append(joined["token"])
    return gid, tokens


async def follow(
    http: aiohttp.ClientSession,
    base: str,
    stream: Stream,
    until: float,
    opening: asyncio.Semaphore,
    successors: dict[str, str],
) -> None:
    """Read one SSE stream until ``until``, reconnecting after a ``lagged`` notice (Last-Event-ID).

    At most ``opening`` streams connect at once: clients arrive over time, and a burst of a thousand
    simultaneous requests of any kind is more than the request pool (100 Redis connections) holds."""
    stream.games.append(stream.game)
    while time.perf_counter() < until:
        headers = {"Last-Event-ID": stream.last_id} if stream.last_id else {}
        try:
            async with opening:
                r = await http.get(f"{base}/v1/games/{stream.game}/events", headers=headers)
            try:
                if r.status != 200:
                    stream.errors.append(f"{r.status} {await r.text()}")
                    return
                stream.since.setdefault(stream.game, time.perf_counter())
                lagged = await read_events(r, stream)
            finally:
                r.release()
        except (TimeoutError, aiohttp.ClientError) as exc:
            stream.errors.append(type(exc).__name__)
            return
        if not lagged:  # the match is over: watch the player's next one, as a spectator would
            while stream.game not in successors and time.perf_counter() < until:
                await asyncio.sleep(0.05)
            if stream.game not in successors:
                return
            stream.game, stream.last_id = successors[stream.game], None
            stream.games.append(stream.game)


async def read_events(r: aiohttp.ClientResponse, stream: Stream) -> bool:
    """Record the events of one SSE response; True when it ended with a ``lagged`` notice."""
    async for event in sse_events(r):
        now = time.perf_counter()
        if event.get("type") == "lagged":
            stream.reconnects += 1
            return True
        stream.ids.add((stream.game, event["id"]))
        stream.last_id = event["id"]
        stream.arrivals.setdefault((stream.game, event["version"]), now)
        stream.heard.add(stream.game)
        stream.subscribed.set()
    return False


async def player(
    http: aiohttp.ClientSession, load: Load, gid: str, tokens: list[str], i: int, until: float
) -> None:
    """Play game ``gid`` from every seat until ``until``; a match that ends is followed by a new one
    (its spectators move on to it)."""
    rng = random.Random(i)
    while time.perf_counter() < until:
        to_act = (await call(http, load.base, "GET", f"/v1/games/{gid}/view", tokens[0]))["view"]["to_act"]
        while to_act is not None and time.perf_counter() < until:
            path = f"/v1/games/{gid}/actions"
            legal = (await call(http, load.base, "GET", path, tokens[to_act]))["legal_actions"]
            action = rng.choice(legal)
            if action["type"] == "discard" and "choices" in action:
                action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
            start = time.perf_counter()
            try:
                posted = await call(http, load.base, "POST", path, tokens[to_act], {"action": action})
            except RuntimeError as exc:
                load.failures.append(str(exc)[:200])
                return
            done = time.perf_counter()
            load.latencies.append(done - start)
            load.responses[(gid, posted["version"])] = done
            load.actions += 1
            to_act = posted["to_act"]
        if time.perf_counter() < until:
            finished = gid
            gid, tokens = await seated_game(http, load.base, i)
            load.successor[finished] = gid


async def run(
    base: str, streams_n: int, players_n: int, watchers: int, seconds: float, baseline: float, pid: int
) -> dict[str, Any]:
    load = Load(base)
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=10)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        # the same players first play without any stream open: the reference for their latency
        alone = Load(base)
        until = time.perf_counter() + baseline
        first = [await seated_game(http, base, i) for i in range(players_n)]
        await asyncio.gather(
            *(player(http, alone, gid, tokens, i, until) for i, (gid, tokens) in enumerate(first))
        )
        played = [await seated_game(http, base, i) for i in range(players_n)]  # fresh games, to be watched
        on_played = min(streams_n, watchers * players_n)
        idle_n = max(1, (streams_n - on_played + 3) // 4)  # idle games, four streams each
        idle = [
            (await call(http, base, "POST", "/v1/games", body={"kind": GAME, "seats": ["open"] * SEATS}))[
                "game"
            ]["game_id"]
            for _ in range(idle_n)
        ]
        streams = [Stream(played[k % players_n][0], True) for k in range(on_played)]
        streams += [Stream(idle[k % idle_n], False) for k in range(streams_n - on_played)]
        horizon = time.perf_counter() + seconds + 120  # a hard bound on every stream
        opened = time.perf_counter()
        opening = asyncio.Semaphore(32)
        readers = [
            asyncio.create_task(follow(http, base, s, horizon, opening, load.successor)) for s in streams
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(s.subscribed.wait() for s in streams)), 60)
        open_seconds = time.perf_counter() - opened
        subscribed = sum(s.subscribed.is_set() for s in streams)
        cpu0, server0, wall0 = time.process_time(), cpu_seconds(pid), time.perf_counter()
        until = time.perf_counter() + seconds
        await asyncio.gather(
            *(player(http, load, gid, tokens, i, until) for i, (gid, tokens) in enumerate(played))
        )
        wall = time.perf_counter() - wall0
        loader_cpu = (time.process_time() - cpu0) / wall
        server_cpu = (cpu_seconds(pid) - server0) / wall
        # drain: every stream of a played game should reach its game's last version (bounded wait)
        last_version: dict[str, int] = {}
        for game, version in load.responses:
            last_version[game] = max(version, last_version.get(game, 0))
        drain_until = time.perf_counter() + 15
        while time.perf_counter() < drain_until and any(
            s.game not in s.heard
            or (s.game in last_version and (s.game, last_version[s.game]) not in s.arrivals)
            for s in streams
            if s.played and not s.errors
        ):
            await asyncio.sleep(0.1)
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        expected_ids: dict[str, set[tuple[str, str]]] = {}
        for gid in {g for s in streams if s.played for g in s.games}:
            async with http.get(f"{base}/v1/games/{gid}/events?follow=false") as r:
                text = await r.text()
            expected_ids[gid] = {
                (gid, json.loads(ln[6:])["id"]) for ln in text.splitlines() if ln.startswith("data: ")
            }
    lags = [  # moves made while the stream was open (not the backlog a stream gets when it connects)
        (arrival - load.responses[key]) * 1000
        for s in streams
        if s.played
        for key, arrival in s.arrivals.items()
        if key in load.responses and load.responses[key] > s.since[key[0]]
    ]
    expected = sum(len(expected_ids[g]) for s in streams if s.played for g in s.games)
    received = sum(len(s.ids & expected_ids[g]) for s in streams if s.played for g in s.games)
    return {
        "streams": streams_n,
        "subscribed": subscribed,
        "open_seconds": open_seconds,
        "players": players_n,
        "actions": load.actions,
        "actions_per_s": load.actions / wall,
        "action_p50_ms": percentile(load.latencies, 50) * 1000,
        "action_p99_ms": percentile(load.latencies, 99) * 1000,
        "alone_p50_ms": percentile(alone.latencies, 50) * 1000,
        "alone_p99_ms": percentile(alone.latencies, 99) * 1000,
        "alone_actions_per_s": alone.actions / baseline,
        "lag_p50_ms": percentile(lags, 50),
        "lag_p99_ms": percentile(lags, 99),
        "delivered": sum(len(s.ids) for s in streams),
        "expected": expected,
        "lost": expected - received,
        "reconnects": sum(s.reconnects for s in streams),
        "stream_errors": sum(len(s.errors) for s in streams),
        "error_sample": next((s.errors[0] for s in streams if s.errors), ""),
        "player_failures": len(load.failures),
        "loader_cpu": loader_cpu,
        "server_cpu": server_cpu,
    }


def start_atout(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)]
    return start_server(args, env, f"http://127.0.0.1:{port}/healthz", cwd=ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (under a minute on 2 cores)")
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--watchers", type=int, default=20, help="spectator streams per played game")
    parser.add_argument("--seconds", type=float, default=None, help="seconds of play (quick: 15, else 60)")
    parser.add_argument(
        "--alone",
        type=float,
        default=None,
        help="seconds of play before any stream opens (quick: 5, else 20)",
    )
    args = parser.parse_args()
    seconds = args.seconds or (15.0 if args.quick else 60.0)
    alone = args.alone or (5.0 if args.quick else 20.0)
    nofile = raise_open_files(4 * args.streams + 1024)
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": redis_server.url,
            "ATOUT_LOG_LEVEL": "warning",
            "ATOUT_ACCESS_LOG": "false",
            # every client of the bench comes from 127.0.0.1: the per-address limits would count it as
            # one client; they stay on, far above this load
            "ATOUT_STREAMS_PER_CLIENT": str(args.streams + 100),
            "ATOUT_MAX_CONNECTIONS_PER_ADDRESS": str(args.streams + 256),
            "ATOUT_MAX_OPEN_GAMES_PER_CREATOR": "1000000",
            "ATOUT_RATE_OPEN_STREAM_PER_ADDRESS": "1000000/minute",
            "ATOUT_RATE_CREATE_GAME_PER_ADDRESS": "1000000/minute",
            "ATOUT_RATE_JOIN_PER_ADDRESS": "1000000/minute",
            "ATOUT_RATE_ACT_PER_ADDRESS": "1000000/minute",
        }
        server = start_atout(env, port)
        try:
            result = asyncio.run(
                asyncio.wait_for(
                    run(
                        f"http://127.0.0.1:{port}",
                        args.streams,
                        args.players,
                        args.watchers,
                        seconds,
                        alone,
                        server.pid,
                    ),
                    seconds + alone + 300,
                )
            )
        finally:
            stop_server(server)
            redis_server.stop()
    print(
        f"open-file limit {nofile}; {result['subscribed']}/{result['streams']} streams subscribed "
        f"in {result['open_seconds']:.1f} s; {result['players']} players, {result['actions']} actions "
        f"({result['actions_per_s']:.0f}/s) in {seconds:.0f} s"
    )
    print(
        f"action latency p50 {result['action_p50_ms']:.1f} ms, p99 {result['action_p99_ms']:.1f} ms; "
        f"delivery lag p50 {result['lag_p50_ms']:.1f} ms, p99 {result['lag_p99_ms']:.1f} ms"
    )
    print(
        f"events delivered {result['delivered']}, expected on played games {result['expected']}, "
        f"lost {result['lost']}, reconnects after lag {result['reconnects']}, stream errors "
        f"{result['stream_errors']} {result['error_sample']}, player failures {result['player_failures']}"
    )
    print(
        f"without streams (first {alone:.0f} s, same players): action latency p50 "
        f"{result['alone_p50_ms']:.1f} ms, p99 {result['alone_p99_ms']:.1f} ms "
        f"({result['alone_actions_per_s']:.0f} actions/s)"
    )
    print(f"CPU (cores): loader {result['loader_cpu']:.2f}, server {result['server_cpu']:.2f}")
    print(
        f"bench streams: streams={result['streams']} players={result['players']} "
        f"action_p50_ms={result['action_p50_ms']:.1f} action_p99_ms={result['action_p99_ms']:.1f} "
        f"lag_p50_ms={result['lag_p50_ms']:.1f} lag_p99_ms={result['lag_p99_ms']:.1f} "
        f"delivered={result['delivered']} lost={result['lost']} loader_cpu={result['loader_cpu']:.2f} "
        f"server_cpu={result['server_cpu']:.2f} alone_p50_ms={result['alone_p50_ms']:.1f} "
        f"alone_p99_ms={result['alone_p99_ms']:.1f}"
    )


if __name__ == "__main__":
    main()
