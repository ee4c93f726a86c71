"""API load: N concurrent clients play complete games through REST against ``atout serve``.

In the same run the same load (the same number of clients, each sending requests back to
back) hits a bare Starlette endpoint that does one Redis GET and one SET: the floor of any
Redis-backed HTTP service on this machine. Both servers run under uvicorn with 2 worker
processes, each worker on a socket of its own as ``atout serve --workers 2`` runs them
(bench/uvicorn_workers.py), on loopback against one real redis-server started here. The sides are
measured in short alternating rounds (the order rotates each round), so a machine shared with other work
slows every side alike; the figures are medians over rounds, with the spread of the ratio.
A third side, an empty endpoint (no Redis), is the HTTP floor: with the number of requests our
client sends per action it gives the highest ratio a server could reach whose requests did nothing
else. The server CPU (every process of the server) per action and per request is printed too: it
is steadier than throughput on a shared machine. ``--ref REV`` adds a further side, the service
as it was at git revision REV (a temporary worktree), for "not slower than before" measured in
the same run: ``ratio_vs_ref`` (and the reference's CPU per action). ``--graphql`` adds a side playing
the same games with every move sent as GraphQL's ``submitAction`` (the whole payload selected, as REST
answers it all), on the same server: its actions/s, p99 and CPU per action. ``--profile`` samples one
API worker of ours with py-spy during our rounds and prints where its time goes, in buckets (engine,
redis-py, asyncio, pydantic, starlette, uvicorn, graphql, ratelimit, our service code, other): the
innermost frame of a sample that belongs to a bucket names it, so the next change starts from a
measurement rather than a guess. py-spy samples with ``--native`` (to see into uvloop, hiredis and the
engine's mypyc build), which stops the worker for each sample: a profiled side runs slower, so compare
throughput and CPU from a run without ``--profile``. The samples are wall time while the worker is not
waiting in epoll: a syscall that hands the CPU to Redis (a ``write``) weighs more than its own CPU.
``BENCH_PROFILE_RAW=PATH`` keeps the raw samples (``PATH.ours``, ``PATH.graphql``) for a flame graph.

Each of our clients creates a game with every seat open, joins every seat, then plays it to the end:
for the seat to act, ``GET /v1/games/{id}/actions`` then ``POST`` one of them (a random legal
action, with an ``Idempotency-Key`` as the docs teach), timing each POST. Printed: actions/s,
requests/s, p50/p99 latency of an action for us and of a request for the baseline, and the ratios.

    python bench/api.py [--quick] [--clients 32] [--rounds 6] [--ref REV] [--graphql] [--profile]

The last line is ``bench api: key=value ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from servers import percentile, start_server, stop_server  # noqa: E402

from service.runtime.embedded_redis import EmbeddedRedis, free_port  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "service"))
from gql_select import as_action_input, as_json, select  # noqa: E402

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

async def empty(request):
    await request.body()
    return JSONResponse({"ok": True})

app = Starlette(routes=[Route("/touch", touch, methods=["POST"]), Route("/empty", empty, methods=["POST"])])
"""


SUBMIT = "mutation($input: SubmitActionInput!) { submitAction(input: $input) { %s } }"


async def graphql_move(
    http: aiohttp.ClientSession, base: str, token: str, gid: str, action: dict[str, Any]
) -> dict[str, Any]:
    """A move through GraphQL's ``submitAction`` (the whole payload selected): the answer in REST's
    JSON form (``to_act``, ``next_turn`` with REST's legal actions)."""
    query = SUBMIT % select("SubmitActionPayload")
    body = {"query": query, "variables": {"input": {"gameId": gid, "action": as_action_input(action)}}}
    headers = {"Authorization": f"Bearer {token}"}
    async with http.post(base + "/graphql", json=body, headers=headers) as r:
        data: dict[str, Any] = await r.json()
    if r.status >= 400 or data.get("errors"):
        raise RuntimeError(f"submitAction: {r.status} {data}")
    answer: dict[str, Any] = as_json(data["data"]["submitAction"])
    return answer


async def play_games(
    base: str, clients: int, seconds: float, one_request: bool = True, graphql: bool = False
) -> tuple[int, int, list[float], float]:
    """Clients play whole games until the time is up; returns actions, requests, latencies, elapsed.

    ``one_request``: the loop the docs teach. Each client is a bot account seated at every seat of its
    table (one key holds them all), so the answer to each move carries the next turn (``next_turn``:
    the view and legal actions of the seat to act) and a move is one request; the game's start is
    read from one view. Otherwise the old loop: ``GET …/actions`` for the seat to act, then the POST.
    ``graphql``: the same loop, each move sent as GraphQL's ``submitAction`` instead of the POST.
    """
    latencies: list[float] = []
    counts = {"actions": 0, "requests": 0}
    deadline = time.perf_counter() + seconds

    async def call(
        http: aiohttp.ClientSession,
        method: str,
        path: str,
        token: str | None = None,
        body: object = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if key:
            headers["Idempotency-Key"] = key  # as the docs teach a move: a retry is then safe
        async with http.request(method, base + path, json=body, headers=headers) as r:
            counts["requests"] += 1
            data: dict[str, Any] = await r.json()
            if r.status >= 400:
                raise RuntimeError(f"{method} {path}: {r.status} {data}")
            return data

    def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
        action = rng.choice(legal)
        if action["type"] == "discard" and "choices" in action:
            action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
        return action

    async def client(i: int, http: aiohttp.ClientSession) -> None:
        rng = random.Random(i)
        key = None
        if one_request:
            key = (await call(http, "POST", "/v1/bots", body={"name": f"bench-{i}"}))["api_key"]
        while time.perf_counter() < deadline:
            game = GAMES[(i + counts["actions"]) % len(GAMES)]
            n = PLAYERS[game]
            gid = (await call(http, "POST", "/v1/games", body={"kind": game, "seats": ["open"] * n}))["game"][
                "game_id"
            ]
            tokens = [
                (await call(http, "POST", f"/v1/games/{gid}/join", key, {"seat": s, "name": f"c{i}s{s}"}))[
                    "token"
                ]
                for s in range(n)
            ]
            first = await call(http, "GET", f"/v1/games/{gid}/view", tokens[0])
            to_act: int | None = first["view"]["to_act"]
            legal = first["legal_actions"]
            while to_act is not None and time.perf_counter() < deadline:
                if not one_request:
                    legal = (await call(http, "GET", f"/v1/games/{gid}/actions", tokens[to_act]))[
                        "legal_actions"
                    ]
                elif legal is None:  # the game's first turn is another seat's: read its view once
                    seen = await call(http, "GET", f"/v1/games/{gid}/view", tokens[to_act])
                    legal = seen["legal_actions"]
                start = time.perf_counter()
                if graphql:
                    posted = await graphql_move(http, base, tokens[to_act], gid, choose(rng, legal))
                    counts["requests"] += 1
                else:
                    body = {"action": choose(rng, legal)}
                    move_key = f"{gid}-{counts['actions']}"
                    posted = await call(
                        http, "POST", f"/v1/games/{gid}/actions", tokens[to_act], body, move_key
                    )
                latencies.append(time.perf_counter() - start)
                counts["actions"] += 1
                to_act, turn = posted.get("to_act"), posted.get("next_turn")  # GraphQL: no nulls
                if one_request and to_act is not None:
                    if turn is None or turn["seat"] != to_act:
                        raise RuntimeError(f"no next turn for the bot holding every seat: {posted}")
                    legal = turn["legal_actions"]

    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:
        await asyncio.gather(*(client(i, http) for i in range(clients)))
    return counts["actions"], counts["requests"], latencies, time.perf_counter() - started


async def hammer_baseline(
    base: str, clients: int, seconds: float, path: str
) -> tuple[int, list[float], float]:
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def client(http: aiohttp.ClientSession) -> None:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            async with http.post(base + path, data=b'{"action":{"type":"pass"}}') as r:
                await r.read()
                r.raise_for_status()
            latencies.append(time.perf_counter() - start)

    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    return len(latencies), latencies, time.perf_counter() - started


PROFILE_BUCKETS = ("engine", "redis-py", "asyncio", "pydantic", "starlette", "uvicorn", "graphql",
                   "ratelimit", "service", "other")  # fmt: skip
# A Python frame's file as py-spy names it (relative to its folder on sys.path), by the folder it starts
# with; the first that fits wins (the rate limiter is our code too).
PYTHON_BUCKETS = (
    ("engine", ("engine/",)),
    ("ratelimit", ("service/api/ratelimit.py",)),
    ("service", ("service/", "schema/", "workers/")),
    ("redis-py", ("redis/", "hiredis/")),
    ("pydantic", ("pydantic/", "pydantic_core/")),
    ("graphql", ("strawberry/", "graphql/")),
    ("starlette", ("starlette/", "sse_starlette/")),
    ("uvicorn", ("uvicorn/", "h11/", "httptools/")),
    ("asyncio", ("asyncio/", "uvloop/")),
)
# A native frame's C source (``--native``): uvloop and libuv, CPython's _asyncio; httptools' llhttp;
# hiredis; the engine's mypyc build (its ``__native_*.c`` and mypyc's runtime library).
NATIVE_BUCKETS = {
    "asyncio": {"loop.c", "core.c", "linux.c", "stream.c", "queue.h", "loop-watcher.c", "tcp.c", "handles.c",
                "_asynciomodule.c", "_asynciomodule.c.h", "uv-common.c", "timer.c", "heap-inl.h"},
    "uvicorn": {"llhttp.c", "parser.c", "api.c", "http.c"},
    "redis-py": {"reader.c", "read.c", "sds.c", "hiredis.c", "pack.c", "net.c", "alloc.c"},
    "engine": {"CPy.h", "dict_ops.c", "list_ops.c", "generic_ops.c", "str_ops.c", "int_ops.c", "misc_ops.c",
               "exc_ops.c", "getargs.c", "getargsfast.c", "pythonsupport.c", "bytes_ops.c", "set_ops.c"},
}  # fmt: skip
IDLE = ("epoll_wait", "epoll_pwait")  # the event loop waiting: not work, left out of the shares


def frame_bucket(frame: str) -> str | None:
    """The bucket of one frame of py-spy's raw output (``name (file:line)``; a native frame's
    ``name (source.c:line)`` or ``name (library.so)``), None for a frame of no bucket (the standard
    library, the interpreter, libc)."""
    where = frame.rpartition(" (")[2].rstrip(")")
    head, _, line = where.rpartition(":")
    path = head if line.isdigit() else where
    if path.endswith(".py"):
        path = path.split("site-packages/", 1)[-1].split(str(ROOT) + "/", 1)[-1]
        return next((bucket for bucket, folders in PYTHON_BUCKETS if path.startswith(folders)), None)
    if "pydantic_core" in path:
        return "pydantic"
    if path.startswith("__native_"):
        return "engine"
    base = path.rsplit("/", 1)[-1]
    return next((bucket for bucket, sources in NATIVE_BUCKETS.items() if base in sources), None)


def bucket_shares(raw: str) -> collections.Counter[str]:
    """Samples per bucket from py-spy's raw (collapsed) output, one stack a line, root first: a sample
    goes to the bucket of its innermost frame that has one (time in ``json`` called by our code is our
    code's), ``other`` when none has. Only the event loop's thread counts (not uvicorn's pong thread),
    and not while it waits for I/O."""
    counts: collections.Counter[str] = collections.Counter()
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not count.isdigit() or not any(f.startswith("Server.run ") for f in frames):
            continue
        if frames[-1].startswith(IDLE):
            continue
        bucket = next((b for f in reversed(frames) if (b := frame_bucket(f))), "other")
        counts[bucket] += int(count)
    return counts


class Profiler:
    """py-spy sampling one API worker of a server while a round of one side runs (``--profile``)."""

    def __init__(self, where: Path, side: str) -> None:
        found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        if not Path(found).exists():
            raise SystemExit("--profile needs py-spy: pip install 'py-spy>=0.4'")
        self.exe, self.where, self.side, self.counts = found, where, side, collections.Counter[str]()
        self.proc: subprocess.Popen[bytes] | None = None
        self.out = where / f"profile-{side}.txt"

    @staticmethod
    def api_worker(server: subprocess.Popen[bytes]) -> int:
        """The busiest of the server's uvicorn workers (spawned by multiprocessing) so far."""
        workers = [
            p
            for p in psutil.Process(server.pid).children(recursive=True)
            if any("spawn_main" in part for part in p.cmdline())
        ]
        if not workers:
            raise RuntimeError("no uvicorn worker found to profile")
        return max(workers, key=lambda p: sum(p.cpu_times()[:2])).pid

    def start(self, server: subprocess.Popen[bytes]) -> None:
        args = [self.exe, "record", "--pid", str(self.api_worker(server)), "--rate", "200", "--native",
                "--format", "raw", "--output", str(self.out)]  # fmt: skip
        self.log = open(self.where / "py-spy.log", "ab")  # noqa: SIM115 (the child holds it)
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)  # py-spy writes its samples on SIGINT
        self.proc.wait(30)
        self.proc = None
        if self.out.exists():
            raw = self.out.read_text()
            self.counts.update(bucket_shares(raw))
            if keep := os.environ.get("BENCH_PROFILE_RAW"):  # the samples themselves, for a flame graph
                with open(f"{keep}.{self.side}", "a") as kept:
                    kept.write(raw)
            self.out.unlink()

    def shares(self) -> dict[str, float]:
        total = sum(self.counts.values()) or 1
        return {bucket: self.counts[bucket] / total for bucket in PROFILE_BUCKETS}


# uvicorn with 2 workers as `atout serve --workers 2` runs them: each on a socket of its own
BARE_ARGS = [str(ROOT / "bench" / "uvicorn_workers.py"), "baseline_app:app", "--workers", "2"]


class Side:
    """One server measured in rounds: ours, the bare GET+SET endpoint, the empty endpoint (the
    HTTP floor), or ours at a git revision."""

    def __init__(
        self,
        name: str,
        args: list[str],
        env: dict[str, str],
        probe_path: str,
        method: str,
        shares: Side | None = None,
    ) -> None:
        self.name, self.args, self.env, self.probe_path, self.method = name, args, env, probe_path, method
        self.shares = shares  # another side's server, played with another loop (ours, two requests a move)
        self.port = shares.port if shares else free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.rates: list[float] = []  # actions/s (ours) or requests/s (bare), one per round
        self.requests_rates: list[float] = []
        self.latencies: list[float] = []
        self.client_cpu: list[float] = []
        self.server_cpu_us: list[float] = []  # server CPU (every process of it) per action or request
        self.actions = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.shares is not None:
            self.proc = self.shares.proc
            return
        probe = self.base + self.probe_path
        self.proc = start_server([*self.args, "--port", str(self.port)], self.env, probe, self.method)

    def stop(self) -> None:
        if self.shares is not None:
            self.proc = None
            return
        if self.proc is not None:
            stop_server(self.proc)
            self.proc = None

    def server_cpu(self) -> float:
        """CPU seconds used so far by the server's processes (the parent and its workers)."""
        assert self.proc is not None
        root = psutil.Process(self.proc.pid)
        total = 0.0
        for proc in [root, *root.children(recursive=True)]:
            try:
                times = proc.cpu_times()
                total += times.user + times.system
            except psutil.NoSuchProcess:
                pass
        return total

    def round(self, clients: int, seconds: float) -> float:
        server_cpu = self.server_cpu()
        cpu = time.process_time()
        if self.name in ("bare", "floor"):
            count, lat, elapsed = asyncio.run(hammer_baseline(self.base, clients, seconds, self.probe_path))
            requests = count
        else:
            one_request, graphql = self.name != "two", self.name in ("graphql", "ref_graphql")
            played = play_games(self.base, clients, seconds, one_request, graphql)
            count, requests, lat, elapsed = asyncio.run(played)
            self.actions += count
        self.client_cpu.append((time.process_time() - cpu) / elapsed)
        self.server_cpu_us.append((self.server_cpu() - server_cpu) / count * 1e6)
        self.latencies.extend(lat)
        self.rates.append(count / elapsed)
        self.requests_rates.append(requests / elapsed)
        return count / elapsed


def git_worktree(rev: str, where: Path) -> Path:
    """A checkout of ``rev`` (the reference build) beside the bench's temporary files."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(where), rev], check=True)
    probe = "import service.api.app; print(service.api.app.__file__)"
    found = subprocess.run([sys.executable, "-c", probe], cwd=where, capture_output=True, text=True)
    if not found.stdout.strip().startswith(str(where)):  # the editable install must not win over the worktree
        raise RuntimeError(f"the reference would run {found.stdout.strip()}, not the code at {rev}")
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (under a minute)")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=None, help="alternating rounds of each side")
    parser.add_argument("--seconds", type=float, default=None, help="seconds of one round of one side")
    parser.add_argument(
        "--ref",
        default=None,
        help="also measure the service at this git revision, alternating with ours (ratio_vs_ref)",
    )
    parser.add_argument("--graphql", action="store_true", help="also play the moves through GraphQL")
    parser.add_argument("--profile", action="store_true", help="sample one API worker of ours (py-spy)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 6)
    seconds = args.seconds or (3.0 if args.quick else 5.0)
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        env = {
            **os.environ,
            "REDIS_URL": redis_server.url,
            "ATOUT_LOG_LEVEL": "warning",
            # The load comes from one address and leaves games unfinished at each round's end:
            # the limits stay on (their cost is measured) but far above this load.
            "ATOUT_MAX_OPEN_GAMES_PER_CREATOR": "1000000",
            "ATOUT_RATE_CREATE_GAME_PER_ADDRESS": "1000000/minute",
            "ATOUT_RATE_JOIN_PER_ADDRESS": "1000000/minute",
            "ATOUT_RATE_ACT_PER_ADDRESS": "1000000/minute",
            "ATOUT_RATE_ACT": "1000000/minute",
            "ATOUT_RATE_REGISTER_BOT": "1000000/hour",
            "ATOUT_RATE_REGISTER_BOT_PER_ADDRESS": "1000000/hour",
        }
        (Path(tmp) / "baseline_app.py").write_text(BASELINE_APP)
        serve = [sys.executable, "-m", "service.runtime.cli", "serve", "--workers", "2"]
        ours = Side("ours", serve, env, "/healthz", "GET")
        sides = [
            Side("bare", [sys.executable, *BARE_ARGS, "--app-dir", tmp], env, "/touch", "POST"),
            ours,
            Side("floor", [sys.executable, *BARE_ARGS, "--app-dir", tmp], env, "/empty", "POST"),
            Side("two", serve, env, "/healthz", "GET", shares=ours),
        ]
        if args.graphql:
            sides.append(Side("graphql", serve, env, "/healthz", "GET", shares=ours))
        profiled = [side.name for side in sides if side.name in ("ours", "graphql")]
        profilers = {name: Profiler(Path(tmp), name) for name in profiled} if args.profile else {}
        worktree: Path | None = None
        if args.ref:
            worktree = git_worktree(args.ref, Path(tmp) / "ref")
            ref_env = {**env, "PYTHONPATH": str(worktree)}
            ref = Side("ref", serve, ref_env, "/healthz", "GET")
            sides.append(ref)
            if args.graphql:  # the reference's GraphQL moves, for cpu_per_action_ref_graphql_us
                sides.append(Side("ref_graphql", serve, ref_env, "/healthz", "GET", shares=ref))
        try:
            for side in sides:
                if side.name == "ref":
                    assert worktree is not None
                    side.proc = start_server([*side.args, "--port", str(side.port)], side.env,
                                             side.base + side.probe_path, cwd=worktree)  # fmt: skip
                elif side.shares is None:
                    side.start()
            for side in sides:
                if side.shares is not None:
                    side.start()
            for r in range(rounds):
                # Alternate, and rotate who goes first, so drift on a shared machine hits every side.
                order = sides[r % len(sides) :] + sides[: r % len(sides)]
                figures = {
                    side.name: measured(side, args.clients, seconds, profilers.get(side.name))
                    for side in order
                }
                line = " ".join(f"{name}={rate:.0f}/s" for name, rate in figures.items())
                print(f"round {r + 1}/{rounds}: {line}", flush=True)
        finally:
            for side in sides:
                side.stop()
            redis_server.stop()
            if worktree is not None:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)],
                               check=False)  # fmt: skip
    report(sides, args.clients, profilers)


def measured(side: Side, clients: int, seconds: float, profiler: Profiler | None) -> float:
    """One round of ``side``, sampled by ``profiler`` if there is one."""
    if profiler is None:
        return side.round(clients, seconds)
    assert side.proc is not None
    profiler.start(side.proc)
    try:
        return side.round(clients, seconds)
    finally:
        profiler.stop()


def report(sides: list[Side], clients: int, profilers: dict[str, Profiler] | None = None) -> None:
    by = {side.name: side for side in sides}
    bare, ours, floor, two, ref = by["bare"], by["ours"], by["floor"], by["two"], by.get("ref")
    ratios = [o / b for o, b in zip(ours.rates, bare.rates, strict=True)]
    # Requests our client sends per action (create, join and view included), and the ratio a server
    # whose every request cost only the HTTP floor (an empty endpoint) would reach with that client.
    per_action = sum(ours.requests_rates) / sum(ours.rates)
    ceilings = [f / per_action / b for f, b in zip(floor.rates, bare.rates, strict=True)]
    per_request = [o / b for o, b in zip(ours.requests_rates, bare.rates, strict=True)]
    ours_aps, base_rps = statistics.median(ours.rates), statistics.median(bare.rates)
    ours_rps = statistics.median(ours.requests_rates)
    p50, p99 = percentile(ours.latencies, 50) * 1e3, percentile(ours.latencies, 99) * 1e3
    b50, b99 = percentile(bare.latencies, 50) * 1e3, percentile(bare.latencies, 99) * 1e3
    print(f"atout    {clients} clients: {ours_aps:7.0f} actions/s ({ours_rps:.0f} requests/s), "
          f"action p50 {p50:.1f} ms p99 {p99:.1f} ms (medians of {len(ratios)} rounds)")  # fmt: skip
    print(f"baseline {clients} clients: {base_rps:7.0f} requests/s (one GET + one SET), "
          f"p50 {b50:.1f} ms p99 {b99:.1f} ms")  # fmt: skip
    print(f"load generator CPU (share of one core): {statistics.median(ours.client_cpu):.0%} against atout, "
          f"{statistics.median(bare.client_cpu):.0%} against the baseline")  # fmt: skip
    print(f"ratio actions/s : baseline requests/s = {statistics.median(ratios):.2f} "
          f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")  # fmt: skip
    print(f"floor (an empty endpoint, no Redis): {statistics.median(floor.rates):7.0f} requests/s; "
          f"our client sends {per_action:.2f} requests per action, so a server doing nothing but "
          f"answer HTTP would reach ratio {statistics.median(ceilings):.2f}")  # fmt: skip
    print(f"ratio requests/s : baseline requests/s = {statistics.median(per_request):.2f}")
    cpu_ours, cpu_bare, cpu_floor = (statistics.median(side.server_cpu_us) for side in (ours, bare, floor))
    print(f"server CPU: {cpu_ours:.0f} us per action, {cpu_bare:.0f} us per baseline request, "
          f"{cpu_floor:.0f} us per empty request (ratio by CPU {cpu_bare / cpu_ours:.2f})")  # fmt: skip
    figures = [
        f"clients={clients}",
        f"rounds={len(ratios)}",
        f"actions_per_s={ours_aps:.0f}",
        f"requests_per_s={ours_rps:.0f}",
        f"action_p50_ms={p50:.1f}",
        f"action_p99_ms={p99:.1f}",
        f"baseline_requests_per_s={base_rps:.0f}",
        f"baseline_p50_ms={b50:.1f}",
        f"baseline_p99_ms={b99:.1f}",
        f"ratio={statistics.median(ratios):.2f}",
        f"ratio_min={min(ratios):.2f}",
        f"ratio_max={max(ratios):.2f}",
        f"actions={ours.actions}",
        f"requests_per_action={per_action:.2f}",
        f"floor_requests_per_s={statistics.median(floor.rates):.0f}",
        f"ceiling_ratio={statistics.median(ceilings):.2f}",
        f"request_ratio={statistics.median(per_request):.2f}",
        f"server_cpu_us_per_action={cpu_ours:.0f}",
        f"server_cpu_us_per_baseline_request={cpu_bare:.0f}",
        f"server_cpu_us_per_empty_request={cpu_floor:.0f}",
        f"client_cpu_ours={statistics.median(ours.client_cpu):.2f}",
        f"client_cpu_baseline={statistics.median(bare.client_cpu):.2f}",
    ]
    two_ratios = [t / b for t, b in zip(two.rates, bare.rates, strict=True)]
    t99 = percentile(two.latencies, 99) * 1e3
    two_cpu = statistics.median(two.server_cpu_us)
    print(f"the old loop (GET …/actions, then the POST): {statistics.median(two.rates):7.0f} actions/s, "
          f"ratio {statistics.median(two_ratios):.2f}, action p99 {t99:.1f} ms, server CPU {two_cpu:.0f} us "
          "per action")  # fmt: skip
    figures += [
        f"two_request_actions_per_s={statistics.median(two.rates):.0f}",
        f"two_request_ratio={statistics.median(two_ratios):.2f}",
        f"two_request_action_p99_ms={t99:.1f}",
        f"two_request_server_cpu_us_per_action={two_cpu:.0f}",
    ]
    for name in ("graphql", "ref_graphql"):
        if name in by:
            figures += side_figures(by[name], bare, name)
    if ref is not None:
        vs_ref = [o / r for o, r in zip(ours.rates, ref.rates, strict=True)]
        r50, r99 = percentile(ref.latencies, 50) * 1e3, percentile(ref.latencies, 99) * 1e3
        ref_cpu = statistics.median(ref.server_cpu_us)
        print(f"reference {clients} clients: {statistics.median(ref.rates):7.0f} actions/s, "
              f"action p50 {r50:.1f} ms p99 {r99:.1f} ms, server CPU {ref_cpu:.0f} us/action")  # fmt: skip
        print(f"ours : reference actions/s = {statistics.median(vs_ref):.2f} "
              f"(rounds {min(vs_ref):.2f}-{max(vs_ref):.2f})")  # fmt: skip
        figures += [
            f"ref_actions_per_s={statistics.median(ref.rates):.0f}",
            f"ref_action_p99_ms={r99:.1f}",
            f"ref_server_cpu_us_per_action={ref_cpu:.0f}",
            f"ratio_vs_ref={statistics.median(vs_ref):.2f}",
            f"ratio_vs_ref_min={min(vs_ref):.2f}",
            f"ratio_vs_ref_max={max(vs_ref):.2f}",
        ]
    for profiler in (profilers or {}).values():
        figures += profile_figures(profiler)
    print("bench api: " + " ".join(figures))


def side_figures(side: Side, bare: Side, name: str) -> list[str]:
    """A further side playing the same games (GraphQL's moves): printed, and its figures named."""
    ratio = statistics.median([s / b for s, b in zip(side.rates, bare.rates, strict=True)])
    rate, cpu = statistics.median(side.rates), statistics.median(side.server_cpu_us)
    p99 = percentile(side.latencies, 99) * 1e3
    print(f"{name} moves: {rate:7.0f} actions/s, ratio {ratio:.2f}, action p99 {p99:.1f} ms, "
          f"server CPU {cpu:.0f} us per action")  # fmt: skip
    return [f"actions_per_s_{name}={rate:.0f}", f"ratio_{name}={ratio:.2f}",
            f"action_p99_ms_{name}={p99:.1f}", f"cpu_per_action_{name}_us={cpu:.0f}"]  # fmt: skip


def profile_figures(profiler: Profiler) -> list[str]:
    """The profile's buckets, largest first, printed; every bucket's share in the final line."""
    shares = profiler.shares()
    samples = sum(profiler.counts.values())
    print(f"profile of one API worker, side {profiler.side} ({samples} busy samples, by innermost bucket):")
    for bucket, share in sorted(shares.items(), key=lambda item: -item[1]):
        print(f"  {bucket:10} {share:6.1%}")
    prefix = "profile" if profiler.side == "ours" else f"profile_{profiler.side}"
    return [f"{prefix}_{bucket.replace('-', '_')}={share:.3f}" for bucket, share in shares.items()]


if __name__ == "__main__":
    main()
