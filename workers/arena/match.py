"""Playing: one match between two sides on a seed, and the seats and seeds of duplicate deals.

Its own module because this is where the rules of the harness live, apart from how a side
decides (``sides``, ``command``) and from the figures (``result``): which seats a side holds in
each match of a duplicate pair (``seat_plan``), which seeds a run plays (``duplicate_seeds``),
each built-in bot's random source (``match_rng``), and the loop that asks each seat's player in
turn, turns a bad answer into a ``Forfeit`` and closes every player, whatever happens.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence

import engine
from workers.arena.base import JSON, MAX_HANDS, BotFailure, Outcome, Player, SideName
from workers.arena.result import Forfeit, MatchResult, mean, seed_text
from workers.arena.sides import Side


def seat_plan(game: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seats of side A in the two matches of a duplicate deal."""
    players = engine.game(game).players
    if players == 4:
        return (0, 2), (1, 3)
    return (0,), tuple(range(1, players))


def duplicate_seeds(matches: int, seed: int) -> list[int]:
    """The seeds of ``matches`` matches, each seed played twice (an odd count is rounded up)."""
    return list(range(seed, seed + (matches + 1) // 2))


def match_rng(seed: int | bytes, a_seats: Sequence[int], seat: int) -> random.Random:
    """The random source of one seat's built-in bot: fixed by the seed, the seating and the seat."""
    return random.Random(f"arena:{seed_text(seed)}:{','.join(map(str, a_seats))}:{seat}")


def _seat_score(m: engine.Match, seat: int) -> int:
    # Team games keep one score per team (seats 0+2 and 1+3), euchre one per seat.
    return m.scores[seat % 2] if len(m.scores) == 2 else m.scores[seat]


def play_match(
    game: str,
    seed: int | bytes,
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
        for seat, p in players.items():  # the bot protocol's hand_end and game_end (workers.arena.protocol)
            finish = getattr(p, "finish", None)
            try:
                if finish is not None:
                    finish(engine.view(m, seat))
            except BotFailure as f:  # a Python bot's on_game_end raised: as broken as a crash in decide
                side = "A" if seat in mine else "B"
                ended = Forfeit(side, seat, f.reason, f.detail, m.hand_number)
                return _forfeited(m, seed, a_seats, decisions, ended)
    finally:
        for p in players.values():
            p.close()
    unfinished = m.to_act is not None
    winners = set(m.winners or ())
    a_won, b_won = bool(winners & mine), bool(winners - mine)
    outcome: Outcome = "tie" if a_won == b_won else "A" if a_won else "B"
    others = [s for s in range(m.players) if s not in mine]
    diff = mean([_seat_score(m, s) for s in a_seats]) - mean([_seat_score(m, s) for s in others])
    hands = min(m.hand_number, max_hands)
    return MatchResult(
        seed, tuple(a_seats), outcome, list(m.scores), diff, hands, decisions, None, unfinished
    )


def _forfeited(
    m: engine.Match, seed: int | bytes, a_seats: Sequence[int], decisions: int, f: Forfeit
) -> MatchResult:
    winner: Outcome = "B" if f.side == "A" else "A"
    return MatchResult(seed, tuple(a_seats), winner, list(m.scores), None, m.hand_number, decisions, f)
