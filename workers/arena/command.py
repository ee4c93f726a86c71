"""An external bot (``Command``): a program speaking JSON lines, run under timeouts and always stopped.

Its own module because it is the only part of the arena that deals with processes, pipes,
threads and deadlines, and the part a bot author reads when a program forfeits: what counts as
``timeout``, ``crash`` or ``garbage``, how much of its stderr is quoted, and why nothing can make
the harness hang (see ``_CommandPlayer``).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import select
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import IO

from workers.arena.base import JSON, ArenaError, BotFailure, Player

MAX_LINE = 1 << 20
"""Longest answer line read from a bot, in bytes."""
STDERR_TAIL = 1500
"""Characters of a failed bot's stderr quoted in the forfeit."""
POSIX = os.name == "posix"


@dataclass(frozen=True)
class Command:
    """An external program, split like a shell command line (no shell features)."""

    command: str
    timeout_s: float = 10.0
    """Seconds to answer one decision (the first includes the program's start-up)."""

    def __post_init__(self) -> None:
        if not self.argv():
            raise ArenaError("the bot command is empty")

    @property
    def name(self) -> str:
        return self.command

    def argv(self) -> list[str]:
        return shlex.split(self.command, posix=os.name != "nt")

    def player(self, seat: int, rng: random.Random) -> Player:
        return _CommandPlayer(self)


class _CommandPlayer:
    """A bot process for one seat: started on its first decision, stopped with its process group at the end.

    Nothing waits without a deadline: answers are read by a thread into a queue, requests are
    written without blocking (a bot that stops reading its stdin times out like a silent one),
    and the process is reaped only after its group is killed, so the group id is still its own.
    """

    external = True

    def __init__(self, side: Command) -> None:
        self.side = side
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr: IO[bytes] | None = None
        self.failed = False

    def _start(self) -> subprocess.Popen[bytes]:
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115  (closed in close())
        try:
            proc = subprocess.Popen(
                self.side.argv(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                start_new_session=POSIX,
            )
        except OSError as e:
            raise ArenaError(f"cannot start bot command {self.side.command!r}: {e}") from e
        assert proc.stdin is not None
        if POSIX:
            os.set_blocking(proc.stdin.fileno(), False)
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()
        self.proc = proc
        return proc

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        with proc.stdout:  # closed here, by its only reader, once the bot is gone
            while True:
                line = proc.stdout.readline(MAX_LINE)
                self.lines.put(line)
                if not line:
                    return

    def _stderr_tail(self) -> str:
        if self.stderr is None:
            return ""
        self.stderr.flush()
        self.stderr.seek(0, os.SEEK_END)
        size = self.stderr.tell()
        self.stderr.seek(max(0, size - STDERR_TAIL))
        tail = self.stderr.read().decode("utf-8", "replace").strip()
        return f"; its stderr ends: {tail}" if tail else ""

    def _died(self, proc: subprocess.Popen[bytes]) -> BotFailure:
        code = _exit_code(proc, 2.0)
        status = f"exited with code {code}" if code is not None else "closed its stdout"
        return BotFailure("crash", f"the bot {status} before answering{self._stderr_tail()}")

    def _send(self, proc: subprocess.Popen[bytes], data: bytes) -> None:
        assert proc.stdin is not None
        if not POSIX:
            proc.stdin.write(data)
            proc.stdin.flush()
            return
        fd = proc.stdin.fileno()
        deadline = time.monotonic() + self.side.timeout_s
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([], [fd], [], remaining)[1]:
                raise BotFailure("timeout", f"the bot has not read its stdin for {self.side.timeout_s:g} s")
            with contextlib.suppress(BlockingIOError):
                data = data[os.write(fd, data) :]

    def decide(self, view: JSON, legal: list[JSON]) -> JSON:
        try:
            return self._decide(view, legal)
        except BotFailure:
            self.failed = True
            raise

    def _decide(self, view: JSON, legal: list[JSON]) -> JSON:
        proc = self.proc or self._start()
        with contextlib.suppress(queue.Empty):
            early = self.lines.get_nowait()
            if not early:
                raise self._died(proc)
            raise BotFailure("garbage", f"a line it was not asked for: {_quote(early)}")
        request = json.dumps({"view": view, "legal_actions": legal}, separators=(",", ":")) + "\n"
        try:
            self._send(proc, request.encode())
        except OSError:  # BrokenPipeError: it is gone
            raise self._died(proc) from None
        try:
            line = self.lines.get(timeout=self.side.timeout_s)
        except queue.Empty:
            raise BotFailure(
                "timeout", f"no answer within {self.side.timeout_s:g} s{self._stderr_tail()}"
            ) from None
        if not line:
            raise self._died(proc)
        if len(line) >= MAX_LINE and not line.endswith(b"\n"):
            raise BotFailure("garbage", f"an answer line longer than {MAX_LINE} bytes")
        try:
            answer = json.loads(line)
        except ValueError:
            raise BotFailure("garbage", f"the answer is not JSON: {_quote(line)}") from None
        if not isinstance(answer, dict):
            raise BotFailure("garbage", f"the answer is not a JSON object: {_quote(line)}")
        return answer

    def close(self) -> None:
        proc = self.proc
        if proc is not None:
            with contextlib.suppress(OSError):
                assert proc.stdin is not None
                proc.stdin.close()  # EOF: the match is over
            _exit_code(proc, 0.0 if self.failed else 1.0)
            if POSIX:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)  # the bot, if it lingers, and any children
            with contextlib.suppress(OSError):
                proc.kill()
            proc.wait()
        if self.stderr is not None:
            self.stderr.close()


def _quote(line: bytes) -> str:
    return repr(line.decode("utf-8", "replace").strip()[:200])


def _exit_code(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
    """The bot's exit code once it has exited (None: still running after ``timeout`` seconds).

    On POSIX the process is left unreaped (``WNOWAIT``) so that its process group id cannot
    be reused before ``close`` kills the group.
    """
    if not POSIX:
        try:
            return proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
    deadline = time.monotonic() + timeout
    while True:
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return proc.returncode
        if info is not None:
            return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)
