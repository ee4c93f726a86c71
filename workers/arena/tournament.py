"""A local tournament (``atout arena --tournament``): the service's pairing, keys and scoring, in-process.

Everything but the playing is ``workers.tournament``, the code the service's tournaments run,
so that a bot author's local standings are computed exactly as the service's are. Each game is
an arena match (``play_match``) on the game's match key: a forfeit (an external program that
crashed, answered garbage or timed out) loses that game and flags the entrant, as an entrant
the service auto-plays is flagged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from workers import tournament as t
from workers.arena.base import JSON, MAX_HANDS, ArenaError
from workers.arena.match import play_match
from workers.arena.sides import Side


@dataclass
class TournamentResult:
    """The outcomes of a local tournament, its key (revealed: it is over) and the figures drawn from them."""

    game: str
    fmt: str
    names: list[str]
    key: bytes
    outcomes: list[t.Outcome] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)

    def standings(self) -> list[t.Standing]:
        return t.standings(len(self.names), self.outcomes)

    def to_json(self) -> JSON:
        h2h = t.head_to_head(self.outcomes)
        return {
            "game": self.game,
            "format": self.fmt,
            "key": self.key.hex(),
            "commitment": t.commitment(self.key),
            "entrants": self.names,
            "standings": [
                {
                    "rank": s.rank,
                    "entrant": self.names[s.entrant],
                    "games": s.games,
                    "deals": s.deals,
                    "points_per_deal": s.points_per_deal,
                    "ci95": [_finite(s.low), _finite(s.high)],
                    "wins": s.wins,
                    "flagged_games": s.flagged_games,
                }
                for s in self.standings()
            ],
            "head_to_head": [
                {
                    "entrant": self.names[x],
                    "opponent": self.names[y],
                    "games": h.games,
                    "wins": h.wins,
                    "points_per_deal": h.points_per_deal,
                }
                for (x, y), h in sorted(h2h.items())
            ],
            "games": [
                {
                    "round": o.round_no,
                    "table": o.table,
                    "deal": o.deal,
                    "seating": o.seating,
                    "a": self.names[o.a],
                    "b": self.names[o.b],
                    "a_score": o.a_score,
                    "b_score": o.b_score,
                    "hands": o.hands,
                    "winner": o.winner,
                    "flagged": [self.names[e] for e in o.flagged],
                }
                for o in self.outcomes
            ],
        }

    def summary(self) -> str:
        lines = [
            f"{self.game} {self.fmt} tournament, {len(self.names)} entrants, {len(self.outcomes)} games",
            f"  commitment {t.commitment(self.key)}  key {self.key.hex()}",
            "  rank  entrant              points/deal   95% interval        wins  flagged",
        ]
        for s in self.standings():
            lo, hi = _finite(s.low), _finite(s.high)
            ci = "n/a" if lo is None or hi is None else f"{lo:+7.2f} .. {hi:+7.2f}"
            lines.append(
                f"  {s.rank:>4}  {self.names[s.entrant][:20]:<20} {s.points_per_deal:+10.2f}"
                f"   {ci:<18} {s.wins:>5g}  {s.flagged_games:>7}"
            )
        return "\n".join(lines)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def run_tournament(
    game: str,
    sides: Sequence[Side],
    fmt: str = "round_robin",
    rounds: int | None = None,
    deals: int = 1,
    key: bytes | None = None,
    options: JSON | None = None,
    max_hands: int = MAX_HANDS,
) -> TournamentResult:
    """Play a whole tournament between ``sides`` (entered in this order) and score it."""
    try:
        total = t.check(game, fmt, len(sides), rounds, deals)
    except t.TournamentError as e:
        raise ArenaError(str(e)) from e
    key = key if key is not None else t.new_key()
    names = _names(sides)
    result = TournamentResult(game, fmt, names, key)
    met: list[tuple[int, int]] = []
    for r in range(1, total + 1):
        if fmt == "round_robin":
            pairings = t.round_robin(len(sides), r)
        else:
            pts = t.swiss_points(len(sides), result.outcomes)
            pairings, bye = t.swiss(len(sides), r, pts, met, result.byes)
            if bye is not None:
                result.byes.append(bye)
        for p in pairings:
            met.append((p.a, p.b))
            for spec in t.games(key, p, deals):
                result.outcomes.append(_play(game, spec, sides, options, max_hands))
    return result


def _play(
    game: str, spec: t.GameSpec, sides: Sequence[Side], options: JSON | None, max_hands: int
) -> t.Outcome:
    p = spec.pairing
    a_seats = spec.seats_of(p.a)
    m = play_match(game, spec.key, a_seats, sides[p.a], sides[p.b], options, None, max_hands)
    team = a_seats[0] % 2
    winner: t.Winner = {"A": "a", "B": "b", "tie": "tie"}[m.outcome]  # type: ignore[assignment]
    flagged = () if m.forfeit is None else ((p.a if m.forfeit.side == "A" else p.b),)
    return t.Outcome(
        p.round_no,
        p.table,
        spec.deal,
        spec.seating,
        p.a,
        p.b,
        m.scores[team],
        m.scores[1 - team],
        m.hands,
        winner,
        flagged,
    )


def _names(sides: Sequence[Side]) -> list[str]:
    """Each side's name, numbered when two share one (two ``heuristic`` entrants)."""
    counts: dict[str, int] = {}
    for s in sides:
        counts[s.name] = counts.get(s.name, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for s in sides:
        if counts[s.name] == 1:
            out.append(s.name)
        else:
            seen[s.name] = seen.get(s.name, 0) + 1
            out.append(f"{s.name}#{seen[s.name]}")
    return out
