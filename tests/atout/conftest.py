"""The toolkit tests' fixtures: a live ``atout serve`` and worker (``served``, ``serve_factory``) and
``atout bot run`` subprocesses (``bot_runs``), over tests/atout/toolkit_live.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from toolkit_live import ROOT, BotRun, Serve, env_of, start_worker, stop

from service.runtime.embedded_redis import EmbeddedRedis


@pytest.fixture
def serve_factory(tmp_path: Path) -> Iterator[Callable[..., Serve]]:
    made: list[Serve] = []

    def make(redis_url: str, **extra: str) -> Serve:
        folder = tmp_path / f"serve{len(made)}"
        folder.mkdir()
        served = Serve(env_of(redis_url, **extra), folder)
        made.append(served)
        served.start()
        return served

    try:
        yield make
    finally:
        for served in made:
            if served.proc is not None:
                stop(served.proc)


@pytest.fixture(scope="module")
def served(redis_server: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """``atout serve`` against the session's redis-server (emptied first), its bots played by a real
    worker: one for the module's tests (each makes its own bot accounts and games), which a test may
    stop and start again."""
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.flushall()
    finally:
        client.close()
    folder = tmp_path_factory.mktemp("served")
    worker = start_worker(redis_server.url, folder / "worker.log")
    served = Serve(env_of(redis_server.url), folder)
    try:
        served.start()
        yield served
    finally:
        if served.proc is not None:
            stop(served.proc)
        stop(worker, signal.SIGTERM)


@pytest.fixture
def bot_runs(tmp_path: Path) -> Iterator[Callable[..., BotRun]]:
    """Start ``atout bot run <args>`` (in the repository's folder, so ``examples/…`` resolve), or
    ``python -m atout.runner run <args>`` with ``entry=("atout.runner",)``."""
    runs: list[BotRun] = []

    def start(*args: str, entry: tuple[str, ...] = ("service.runtime.cli", "bot")) -> BotRun:
        log_path = tmp_path / f"runner-{len(runs)}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")} | {"PYTHONPATH": str(ROOT)}
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", *entry, "run", *args],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        run = BotRun(proc, log_path)
        runs.append(run)
        return run

    try:
        yield start
    finally:
        for run in runs:
            stop(run.proc)
