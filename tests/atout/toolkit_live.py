"""What the toolkit's tests run against: a real ``atout serve`` (a subprocess on a free loopback
port, against the session's redis-server and with a real ``atout worker`` for the built-in bots)
that a test may kill and start again on the same port and Redis, and ``atout bot run`` as a
subprocess whose JSON log lines are read back. Every process is started by PID and killed by PID,
every wait is bounded. A module of its own, not conftest.py (which holds the fixtures): a test module
imports it by a name that no other folder's module has."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from svc_helpers import UNLIMITED_RATES

from service.runtime.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]


ADMIN_TOKEN = "admin-for-toolkit-tests"


# Guests per address: low, so that test_client.py meets a real 429 with its Retry-After.
GUESTS_PER_ADDRESS = "2/second"


def env_of(redis_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_") and k != "REDIS_URL"}
    env.update(
        REDIS_URL=redis_url,
        PYTHONPATH=str(ROOT),
        ATOUT_ADMIN_TOKEN=ADMIN_TOKEN,
        ATOUT_LOG_JSON="true",
        ATOUT_LOG_LEVEL="warning",
        ATOUT_SSE_BLOCK_MS="500",
    )
    env.update(UNLIMITED_RATES)
    env.update(ATOUT_RATE_CREATE_PLAYER_PER_ADDRESS=GUESTS_PER_ADDRESS, **extra)
    return env


def wait_ready(base: str, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, "atout serve exited early"
        with suppress(httpx.TransportError):
            if httpx.get(f"{base}/readyz", timeout=1.0).status_code == 200:
                return
        time.sleep(0.05)
    raise AssertionError(f"{base} never became ready")


def stop(proc: subprocess.Popen[bytes], signum: signal.Signals = signal.SIGKILL, seconds: float = 30) -> int:
    """Send ``signum`` to the process (by its PID) and reap it; SIGKILL if it outlives ``seconds``."""
    if proc.poll() is None:
        with suppress(ProcessLookupError):
            proc.send_signal(signum)
        try:
            proc.wait(seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
    return proc.returncode


@dataclass
class Serve:
    """``atout serve`` on one port and one Redis, which a test may stop and start again."""

    env: dict[str, str]
    folder: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.starts += 1
        with open(self.folder / f"serve-{self.starts}.log", "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(self.port)],
                cwd=self.folder,
                env=self.env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        wait_ready(self.base, self.proc)

    def stop(self, signum: signal.Signals = signal.SIGKILL) -> int:
        assert self.proc is not None
        return stop(self.proc, signum)


def start_worker(redis_url: str, log_path: Path) -> subprocess.Popen[bytes]:
    """A real ``atout worker`` for the built-in bots. Its watchdog enqueues again, after 5 s rather
    than 2 minutes, a bot turn lost when a test kills ``atout serve`` between a move and the job
    that answers it: the service's own recovery, made quick enough for a test."""
    env = env_of(redis_url, ATOUT_BOT_BUDGET="0.01", ATOUT_BOT_TURN_TIMEOUT="5")
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "worker"], env=env, stdout=log, stderr=log
        )


@dataclass
class BotRun:
    """``atout bot run`` as a subprocess; its stderr is the runner's log, one JSON object a line."""

    proc: subprocess.Popen[bytes]
    log_path: Path

    def lines(self) -> list[dict[str, Any]]:
        events = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            with suppress(ValueError):
                event = json.loads(line)
                if isinstance(event, dict) and "event" in event:
                    events.append(event)
        return events

    def events(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.lines() if e["event"] == name]

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")


def wait_for(condition: Callable[[], Any], seconds: float, what: str, run: BotRun | None = None) -> Any:
    """``condition()`` once true; else fail after ``seconds``, with the end of the runner's log."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    tail = "\n".join(run.text().splitlines()[-30:]) if run is not None else ""
    raise AssertionError(f"timed out after {seconds} s waiting for {what}\n{tail}")
