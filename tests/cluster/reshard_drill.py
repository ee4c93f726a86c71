"""The reshard drill: games played through a real API and real bot workers while the Redis Cluster
under them moves slots (tests/cluster/test_reshard.py runs it, bench/reshard.py runs it N times).

:class:`DrillService` starts a 3+3 cluster (tests/cluster/embedded_cluster.py), a plain
redis-server for the RQ queues, one ``atout serve`` and two ``atout worker`` processes, all on
loopback ports, each stopped by its PID on the way out. :func:`play_during` has ``clients`` clients
play Le Rough (one REST seat each, three heuristic bots) while ``migrate`` runs in a thread, started
once the first client's game has ``trigger_version`` moves: a client sends its move with an
Idempotency-Key and an expected version and sends it again on a 503 with Retry-After, as a client
must; it waits for the bots' moves by polling the game. What a run shows, in :class:`RunReport`:
every move the API acknowledged (2xx) is in the game's final log, every match finished, the 5xx
other than a 503 with Retry-After (``fivexx``, which must stay 0) apart from those 503s
(``retried_503``), the longest wait for a bot's move, and the longest one while a migration ran.

:func:`slow_migration_run` is the scenario the issue measured 3 stalls in 11 runs of: the first
game's own slot moved key by key (``CLUSTER SETSLOT … IMPORTING/MIGRATING``, ``MIGRATE … KEYS``
one key at a time with a pause, ``SETSLOT … NODE``) to another master mid-match.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from embedded_cluster import ClusterNode, EmbeddedCluster
from redis.crc import key_slot

from service.runtime.embedded_redis import EmbeddedRedis, free_port
from service.store.keys import game_key

ROOT = Path(__file__).resolve().parents[2]
ADMIN_TOKEN = "reshard-drill-admin"
SEATS = ["open", "bot:heuristic", "bot:heuristic", "bot:heuristic"]
OPTIONS = {"target_score": 200}  # the shortest Le Rough match
STALL_SECONDS = 90.0
"""A game whose version has not moved for this long is stalled: past the watchdog's
``ATOUT_BOT_TURN_TIMEOUT`` (20 s here) and its pass (every 10 s) with room to spare."""
REQUEST_TIMEOUT = 30.0
POLL_SECONDS = 0.1


@dataclass
class GameReport:
    game_id: str
    finished: bool = False
    stalled: bool = False
    acknowledged: dict[int, dict[str, Any]] = field(default_factory=dict)  # version -> the action
    lost: list[int] = field(default_factory=list)
    bot_waits: list[tuple[float, float]] = field(default_factory=list)  # (start, end) monotonic


@dataclass
class RunReport:
    games: list[GameReport] = field(default_factory=list)
    fivexx: list[str] = field(default_factory=list)  # "METHOD path status body": must stay empty
    retried_503: int = 0
    transport_errors: list[str] = field(default_factory=list)
    migrations: list[tuple[float, float]] = field(default_factory=list)  # (start, end) monotonic
    owners: list[tuple[int, int]] = field(default_factory=list)  # the migrated slot's (before, after) port
    mid_match: bool = False  # the migrated game still played when its slot settled (the migration says)
    seconds: float = 0.0

    @property
    def stalled(self) -> int:
        return sum(g.stalled for g in self.games)

    @property
    def lost(self) -> int:
        return sum(len(g.lost) for g in self.games)

    @property
    def unfinished(self) -> int:
        return sum(not g.finished for g in self.games)

    @property
    def max_bot_wait(self) -> float:
        return max((end - start for g in self.games for start, end in g.bot_waits), default=0.0)

    @property
    def max_bot_wait_migrating(self) -> float:
        """The longest wait for a bot's move that overlapped a migration."""
        return max(
            (
                end - start
                for g in self.games
                for start, end in g.bot_waits
                for m_start, m_end in self.migrations
                if start < m_end and end > m_start
            ),
            default=0.0,
        )


class DrillService:
    """The cluster, the queue Redis, one API and two workers (see the module)."""

    def __init__(
        self, folder: Path, workers: int = 2, migration_wait_ms: int = 3000, code: Path = ROOT
    ) -> None:
        self.folder = folder
        self.code = code  # the checkout the API and workers run (another one to compare releases)
        self.cluster = EmbeddedCluster(folder / "cluster")
        self.queues = EmbeddedRedis(folder / "queues", appendonly=False)
        self.workers = workers
        self.migration_wait_ms = migration_wait_ms
        self.processes: list[subprocess.Popen[bytes]] = []
        self.base = ""

    def __enter__(self) -> DrillService:
        try:
            self.cluster.start()
            self.queues.start()
            env = self.env()
            port = free_port()
            self.base = f"http://127.0.0.1:{port}"
            api = [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)]
            self._start(api, env, self.folder / "api.log")
            for n in range(self.workers):
                worker = [sys.executable, "-m", "service.runtime.cli", "worker"]
                self._start(worker, env, self.folder / f"worker{n}.log")
            self._wait_api()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(self.code),
            "REDIS_URL": self.cluster.url,
            "ATOUT_REDIS_CLUSTER": "1",
            "ATOUT_QUEUE_URL": self.queues.url,
            "ATOUT_ADMIN_TOKEN": ADMIN_TOKEN,
            "ATOUT_RATE_LIMITS": "false",
            "ATOUT_ACCESS_LOG": "false",
            "ATOUT_LOG_LEVEL": "warning",
            "ATOUT_BOT_BUDGET": "0.01",
            "ATOUT_BOT_TURN_TIMEOUT": "20",
            "ATOUT_MAX_OPEN_GAMES_PER_CREATOR": "100000",
            "ATOUT_REDIS_MIGRATION_WAIT_MS": str(self.migration_wait_ms),
        }

    def _start(self, args: list[str], env: dict[str, str], log: Path) -> None:
        with open(log, "ab") as out:  # the child holds its own copy of the descriptor
            self.processes.append(
                subprocess.Popen(args, env=env, stdout=out, stderr=out, cwd=self.code, start_new_session=True)
            )

    def _wait_api(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/readyz", timeout=2).status_code == 200:
                    return
            assert all(p.poll() is None for p in self.processes), "a drill process died at start"
            time.sleep(0.2)
        raise RuntimeError("the API did not become ready")

    def stop(self) -> None:
        for proc in self.processes:  # each in a session of its own: its group is ours alone
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.processes:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.processes.clear()
        with contextlib.suppress(Exception):
            self.queues.stop()
        with contextlib.suppress(Exception):
            self.cluster.stop()

    def tracebacks(self, name: str = "api") -> int:
        """Tracebacks written in the log of ``api`` or ``worker<n>``."""
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace").count("Traceback") if path.exists() else 0


# --- the players -----------------------------------------------------------------------------


class Client:
    """One player's HTTP client: a 503 with Retry-After is counted and the request sent again after a
    short pause (its Retry-After, capped: the drill measures how long a game waits); any other 5xx
    is recorded as a failure."""

    def __init__(self, http: httpx.AsyncClient, report: RunReport) -> None:
        self.http = http
        self.report = report

    async def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        deadline = time.monotonic() + STALL_SECONDS
        while True:
            try:
                response = await self.http.request(method, path, **kwargs)
            except httpx.TransportError as error:
                # a kept-alive connection the server closed as the request left (GETs, and moves
                # sent with an Idempotency-Key, are safe to send again); counted apart, not a 5xx
                self.report.transport_errors.append(f"{method} {path} {error!r}")
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
                continue
            if response.status_code == 503 and "Retry-After" in response.headers:
                self.report.retried_503 += 1
                if time.monotonic() > deadline:
                    return response
                await asyncio.sleep(min(0.5, float(response.headers["Retry-After"])))
                continue
            if response.status_code >= 500:
                self.report.fivexx.append(f"{method} {path} {response.status_code} {response.text[:300]}")
            return response


async def play_one(client: Client, rng: random.Random, first: FirstGame | None = None) -> GameReport:
    """Create a game (one REST seat, three heuristic bots), play it to its end, check its log."""
    created = await client.call(
        "POST", "/v1/games", json={"kind": "rough", "seats": SEATS, "options": OPTIONS}
    )
    assert created.status_code == 201, created.text
    gid = created.json()["game"]["game_id"]
    report = GameReport(gid)
    joined = await client.call("POST", f"/v1/games/{gid}/join", json={"seat": 0, "name": "drill"})
    assert joined.status_code == 201, joined.text
    auth = {"Authorization": f"Bearer {joined.json()['token']}"}
    last_version, last_change = -1, time.monotonic()
    bot_since: float | None = None
    while True:
        got = await client.call("GET", f"/v1/games/{gid}")
        now = time.monotonic()
        if got.status_code != 200:  # a 5xx is on the report's list: the game goes on, or stalls
            if now - last_change > STALL_SECONDS:
                report.stalled = True
                break
            await asyncio.sleep(POLL_SECONDS)
            continue
        game = got.json()
        if game["version"] != last_version:
            if bot_since is not None:
                report.bot_waits.append((bot_since, now))
                bot_since = None
            last_version, last_change = game["version"], now
        if first is not None and game["version"] >= first.trigger_version and not first.reached.done():
            first.reached.set_result(gid)
        if game["status"] == "finished":
            report.finished = True
            break
        if now - last_change > STALL_SECONDS:
            report.stalled = True
            break
        if game["to_act"] != 0:
            bot_since = bot_since or now
            await asyncio.sleep(POLL_SECONDS)
            continue
        await _move(client, report, gid, auth, game["version"], rng)
    await _check_log(client, report)
    return report


@dataclass
class FirstGame:
    """The game whose slot is migrated: its id, once it has ``trigger_version`` moves."""

    trigger_version: int
    reached: asyncio.Future[str]


async def _move(
    client: Client, report: GameReport, gid: str, auth: dict[str, str], version: int, rng: random.Random
) -> None:
    legal = await client.call("GET", f"/v1/games/{gid}/actions", headers=auth)
    if legal.status_code != 200:
        return  # moved on meanwhile (a 409 or a finished game): the next poll tells
    action = rng.choice(legal.json()["legal_actions"])
    if action["type"] == "discard" and "choices" in action:
        action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
    headers = {**auth, "Idempotency-Key": f"{gid}-{version}"}
    body = {"action": action, "expected_version": version}
    answer = await client.call("POST", f"/v1/games/{gid}/actions", json=body, headers=headers)
    if 200 <= answer.status_code < 300:
        report.acknowledged[answer.json()["version"]] = answer.json()["action"]


async def _check_log(client: Client, report: GameReport) -> None:
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    got = await client.call("GET", f"/v1/games/{report.game_id}/log", headers=admin)
    assert got.status_code == 200, got.text
    logged = {entry["version"]: entry["action"] for entry in got.json()["actions"]}
    report.lost = sorted(v for v, action in report.acknowledged.items() if logged.get(v) != action)


def play_during(
    service: DrillService,
    migrate: Callable[[str, RunReport], None],
    clients: int = 12,
    trigger_version: int = 12,
    seed: int = 0,
) -> RunReport:
    """``clients`` matches played at once; ``migrate(first game's id, report)`` runs in a thread once
    the first game has ``trigger_version`` moves, its span recorded as a migration window."""
    report = RunReport()
    began = time.monotonic()

    async def main() -> None:
        limits = httpx.Limits(max_connections=clients * 2)
        async with httpx.AsyncClient(base_url=service.base, timeout=REQUEST_TIMEOUT, limits=limits) as http:
            client = Client(http, report)
            first = FirstGame(trigger_version, asyncio.get_running_loop().create_future())
            tasks = [asyncio.create_task(play_one(client, random.Random(seed), first))]
            tasks += [
                asyncio.create_task(play_one(client, random.Random(seed * 1000 + n)))
                for n in range(1, clients)
            ]
            await asyncio.wait([first.reached, tasks[0]], return_when=asyncio.FIRST_COMPLETED)
            try:
                if first.reached.done():
                    gid = first.reached.result()
                    window_start = time.monotonic()
                    await asyncio.to_thread(migrate, gid, report)
                    report.migrations.append((window_start, time.monotonic()))
                report.games = list(await asyncio.gather(*tasks))
            finally:
                for task in tasks:  # a failed migration: the players stop with it
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    report.seconds = time.monotonic() - began
    return report


# --- the migrations ----------------------------------------------------------------------------


def slot_of(gid: str) -> int:
    return int(key_slot(game_key(gid).encode()))


def other_master(
    cluster: EmbeddedCluster, slot: int, prefer: ClusterNode | None = None, old_only: bool = False
) -> ClusterNode:
    """A master other than the one that owns ``slot`` now: ``prefer`` when it is one; with
    ``old_only``, one of the cluster's first six nodes (one every client has seen owning slots)."""
    owner = cluster.slot_owner(slot)
    if prefer is not None and prefer.port != owner.port and prefer.alive:
        return prefer
    first = {n.port for n in cluster.nodes[:6]} if old_only else {n.port for n in cluster.nodes}
    return next(n for n in cluster.master_nodes() if n.port != owner.port and n.port in first)


def game_running(service: DrillService, gid: str) -> bool:
    """Whether the game is still being played (read through the API, as a client would)."""
    for _ in range(50):
        got = httpx.get(f"{service.base}/v1/games/{gid}", timeout=REQUEST_TIMEOUT)
        if got.status_code == 200:
            return bool(got.json()["status"] == "active")
        time.sleep(0.2)  # a 503 with Retry-After
    raise AssertionError(f"the game cannot be read: {got.status_code} {got.text[:200]}")


def move_game_slot(
    cluster: EmbeddedCluster, gid: str, report: RunReport, pause: float, target: ClusterNode | None = None
) -> None:
    """The game's own slot migrated key by key to another master (``target`` if it is one), its
    owner before and after recorded."""
    slot = slot_of(gid)
    dest = other_master(cluster, slot, target)
    # the move log last: the fold that erased it was refused while it alone was left on the source
    source = cluster.migrate_slot(slot, dest, pause=pause, last=lambda key: key.startswith("atout:log:"))
    report.owners.append((source.port, cluster.slot_owner(slot).port))


def slow_migration_run(
    service: DrillService, clients: int = 12, pause: float = 0.25, seed: int = 0
) -> RunReport:
    """One run of the issue's scenario (see the module): fresh matches, the first game's slot migrated
    key by key to another master once it has 12 moves."""

    def migrate(gid: str, report: RunReport) -> None:
        move_game_slot(service.cluster, gid, report, pause)
        report.mid_match = game_running(service, gid)

    return play_during(service, migrate, clients, seed=seed)


@contextlib.contextmanager
def drill_service(workers: int = 2, code: Path = ROOT) -> Iterator[DrillService]:
    """A :class:`DrillService` in a temporary folder, stopped and removed on the way out."""
    with (
        tempfile.TemporaryDirectory(prefix="atout-reshard-") as tmp,
        DrillService(Path(tmp), workers, code=code) as service,
    ):
        yield service


def summary(reports: list[RunReport]) -> str:
    """The figures of ``reports`` on one line (bench/reshard.py prints it last)."""
    return (
        f"runs={len(reports)} stalled={sum(r.stalled for r in reports)} lost={sum(r.lost for r in reports)} "
        f"unfinished={sum(r.unfinished for r in reports)} "
        f"max_bot_wait_s={max((r.max_bot_wait_migrating for r in reports), default=0.0):.2f} "
        f"fivexx={sum(len(r.fivexx) for r in reports)} retried_503={sum(r.retried_503 for r in reports)}"
    )
