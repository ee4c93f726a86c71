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

import redis

from service.redis_binary import find


def die_with_parent() -> None:
    """In a child process: receive SIGTERM when the parent dies, even by SIGKILL (Linux), so an
    embedded redis-server or worker never outlives ``atout serve``. Elsewhere: nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


PR_SET_PDEATHSIG = 1


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
            self.process = subprocess.Popen(
                [*args[:1], "-", *args[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                preexec_fn=die_with_parent,
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
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down cleanly (the AOF is fsynced); kill only if it does not exit in time."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()  # redis-server handles SIGTERM as SHUTDOWN
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._kill()
        self.process = None
        self.url_file.unlink(missing_ok=True)

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
