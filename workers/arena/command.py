"""An external bot (``Command``): a program speaking the bot protocol (``workers.arena.protocol``) in
JSON lines, run under timeouts and always stopped.

Its own module because it is the only part of the arena that deals with processes, pipes,
threads and deadlines, and the part a bot author reads when a program forfeits: what counts as
``timeout``, ``crash`` or ``garbage``, how much of its stderr is quoted, and why nothing can make
the harness hang (see ``ProgramSeat``). The runner (``atout bot run --cmd``) plays its programs with
the same class: one protocol, one process handling, for the arena and the service.
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
from workers.arena.protocol import (
    ASKS_AN_ANSWER,
    LEGACY,
    VERSIONS,
    Hello,
    Message,
    SeatFeed,
    check_action,
    check_hello,
    encode,
)

MAX_LINE = 1 << 20
"""Longest answer line read from a bot, in bytes."""
STDERR_TAIL = 1500
"""Characters of a failed bot's stderr quoted in the forfeit."""
POSIX = os.name == "posix"
LEGACY_HINT = " (a program written for protocol 0, which has no hello, is run with protocol 0)"


@dataclass(frozen=True)
class Command:
    """An external program, split like a shell command line (no shell features)."""

    command: str
    timeout_s: float = 10.0
    """Seconds to answer one decision (the first includes the program's start-up)."""
    protocol: int = LEGACY
    """The bot protocol it speaks (``workers.arena.protocol``): 1 (``hello``, ``game_start``,
    ``your_turn``, ``hand_end``, ``game_end``), or 0, the turn alone, the arena's first protocol and
    so its default (``atout bot run`` speaks 1 unless told)."""

    def __post_init__(self) -> None:
        if not self.argv():
            raise ArenaError("the bot command is empty")
        if self.protocol not in VERSIONS:
            raise ArenaError(
                f"unknown bot protocol {self.protocol!r}; known: {', '.join(map(str, VERSIONS))}"
            )
        if not self.timeout_s > 0:
            raise ArenaError(f"a bot's time to answer is more than 0 seconds, not {self.timeout_s!r}")

    @property
    def name(self) -> str:
        return self.command

    def argv(self) -> list[str]:
        return shlex.split(self.command, posix=os.name != "nt")

    def player(self, seat: int, rng: random.Random) -> Player:
        return ProgramSeat(self, "arena", None, seat)


class ProgramSeat:
    """A bot process for one seat of one game: started on its first turn (with the ``hello``
    handshake in protocol 1), told the game's messages in order (``SeatFeed``), stopped with its
    process group at the end. The arena's player of a ``Command`` side, and the runner's engine for a
    program.

    Nothing waits without a deadline: answers are read by a thread into a queue, requests are
    written without blocking (a bot that stops reading its stdin times out like a silent one),
    and the process is reaped only after its group is killed, so the group id is still its own.
    """

    external = True

    def __init__(self, side: Command, host: str, game_id: str | None, seat: int) -> None:
        self.side, self.host = side, host
        self.feed = SeatFeed(game_id, seat, side.timeout_s)
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr: IO[bytes] | None = None
        self.failed = False
        self.name: str | None = None
        """The name the bot gave in its ``hello`` (protocol 1)."""

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
        if self.side.protocol > LEGACY:
            try:
                self.name = check_hello(self._ask(proc, Hello(self.host)))
            except BotFailure as failure:
                raise BotFailure(failure.reason, f"at the hello: {failure.detail}{LEGACY_HINT}") from None
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

    def _write(self, proc: subprocess.Popen[bytes], data: bytes, wait_s: float | None = None) -> None:
        assert proc.stdin is not None
        if not POSIX:
            proc.stdin.write(data)
            proc.stdin.flush()
            return
        fd = proc.stdin.fileno()
        wait_s = self.side.timeout_s if wait_s is None else wait_s
        deadline = time.monotonic() + wait_s
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([], [fd], [], remaining)[1]:
                raise BotFailure("timeout", f"the bot has not read its stdin for {wait_s:g} s")
            with contextlib.suppress(BlockingIOError):
                data = data[os.write(fd, data) :]

    def _tell(self, proc: subprocess.Popen[bytes], message: Message, wait_s: float | None = None) -> None:
        """Write ``message`` (nothing when the bot's protocol has no such message). A line the bot
        wrote unasked before it is ``garbage``: the bot answered a message that asks nothing."""
        obj = encode(message, self.side.protocol)
        if obj is None:
            return
        with contextlib.suppress(queue.Empty):
            early = self.lines.get_nowait()
            if not early:
                raise self._died(proc)
            raise BotFailure("garbage", f"a line it was not asked for: {_quote(early)}")
        try:
            self._write(proc, (json.dumps(obj, separators=(",", ":")) + "\n").encode(), wait_s)
        except OSError:  # BrokenPipeError: it is gone
            raise self._died(proc) from None

    def _ask(self, proc: subprocess.Popen[bytes], message: Message) -> JSON:
        """Write ``message`` and read its answer: one JSON object within the timeout."""
        self._tell(proc, message)
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

    def decide(self, view: JSON, legal: list[JSON], version: int | None = None) -> JSON:
        """The bot's action for this turn (``game_start`` and a ``hand_end`` told first when due)."""
        try:
            proc = self.proc or self._start()
            *told, turn = self.feed.turn(view, legal, version)
            for message in told:
                self._tell(proc, message)
            answer = self._ask(proc, turn)
            return answer if self.side.protocol == LEGACY else check_action(answer)
        except BotFailure:
            self.failed = True
            raise

    def finish(self, view: JSON | None, reason: str = "finished", winners: list[int] | None = None) -> None:
        """Tell the end (the final hand's ``hand_end``, then ``game_end``), from the final ``view``;
        a bot gone by then, or no longer reading, is not waited for (a second at most)."""
        proc = self.proc
        messages = self.feed.end(view, reason, winners)
        if proc is None or self.failed:
            return
        try:
            for message in messages:
                assert not isinstance(message, ASKS_AN_ANSWER)
                self._tell(proc, message, wait_s=1.0)
        except BotFailure:
            self.failed = True

    def close(self) -> None:
        """``game_end`` (``stopped``) unless told already, then EOF; the process group is killed
        if it lingers."""
        proc = self.proc
        if proc is not None:
            self.finish(None, "stopped")
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
            self.stderr = None


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
