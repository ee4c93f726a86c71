"""Run a real redis-server as a child process: for ``atout serve`` on a laptop and for tests.

Data lives in a folder of our choosing with the append-only file on, so a laptop
game survives a restart; ``stop()`` asks the server to shut down cleanly.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Collection
from pathlib import Path
from types import TracebackType
from typing import Any

import redis

from service.runtime.redis_binary import find

PR_SET_PDEATHSIG = 1


def _find_prctl() -> Any:
    """libc's ``prctl``, looked up once, in the parent: a child just forked (a ``preexec_fn``, RQ's
    scheduler through ``os.register_at_fork``) then makes one C call, where ``find_library`` would run
    ``ldconfig`` in a subprocess in every new child, a window in which a Ctrl-C printed a traceback."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # the libc this process already has loaded
    except (OSError, AttributeError):
        try:
            return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
        except (OSError, AttributeError):
            return None


_PRCTL = _find_prctl()


def die_with_parent() -> None:
    """In a child process: receive SIGTERM when the parent dies, even by SIGKILL (Linux), so an
    embedded redis-server or worker never outlives ``atout serve``. Elsewhere: nothing."""
    if _PRCTL is None:
        return
    try:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)
    except KeyboardInterrupt:
        # A Ctrl-C reached the group at the moment of the fork (an at-fork hook cannot raise: Python
        # would print it as a traceback). The parent got it too and stops this child; make sure of it.
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be started."""


def free_port(exclude: Collection[int] = ()) -> int:
    """A TCP port on the loopback that is free right now: never 6379, never one of ``exclude``
    (ports about to be bound by us, such as the API's own, which is not bound yet when the
    embedded Redis picks its port)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port != 6379 and port not in exclude:
            return port


class EmbeddedRedis:
    """A redis-server child process bound to 127.0.0.1 on a free port, with a random password (another
    local user or a web page's DNS-rebinding request cannot read the games) and a memory cap whose
    policy is ``noeviction``: when full, writes are refused (503 to clients) and no game is ever lost."""

    def __init__(
        self,
        data_dir: str | Path,
        port: int | None = None,
        appendonly: bool = True,
        password: str | None = None,
        maxmemory: str = "512mb",
        avoid_ports: Collection[int] = (),
    ) -> None:
        # Absolute: redis-server chdirs into --dir before it opens the --logfile given after it.
        self.data_dir = Path(data_dir).resolve()
        self.requested_port = port
        self.port = 0
        self.appendonly = appendonly
        self.password = password if password is not None else secrets.token_urlsafe(24)
        self.maxmemory = maxmemory
        self.avoid_ports = tuple(avoid_ports)
        self.process: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None  # how the last server process ended (0: a clean shutdown)

    @property
    def url(self) -> str:
        """The URL clients use, password included (URL-safe characters only)."""
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    @property
    def public_url(self) -> str:
        """The URL with the password hidden, for logs."""
        return f"redis://:***@127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def alive(self) -> bool:
        """Running (a dead child is reaped here, so it never lingers as a zombie)."""
        return self.process is not None and self.process.poll() is None

    @property
    def url_file(self) -> Path:
        """Where the running server's URL is written, for tools and people looking for it."""
        return self.data_dir / "redis.url"

    def start(self, attempts: int = 5, wait_seconds: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        binary = find()
        last_error = ""
        for _ in range(attempts):
            self.port = self.requested_port or free_port(exclude=self.avoid_ports)
            args = [
                binary,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--dir", str(self.data_dir),
                "--appendonly", "yes" if self.appendonly else "no",
                "--save", "",
                "--daemonize", "no",
                "--logfile", str(self.data_dir / "redis.log"),
                "--protected-mode", "yes",
                "--maxmemory", self.maxmemory,
                "--maxmemory-policy", "noeviction",
                # A game hash (~40 short fields and a ~2 KB state) stays in the compact encoding:
                # 3 KB instead of 5.6 KB a game (bench/memory.py; docs/operations.md). Redis 7 reads
                # the name as hash-max-listpack-value.
                "--hash-max-ziplist-value", "4096",
            ]  # fmt: skip
            # The password goes on stdin as a config file ("-"), never on the command line (ps shows it).
            # A session of its own: a Ctrl-C in the terminal (SIGINT to the whole foreground process
            # group) or a SIGTERM to atout serve's group reaches atout serve alone, which stops this
            # server last, once the workers have finished their jobs (it dies with its parent anyway).
            self.process = subprocess.Popen(
                [*args[:1], "-", *args[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                preexec_fn=die_with_parent,
                start_new_session=True,
            )
            assert self.process.stdin is not None
            self.process.stdin.write(f"requirepass {self.password}\n".encode())
            self.process.stdin.close()
            if self._wait_ready(wait_seconds):
                self._write_url_file()
                return self
            last_error = self._log_tail()
            self._kill()
            if self.requested_port:
                break
        raise EmbeddedRedisError(f"redis-server did not start: {last_error}")

    def restart(self, wait_seconds: float = 10.0) -> EmbeddedRedis:
        """Start again on the same port, data and password after the server died, so every client
        (the API, the workers) reconnects to the URL it already has."""
        self._kill()
        if self.port:
            self.requested_port = self.port
        return self.start(attempts=1, wait_seconds=wait_seconds)

    def _write_url_file(self) -> None:
        """Write the URL (it holds the password) readable by its owner only."""
        fd = os.open(self.url_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # an older file may have had wider permissions
        with os.fdopen(fd, "w") as out:
            out.write(self.url + "\n")

    def _wait_ready(self, wait_seconds: float) -> bool:
        assert self.process is not None
        client = redis.Redis(
            host="127.0.0.1", port=self.port, password=self.password, socket_connect_timeout=0.5
        )
        deadline = time.monotonic() + wait_seconds
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    return False
                try:
                    if client.ping():
                        return True
                except redis.exceptions.ConnectionError:
                    pass
                except redis.exceptions.BusyLoadingError:
                    pass
                time.sleep(0.05)
            return False
        finally:
            client.close()

    def _log_tail(self) -> str:
        log = self.data_dir / "redis.log"
        if not log.exists():
            return "(no log)"
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])

    def _kill(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.returncode = self.process.wait()
        self.process = None

    def stop(self, timeout: float = 10.0) -> int | None:
        """Shut down cleanly (SHUTDOWN: the AOF is fsynced, an RDB written when save points are set);
        kill only if it does not exit in time. Returns the server's exit code (0: a clean shutdown;
        None: it was not running)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.terminate()  # redis-server handles SIGTERM as SHUTDOWN
            try:
                self.returncode = self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._kill()
        else:
            self.returncode = self.process.returncode
        self.process = None
        self.url_file.unlink(missing_ok=True)
        return self.returncode

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with contextlib.suppress(Exception):
            self.stop()
