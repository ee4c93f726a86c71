"""How the expert turns sampled playouts into a choice (``workers.bots.expert``).

Every candidate is scored on the same sampled deals, so candidates are compared by the
paired difference of their results. The heuristic's choice (candidate 0) is the default;
another replaces it only by a significant margin, and a candidate clearly behind the
leader stops being played out.
"""

from __future__ import annotations

import random

import engine
from workers.bots import expert


def test_paired_difference_is_taken_over_the_deals_both_saw() -> None:
    mean, se = expert.paired([3.0, 5.0, 7.0, 100.0], [1.0, 1.0, 1.0])
    assert mean == 4.0
    assert se > 0


def test_the_heuristic_choice_stands_without_a_significant_edge() -> None:
    noisy = [[0.0] * 20, [(-1.0) ** i * 50 + 1 for i in range(20)]]
    assert expert.pick(noisy) == 0


def test_a_consistently_better_candidate_replaces_the_heuristic_choice() -> None:
    results = [[float(i % 3) for i in range(20)], [float(i % 3) + 40 for i in range(20)]]
    assert expert.pick(results) == 1


def test_too_few_deals_keep_the_heuristic_choice() -> None:
    assert expert.pick([[0.0, 0.0], [100.0, 100.0]]) == 0


def test_a_clearly_worse_candidate_is_pruned_and_the_close_ones_stay() -> None:
    deals = 24
    base = [float(i % 5) for i in range(deals)]
    close = [x + (3.0 if i % 2 else -3.0) for i, x in enumerate(base)]
    hopeless = [x - 300 for x in base]
    assert expert.prune([base, close, hopeless], [0, 1, 2]) == [0, 1]


def test_a_pruned_heuristic_choice_gives_way_to_the_best_survivor() -> None:
    deals = 24
    results = [[-300.0] * deals, [10.0 + i % 2 for i in range(deals)], [12.0 + i % 2 for i in range(deals)]]
    alive = expert.prune(results, [0, 1, 2])
    assert 0 not in alive
    assert expert.pick(results, alive) == 2


def test_le_500_bid_candidates_cover_every_denomination() -> None:
    """F5-8: the expert weighs a bid in each of S, C, D, H and NT, and passing."""
    m = engine.new_match("five_hundred", seed=3)
    seat = m.to_act
    assert seat is not None
    view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
    s = expert.from_view(view)
    candidates = expert.candidate_actions(s, expert.parse_legal(legal), random.Random(0))
    bids = [a.to_json() for a in candidates]
    assert {"type": "pass"} in bids
    assert {b["suit"] for b in bids if b["type"] == "bid"} == {"S", "C", "D", "H", "NT"}
