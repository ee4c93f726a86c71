"""What a run gives back: each match's ``MatchResult`` and the run's ``ArenaResult`` with its figures.

Kept apart from the playing because it is pure arithmetic and formatting over finished matches:
win rate (a tie counting half) with its Wilson interval, mean score difference, forfeits,
decision times, and the two ways of showing them (``summary`` for a person, ``to_json`` for a
program). Only the decision times are not determined by the seeds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from workers.arena.base import JSON, MAX_HANDS, Outcome, SideName


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def seed_text(seed: int | bytes) -> str:
    """A whole-number seed as digits, a match key in hex."""
    return str(seed) if isinstance(seed, int) else seed.hex()


def mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


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

    seed: int | bytes
    """A whole-number seed (``run``) or a match key (a tournament game, ``workers.arena.tournament``)."""
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
        return mean(diffs) if diffs else None

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
                    at = f"seed {seed_text(r.seed)}, seat {f.seat}, hand {f.hand}"
                    lines.append(f"    {at}: {f.reason}: {f.detail}")
                if len(lost) > 5:
                    lines.append(f"    ... and {len(lost) - 5} more")
        for who, t in self.timing().items():
            lines.append(f"  {who} decision time: p50 {t['p50_ms']:.2f} ms, p99 {t['p99_ms']:.2f} ms")
        return "\n".join(lines)


def _quantile_ms(ys: list[float], q: float) -> float:
    return round(ys[min(len(ys) - 1, int(q * len(ys)))] * 1e3, 3)
