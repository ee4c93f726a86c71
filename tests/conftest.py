"""Shared fixtures: one real redis-server per test session, a clean database per test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

# pytest puts tests/ on sys.path (rootdir conftest, no __init__.py), where tests/service would
# pass for a namespace package; the project root must be importable even when not pip-installed.
ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from starlette.testclient import TestClient  # noqa: E402

from service.app import create_app  # noqa: E402
from service.embedded_redis import EmbeddedRedis  # noqa: E402
from service.settings import Settings  # noqa: E402


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: EmbeddedRedis) -> str:
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.flushall()
    finally:
        client.close()
    return redis_server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
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
    for category in ("create_game", "join", "act", "register_bot", "open_stream")
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

    from service.embedded_redis import free_port

    port = free_port()
    config = uvicorn.Config(
        create_app(settings.model_copy(update={"sse_block_ms": 500})),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
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
        "PYTHONPATH": ROOT,
    }
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, stdout=log, stderr=log)
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
