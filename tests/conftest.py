"""Shared fixtures: one real redis-server per test session, a clean database per test."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path

import httpx
import pytest
import redis
from starlette.testclient import TestClient

from service.api.app import create_app
from service.base.settings import Settings
from service.runtime.embedded_redis import EmbeddedRedis
from service.runtime.http_server import server_options

ROOT = Path(__file__).resolve().parent.parent

SESSION_REDIS: list[EmbeddedRedis] = []

AREAS = {"engine", "service", "workers", "browser", "cluster", "image", "k8s", "atout"}
CONTRACT_TOOLS = {"test_contract_tools.py", "test_generators.py", "test_web_fairness.py", "test_wheel.py"}
ENGINE_CHECKS = {"test_fairness_spec.py", "test_standalone.py"}
SERIAL = {
    # They kill or restart processes (redis-server, workers, `atout serve`) and wait for what follows
    # within deadlines: beside a second worker's load those waits are what would fail, not the code.
    "tests/service/test_shutdown.py",
    "tests/service/test_supervision.py",
    "tests/service/test_worker_kill.py",
    "tests/service/test_faults.py",
    "tests/service/test_cli.py",
    "tests/cluster/test_failover.py",
    "tests/cluster/test_reshard.py",  # its own cluster, API and workers; a master added, then removed
    # The drills below stop and start processes of their own only, but beside the parallel pass a test
    # after them on the same xdist worker met "I/O operation on closed file" in its captured output (not
    # reproduced in one process): they stay here until that is understood.
    "tests/service/test_restore.py",
    "tests/service/test_upgrade_drill.py",
    "tests/atout/test_runner.py",  # restarts `atout serve` mid-match, signals the runner
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test gets its area's marker from its folder, and the process-killing ones ``serial``
    (``make test`` runs ``-m "not serial"`` on two workers, then ``-m serial`` alone)."""
    for item in items:
        path = Path(str(item.fspath)).relative_to(ROOT)
        area = path.parts[1] if len(path.parts) > 2 else None
        if area in AREAS:
            item.add_marker(area)
        elif path.name in CONTRACT_TOOLS:
            item.add_marker("contracts")
        elif path.name in ENGINE_CHECKS:
            item.add_marker("engine")
        if path.as_posix() in SERIAL:
            item.add_marker("serial")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    SESSION_REDIS.append(server)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: EmbeddedRedis) -> str:
    # A deadline: a session Redis that stopped answering fails this test's setup with a RedisError
    # rather than hanging it until pytest-timeout ends the whole xdist worker.
    client = redis.Redis.from_url(redis_server.url, socket_timeout=30, socket_connect_timeout=10)
    try:
        client.flushall()
    finally:
        client.close()
    return redis_server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(
        redis_url, decode_responses=True, socket_timeout=30, socket_connect_timeout=10
    )
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


ADMIN_TOKEN = "admin-secret-for-tests"


@pytest.fixture
def admin_token() -> str:
    return ADMIN_TOKEN


@pytest.fixture
def settings(redis_url: str) -> Settings:
    return Settings(redis_url=redis_url, admin_token=ADMIN_TOKEN, log_json=True, **HIGH_RATES)


# Rate limits stay on in tests (counted in the test Redis), high enough for a test that plays many
# games quickly from one address; tests/service/test_rate_limits.py sets low ones.
HIGH_RATES = {
    f"rate_{category}{scope}": "100000/minute"
    for category in ("create_game", "join", "act", "register_bot", "create_player", "open_stream")
    for scope in ("", "_per_address")
}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def live_server(settings: Settings) -> Iterator[str]:
    """The app served by uvicorn on a free port in a thread: for streaming (SSE) clients."""
    import threading
    import time

    import uvicorn

    from service.runtime.embedded_redis import free_port

    port = free_port()
    served = settings.model_copy(update={"sse_block_ms": 500})
    config = uvicorn.Config(
        create_app(served),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        **server_options(served),  # the guards and limits `atout serve` runs with
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


@pytest.fixture
def rq_worker(settings: Settings, tmp_path: Path) -> Iterator[str]:
    """A real `atout worker` process (all queues) against the test Redis."""
    import os
    import subprocess

    env = {
        **os.environ,
        "REDIS_URL": settings.redis_url or "",
        "ATOUT_REDIS_CLUSTER": "1" if settings.redis_cluster else "0",
        "ATOUT_QUEUE_URL": settings.queue_url or "",
        "ATOUT_BOT_BUDGET": "0.01",
        "PYTHONPATH": str(ROOT),
    }
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "worker"], env=env, stdout=log, stderr=log
    )
    try:
        yield settings.redis_url or ""
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def machine_snapshot() -> list[str]:
    """Disk, memory, load, processes and the session Redis: what explains a run that fails on
    another machine (CI) but not here."""
    import os
    import shutil
    import tempfile

    lines = []
    for folder in (os.getcwd(), tempfile.gettempdir()):
        usage = shutil.disk_usage(folder)
        lines.append(f"disk {folder}: {usage.free / 2**20:,.0f} MiB free of {usage.total / 2**20:,.0f}")
    with suppress(OSError):
        meminfo = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        lines.append(f"memory available: {meminfo['MemAvailable'].strip()}")
        lines.append(f"load average: {Path('/proc/loadavg').read_text().strip()}")
        processes = [p for p in os.listdir("/proc") if p.isdigit()]
        lines.append(f"processes: {len(processes)}, threads of pytest: {len(os.listdir('/proc/self/task'))}")
        names: dict[str, int] = {}
        for pid in processes:
            with suppress(OSError):
                name = Path(f"/proc/{pid}/comm").read_text().strip()
                names[name] = names.get(name, 0) + 1
        common = sorted(((n, c) for n, c in names.items() if c > 1), key=lambda item: -item[1])[:10]
        lines.append("more than one by name: " + ", ".join(f"{name}: {count}" for name, count in common))
    for server in SESSION_REDIS:
        try:
            client = redis.Redis.from_url(server.url, socket_timeout=2, decode_responses=True)
            info = {**client.info("memory"), **client.info("persistence"), **client.info("clients")}
            client.close()
            keys = ("used_memory_human", "maxmemory_human", "aof_last_write_status", "connected_clients")
            lines.append(
                f"session redis (pid {server.pid}): " + ", ".join(f"{k}={info.get(k)}" for k in keys)
            )
        except redis.RedisError as error:
            lines.append(f"session redis (pid {server.pid}): {error!r}")
        with suppress(OSError):
            tail = Path(server.data_dir, "redis.log").read_text().splitlines()[-4:]
            lines.append("its log ends: " + " | ".join(tail))
    return lines


FIRST_FAILURE: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed and not FIRST_FAILURE:
        FIRST_FAILURE.extend([f"at the first failure ({report.nodeid}, {report.when}):", *machine_snapshot()])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> None:
    """After a failed run, what the machine looked like at its first failure and at its end."""
    if exitstatus == 0 or not FIRST_FAILURE:
        return
    terminalreporter.section("the machine")
    for line in [*FIRST_FAILURE, "at the end:", *machine_snapshot()]:
        terminalreporter.write_line(line)


# --- what a deployment serves ---------------------------------------------------------------------

STATIC = ROOT / "service" / "static"
DEV_ONLY = {"play/tsconfig.json"}  # tsc's settings for checking the page's JSDoc: never served in use


def shipped_assets() -> dict[str, bytes]:
    """Every page and asset the checkout serves, by path, with the bytes of each static file (pages
    are generated: None). Swagger UI's assets come from its own package, not from this tree."""
    assets: dict[str, bytes] = {
        f"/static/{path.relative_to(STATIC).as_posix()}": path.read_bytes()
        for path in sorted(STATIC.rglob("*"))
        if path.is_file() and path.relative_to(STATIC).as_posix() not in DEV_ONLY
    }
    return assets


PAGES = ("/play", "/play/tournament", "/docs", "/graphql", "/reference", "/reference/graphql")
"""The HTML pages the service serves (each checked with the scripts and styles it names)."""


@pytest.fixture
def serves_everything() -> Callable[[str], None]:
    """A check that the service at a base URL serves every page and asset the checkout serves:
    ``/play`` and its tournament standings page, ``/docs``, GraphiQL at ``/graphql``, the reference at
    ``/reference`` and ``/reference/graphql``, ``/openapi.json``,
    the scripts the pages name, and
    each static file byte for byte (the installed wheel and the image must ship them all)."""

    def check(base: str) -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            for page in PAGES:
                response = http.get(page, headers={"Accept": "text/html"})
                assert response.status_code == 200, (page, response.status_code, response.text[:300])
                for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', response.text):
                    assert http.get(src).status_code == 200, (page, src)
            assert http.get("/openapi.json").json()["openapi"].startswith("3.")
            for path, content in shipped_assets().items():
                response = http.get(path)
                assert response.status_code == 200, (path, response.status_code)
                assert response.content == content, f"{path} differs from the checkout's"
            # what the answers read besides the static files: the catalogue and its French sentences
            problem = http.get("/v1/games/nosuchgame", headers={"Accept-Language": "fr"})
            assert problem.status_code == 404 and problem.headers["content-language"] == "fr", problem.text
            assert problem.json()["code"] == "game_not_found" and problem.json()["title"] != "No such game"

    return check
