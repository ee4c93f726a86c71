"""The local harness for bot authors (``atout arena``): matches between two sides over duplicate deals.

A *side* is a built-in strategy (``random``, ``heuristic``, ``expert``: ``workers.bots``), an
external program (``Command``), or a Python function (``Function``). An external program is
started once per seat it holds, fresh for each match (so a bot never sees its partner's cards,
docs/rules.md ALL-7), and speaks one JSON line each way per decision::

    stdin:  {"view": <engine.view for its seat>, "legal_actions": [<engine.legal_actions>]}
    stdout: {"type": "play", "card": "AS"}

the same ``view`` and ``legal_actions`` that the service's bot stream sends (``your_turn``).
Its stdin closes when the match ends. An answer that is not one JSON object, an illegal action,
a crash or no answer within the per-decision timeout is a *forfeit*: the match ends there and
is lost by that side, with the reason in the result. Nothing can make the harness hang.

Seats. In Le 500 and Le Rough side A holds seats 0+2 and side B 1+3 (F5-2, RG-2). Five-handed
euchre has no fixed teams (E5-2): side A holds seat 0 alone against four players of side B.
Duplicate deals: each seed is played twice with the seats swapped (then A holds 1+3, or in
euchre seats 1..4 against B alone at seat 0), so both sides get the same cards and the luck
of the deal cancels; over a pair, two equal sides each win half (in euchre, a lone player
wins about 1/5 and four players about 4/5: the pair averages 1/2).

A side wins a match when one of its seats is among the winners; when both are (euchre ties
share the win, E5-12) the match is a tie, which counts half in A's win rate. Everything but the
decision times is determined by the seeds (``expert`` only with ``playouts``: a time budget
depends on the machine).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import random
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Literal, Protocol

import engine
from workers import bots

JSON = dict[str, Any]
SideName = Literal["A", "B"]
Outcome = Literal["A", "B", "tie"]
MAX_LINE = 1 << 20
"""Longest answer line read from a bot, in bytes."""
MAX_HANDS = 500
"""Hands after which a match without a winner stops as a tie (Le 500 and Le Rough deal again
when nobody bids, F5-9, RG-8, so bots that never bid would play forever)."""
STDERR_TAIL = 1500
"""Characters of a failed bot's stderr quoted in the forfeit."""


class ArenaError(ValueError):
    """The arena cannot run as asked (unknown game or level, bad options, a command that cannot start)."""


class BotFailure(Exception):
    """An external bot did not give a usable answer: the match is forfeited."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


class Player(Protocol):
    """One seat's decision maker for one match."""

    external: bool
    """True when its answers are untrusted: an illegal one is a forfeit, not a bug."""

    def decide(self, view: JSON, legal: list[JSON]) -> JSON: ...

    def close(self) -> None: ...


# -- sides -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Builtin:
    """A strategy of ``workers.bots``; ``playouts`` makes ``expert`` deterministic."""

    level: str
    budget_s: float = 0.2
    playouts: int | None = None

    def __post_init__(self) -> None:
        if self.level not in bots.LEVELS:
            raise ArenaError(f"unknown bot level {self.level!r}; known: {', '.join(bots.LEVELS)}")

    @property
    def name(self) -> str:
        return self.level

    def player(self, seat: int, rng: random.Random) -> Player:
        return _BuiltinPlayer(self, rng)


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


@dataclass(frozen=True)
class Function:
    """An in-process Python bot, ``fn(view, legal_actions, rng) -> action``; its answers are checked."""

    fn: Callable[[JSON, list[JSON], random.Random], JSON]
    name: str = "function"

    def player(self, seat: int, rng: random.Random) -> Player:
        return _FunctionPlayer(self.fn, rng)


Side = Builtin | Command | Function


class _BuiltinPlayer:
    external = False

    def __init__(self, side: Builtin, rng: random.Random) -> None:
        self.side, self.rng = side, rng

    def decide(self, view: JSON, legal: list[JSON]) -> JSON:
        s = self.side
        return bots.choose(s.level, view, legal, self.rng, budget_s=s.budget_s, playouts=s.playouts)

    def close(self) -> None:
        pass


class _FunctionPlayer:
    external = True

    def __init__(self, fn: Callable[[JSON, list[JSON], random.Random], JSON], rng: random.Random) -> None:
        self.fn, self.rng = fn, rng

    def decide(self, view: JSON, legal: list[JSON]) -> JSON:
        return self.fn(view, legal, self.rng)

    def close(self) -> None:
        pass


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


POSIX = os.name == "posix"


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


# -- matches -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Forfeit:
    """Why a side lost a match without finishing it."""

    side: SideName
    seat: int
    reason: str
    """``timeout``, ``crash``, ``garbage`` (not one JSON object, a line not asked for) or ``illegal``."""
    detail: str
    hand: int
    """The hand (deal) of the match in which it happened, from 1."""


@dataclass(frozen=True)
class MatchResult:
    """One match: who held which seats, who won, and how (``forfeit``, ``unfinished``)."""

    seed: int
    a_seats: tuple[int, ...]
    outcome: Outcome
    scores: list[int]
    """The match's scores as the engine keeps them (per team in Le 500 and Le Rough, per seat in euchre)."""
    score_diff: float | None
    """A's mean seat score minus B's; None for a forfeited match."""
    hands: int
    decisions: int
    forfeit: Forfeit | None = None
    unfinished: bool = False
    """Stopped after ``max_hands`` hands without a winner (say, four bots that never bid): a tie."""


def seat_plan(game: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seats of side A in the two matches of a duplicate deal."""
    players = engine.game(game).players
    if players == 4:
        return (0, 2), (1, 3)
    return (0,), tuple(range(1, players))


def _seat_score(m: engine.Match, seat: int) -> int:
    # Team games keep one score per team (seats 0+2 and 1+3), euchre one per seat.
    return m.scores[seat % 2] if len(m.scores) == 2 else m.scores[seat]


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def match_rng(seed: int, a_seats: Sequence[int], seat: int) -> random.Random:
    """The random source of one seat's built-in bot: fixed by the seed, the seating and the seat."""
    return random.Random(f"arena:{seed}:{','.join(map(str, a_seats))}:{seat}")


def play_match(
    game: str,
    seed: int,
    a_seats: Sequence[int],
    a: Side,
    b: Side,
    options: JSON | None = None,
    times: dict[SideName, list[float]] | None = None,
    max_hands: int = MAX_HANDS,
) -> MatchResult:
    """One match from ``seed``: side A at ``a_seats``, side B at the others.

    ``times`` (when given) collects each side's decision times, in seconds.
    """
    m = engine.new_match(game, seed=seed, options=options)
    mine = frozenset(a_seats)
    players: dict[int, Player] = {}
    decisions = 0
    try:
        while m.to_act is not None and m.hand_number <= max_hands:
            seat = m.to_act
            side: SideName = "A" if seat in mine else "B"
            if seat not in players:
                players[seat] = (a if side == "A" else b).player(seat, match_rng(seed, a_seats, seat))
            player = players[seat]
            view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
            started = time.perf_counter()
            try:
                action = player.decide(view, legal)
            except BotFailure as f:
                return _forfeited(
                    m, seed, a_seats, decisions, Forfeit(side, seat, f.reason, f.detail, m.hand_number)
                )
            if times is not None:
                times.setdefault(side, []).append(time.perf_counter() - started)
            try:
                engine.push(m, seat, action)
            except engine.IllegalAction as e:
                if not player.external:
                    raise
                detail = f"{json.dumps(action)[:300]} refused: {e.code} (rule {e.rule}): {e}"
                refused = Forfeit(side, seat, "illegal", detail, m.hand_number)
                return _forfeited(m, seed, a_seats, decisions, refused)
            decisions += 1
    finally:
        for p in players.values():
            p.close()
    unfinished = m.to_act is not None
    winners = set(m.winners or ())
    a_won, b_won = bool(winners & mine), bool(winners - mine)
    outcome: Outcome = "tie" if a_won == b_won else "A" if a_won else "B"
    others = [s for s in range(m.players) if s not in mine]
    diff = _mean([_seat_score(m, s) for s in a_seats]) - _mean([_seat_score(m, s) for s in others])
    hands = min(m.hand_number, max_hands)
    return MatchResult(
        seed, tuple(a_seats), outcome, list(m.scores), diff, hands, decisions, None, unfinished
    )


def _forfeited(m: engine.Match, seed: int, a_seats: Sequence[int], decisions: int, f: Forfeit) -> MatchResult:
    winner: Outcome = "B" if f.side == "A" else "A"
    return MatchResult(seed, tuple(a_seats), winner, list(m.scores), None, m.hand_number, decisions, f)


# -- a run -------------------------------------------------------------------------------------


@dataclass
class ArenaResult:
    """The matches of a run, in order (each seed twice), with the figures drawn from them."""

    game: str
    a: str
    b: str
    options: JSON
    seeds: list[int]
    matches: list[MatchResult] = field(default_factory=list)
    times: dict[SideName, list[float]] = field(default_factory=dict)
    max_hands: int = MAX_HANDS

    def count(self, outcome: Outcome) -> int:
        return sum(r.outcome == outcome for r in self.matches)

    def forfeits(self, side: SideName) -> list[MatchResult]:
        return [r for r in self.matches if r.forfeit is not None and r.forfeit.side == side]

    @property
    def win_rate(self) -> float:
        """A's share of the matches, a tie counting half."""
        n = len(self.matches)
        return (self.count("A") + self.count("tie") / 2) / n if n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.count("A") + self.count("tie") / 2, len(self.matches))

    @property
    def mean_score_diff(self) -> float | None:
        """A's mean seat score minus B's, over the matches played to the end."""
        diffs = [r.score_diff for r in self.matches if r.score_diff is not None]
        return _mean(diffs) if diffs else None

    def timing(self) -> dict[str, JSON]:
        """Each side's decision times in milliseconds (p50, p99, max): not determined by the seeds."""
        out: dict[str, JSON] = {}
        for side, xs in sorted(self.times.items()):
            ys = sorted(xs)
            out[side] = {
                "decisions": len(ys),
                "p50_ms": _quantile_ms(ys, 0.5),
                "p99_ms": _quantile_ms(ys, 0.99),
                "max_ms": _quantile_ms(ys, 1.0),
            }
        return out

    def to_json(self) -> JSON:
        lo, hi = self.interval
        return {
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "options": self.options,
            "seeds": self.seeds,
            "matches": len(self.matches),
            "wins_a": self.count("A"),
            "wins_b": self.count("B"),
            "ties": self.count("tie"),
            "win_rate_a": self.win_rate,
            "ci95_a": [lo, hi],
            "mean_score_diff": self.mean_score_diff,
            "forfeits_a": len(self.forfeits("A")),
            "forfeits_b": len(self.forfeits("B")),
            "unfinished": sum(r.unfinished for r in self.matches),
            "results": [asdict(r) for r in self.matches],
            "timing": self.timing(),
        }

    def summary(self) -> str:
        """The result for a person: wins, win rate with its interval, score difference, forfeits."""
        lo, hi = self.interval
        n = len(self.matches)
        diff = self.mean_score_diff
        unfinished = sum(r.unfinished for r in self.matches)
        lines = [
            f"{self.game}: A = {self.a}  vs  B = {self.b}",
            f"  {n} matches: seeds {self.seeds[0]}..{self.seeds[-1]}, each played from both sides"
            + (f", options {json.dumps(self.options)}" if self.options else ""),
            f"  A wins {self.count('A')}, B wins {self.count('B')}, ties {self.count('tie')}"
            + (f" ({unfinished} stopped unfinished after {self.max_hands} hands)" if unfinished else ""),
            f"  A's win rate {self.win_rate:.1%}  (95% interval {lo:.1%} .. {hi:.1%}; a tie counts half)",
            "  mean score difference A - B: " + ("n/a" if diff is None else f"{diff:+.1f}"),
        ]
        labels: tuple[tuple[SideName, str], ...] = (("A", self.a), ("B", self.b))
        for side, label in labels:
            lost = self.forfeits(side)
            if lost:
                lines.append(f"  side {side} ({label}) forfeited {len(lost)} match(es):")
                for r in lost[:5]:
                    f = r.forfeit
                    assert f is not None
                    lines.append(f"    seed {r.seed}, seat {f.seat}, hand {f.hand}: {f.reason}: {f.detail}")
                if len(lost) > 5:
                    lines.append(f"    ... and {len(lost) - 5} more")
        for who, t in self.timing().items():
            lines.append(f"  {who} decision time: p50 {t['p50_ms']:.2f} ms, p99 {t['p99_ms']:.2f} ms")
        return "\n".join(lines)


def _quantile_ms(ys: list[float], q: float) -> float:
    return round(ys[min(len(ys) - 1, int(q * len(ys)))] * 1e3, 3)


def duplicate_seeds(matches: int, seed: int) -> list[int]:
    """The seeds of ``matches`` matches, each seed played twice (an odd count is rounded up)."""
    return list(range(seed, seed + (matches + 1) // 2))


def run(
    game: str,
    a: Side,
    b: Side,
    matches: int = 20,
    seed: int = 1,
    options: JSON | None = None,
    progress: bool | None = False,
    max_hands: int = MAX_HANDS,
) -> ArenaResult:
    """Play ``matches`` matches of A against B on duplicate deals from ``seed`` on.

    ``progress``: a tqdm bar on stderr (None: only when stderr is a terminal).
    """
    if matches < 1:
        raise ArenaError(f"play at least one match, not {matches}")
    options = dict(options or {})
    try:
        engine.new_match(game, seed=seed, options=options)
    except engine.IllegalAction as e:
        raise ArenaError(str(e)) from e
    seeds = duplicate_seeds(matches, seed)
    result = ArenaResult(game, a.name, b.name, options, seeds, max_hands=max_hands)
    with _bar(2 * len(seeds), f"{game} A={a.name} B={b.name}", progress) as bar:
        for s in seeds:
            for a_seats in seat_plan(game):
                result.matches.append(play_match(game, s, a_seats, a, b, options, result.times, max_hands))
                if bar is not None:
                    bar.update()
                    bar.set_postfix_str(f"A {result.win_rate:.0%}")
    return result


@contextlib.contextmanager
def _bar(total: int, desc: str, progress: bool | None) -> Iterator[Any]:
    from tqdm import tqdm

    if progress is False:
        yield None
        return
    disable = None if progress is None else False
    with tqdm(total=total, desc=desc, unit="match", file=sys.stderr, disable=disable, leave=False) as bar:
        yield bar
