"""Keep ``atout serve``'s children alive: the embedded redis-server and the bot workers.

A laptop or a single-box deployment has no orchestrator to restart a process that died, so
``atout serve`` does it: a thread polls each child, logs a death, and starts it again after a
backoff that doubles (0.5 s, 1 s, 2 s … up to a cap) while the child keeps dying young, and
starts over at 0.5 s once it has stayed up for a while. Polling also reaps the dead child, so a
killed redis-server never lingers as a zombie. ``stop()`` stops the watching first (no restart can
race the shutdown), then stops the workers (they finish their current job) and Redis last.

Children started by the supervisor thread get ``PR_SET_PDEATHSIG`` tied to that thread (Linux sends
the signal when the *thread* that forked a child ends): the thread stops watching at ``stop()`` but
lives on until every child has been stopped in order, so a restarted redis-server is not sent
SIGTERM before the workers have finished their jobs. Nothing outlives ``atout serve``, even when it
is killed with SIGKILL. Each child runs in a session of its own: a terminal's Ctrl-C (SIGINT to the
foreground process group) or a SIGTERM to ``atout serve``'s group reaches ``atout serve`` alone,
which then stops them in that order.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from service.base import logs
from service.runtime.embedded_redis import EmbeddedRedis, die_with_parent

log = logs.get_logger("atout.supervisor")


def children(pid: int) -> list[int]:
    """Direct children of ``pid``, whichever of its threads started them (Linux ``/proc``): what a
    test or an operator checks to see that nothing outlives ``atout serve``."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    out: list[int] = []
    for child in children(pid):
        out += [child, *descendants(child)]
    return out


def cmdline(pid: int) -> str:
    """The command line of ``pid``, or "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


class Child(Protocol):
    """A process the supervisor keeps running."""

    name: str

    @property
    def pid(self) -> int | None: ...

    def start(self) -> None: ...

    def alive(self) -> bool:
        """Running; a dead process is reaped by this call."""
        ...

    def exit_code(self) -> int | None: ...

    def terminate(self) -> None:
        """Ask it to stop (it may finish what it is doing)."""
        ...

    def wait(self, timeout: float) -> None:
        """Wait until it has stopped, killing it if it has not after ``timeout`` seconds."""
        ...


class WorkerChild:
    """An ``atout worker`` process (or any command) that stops on SIGTERM."""

    def __init__(self, name: str, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = dict(env)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def start(self) -> None:
        # its own session: only the supervisor signals it (see the module's docstring)
        self.process = subprocess.Popen(
            self.argv, env=self.env, preexec_fn=die_with_parent, start_new_session=True
        )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exit_code(self) -> int | None:
        return self.process.returncode if self.process is not None else None

    def terminate(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.terminate()  # RQ: warm shutdown, the current job finishes

    def wait(self, timeout: float) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class RedisChild:
    """The embedded redis-server: restarted on the same port, password and data (its AOF), so the
    API and the workers reconnect to the URL they already have."""

    def __init__(self, server: EmbeddedRedis) -> None:
        self.name = "redis-server"
        self.server = server

    @property
    def pid(self) -> int | None:
        return self.server.pid

    def start(self) -> None:
        if self.server.port:
            self.server.restart()
        else:
            self.server.start()

    def alive(self) -> bool:
        return self.server.alive()

    def exit_code(self) -> int | None:
        process = self.server.process
        return process.returncode if process is not None else self.server.returncode

    def terminate(self) -> None:
        pass  # stopped in wait(): EmbeddedRedis.stop() shuts down cleanly and removes redis.url

    def wait(self, timeout: float) -> None:
        self.server.stop(timeout)


@dataclass
class _Watch:
    child: Child
    started_at: float = 0.0
    failures: int = 0
    restart_at: float | None = None
    restarts: int = 0
    last_pid: int | None = None
    delays: list[float] = field(default_factory=list)  # the wait chosen after each death


class Supervisor:
    """Start ``children`` and keep them running until ``stop()``; ``last`` are stopped after the
    others (the store outlives the workers that write to it)."""

    def __init__(
        self,
        children: Sequence[Child],
        last: Sequence[Child] = (),
        max_backoff: float = 30.0,
        first_backoff: float = 0.5,
        stable_after: float = 30.0,
        poll_interval: float = 0.2,
    ) -> None:
        self._watches = [_Watch(c) for c in (*last, *children)]  # start the store first
        self._first = list(children)
        self._last = list(last)
        self.max_backoff = max_backoff
        self.first_backoff = first_backoff
        self.stable_after = stable_after
        self.poll_interval = poll_interval
        self._stopping = threading.Event()
        self._parked = threading.Event()  # the thread no longer checks (nor restarts) any child
        self._released = threading.Event()  # every child is stopped: the thread may end
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start every child not running yet (in this thread: a failure to start at all is the caller's
        error), then watch them all."""
        for watch in self._watches:
            if not watch.child.alive():
                watch.child.start()
            watch.started_at = time.monotonic()
            watch.last_pid = watch.child.pid
        self._thread = threading.Thread(target=self._run, name="atout-supervisor", daemon=True)
        self._thread.start()

    def restarts(self, name: str) -> int:
        return sum(w.restarts for w in self._watches if w.child.name == name)

    def delays(self, name: str) -> list[float]:
        """The backoff chosen after each death of the child ``name``, in order."""
        return [d for w in self._watches if w.child.name == name for d in w.delays]

    def _run(self) -> None:
        try:
            while not self._stopping.wait(self.poll_interval):
                for watch in self._watches:
                    if self._stopping.is_set():
                        break
                    self._check(watch)
        finally:
            self._parked.set()
        # The children this thread restarted die when it ends (PR_SET_PDEATHSIG): it waits for stop()
        # to have stopped them all, in order, first.
        self._released.wait()

    def _check(self, watch: _Watch) -> None:
        child = watch.child
        now = time.monotonic()
        if child.alive():
            return
        if watch.restart_at is None:
            uptime = now - watch.started_at
            watch.failures = 0 if uptime >= self.stable_after else watch.failures + 1
            delay = min(self.max_backoff, self.first_backoff * 2 ** max(0, watch.failures - 1))
            watch.restart_at = now + delay
            watch.delays.append(delay)
            log.warning(
                "child_died",
                child=child.name,
                pid=watch.last_pid,
                exit_code=child.exit_code(),
                uptime_seconds=round(uptime, 1),
                restart_in_seconds=delay,
            )
            return
        if now < watch.restart_at:
            return
        try:
            child.start()
        except Exception as exc:  # e.g. the port was taken meanwhile: try again later, longer
            watch.failures += 1
            delay = min(self.max_backoff, self.first_backoff * 2 ** max(0, watch.failures - 1))
            watch.restart_at = now + delay
            log.error("child_restart_failed", child=child.name, error=str(exc), retry_in_seconds=delay)
            return
        watch.started_at = time.monotonic()
        watch.restart_at = None
        watch.restarts += 1
        watch.last_pid = child.pid
        log.warning("child_restarted", child=child.name, pid=child.pid, restarts=watch.restarts)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop watching (no restart from now on), then stop the workers together (each finishes its
        job) and the store last; each child stopped is logged (``child_stopped``, its exit code)."""
        self._stopping.set()
        if self._thread is not None:
            self._parked.wait(timeout)
        try:
            for group in (self._first, self._last):
                pids = {id(child): child.pid for child in group}
                for child in group:
                    child.terminate()
                for child in group:
                    child.wait(timeout)
                    pid = pids[id(child)]
                    if pid is not None:
                        code = child.exit_code()
                        (log.info if code == 0 else log.warning)(
                            "child_stopped", child=child.name, pid=pid, exit_code=code
                        )
        finally:
            self._released.set()
            if self._thread is not None:
                self._thread.join(timeout)
