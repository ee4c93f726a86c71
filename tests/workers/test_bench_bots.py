"""The bot benchmark's scoring of one match (``bench/bots.py``), on real matches.

A partnership match (Le 500, Le Rough: scores per team, F5-2, RG-2) counts as won or
lost; five-handed euchre (scores per seat, E5-2, E5-12) also gives the seat under test a
head-to-head result against each of the four others.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bots.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_bots", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", ["five_hundred", "rough"])
def test_a_partnership_match_scores_as_won_or_lost(bench: ModuleType, game: str) -> None:
    levels = ["heuristic", "random", "heuristic", "random"]
    won, h2h, times = bench._one((game, 3, levels, 0.01, {}, (0, 2)))
    assert won == 1 and h2h == 1.0  # F5-14 / RG-15: the heuristic side beats random
    assert times["heuristic"] and times["random"]


def test_a_euchre_seat_is_compared_with_each_of_the_four_others(bench: ModuleType) -> None:
    levels = ["random", "heuristic", "random", "random", "random"]
    won, h2h, _ = bench._one(("euchre5", 4, levels, 0.01, {"target_score": 5}, (1,)))
    assert won in (0, 1)
    assert h2h in {k / 8 for k in range(9)}


def test_head_to_head_counts_a_tie_as_half(bench: ModuleType) -> None:
    assert bench.head_to_head([10, 7, 10, 3, 12], (0,)) == (1 + 0.5 + 1 + 0) / 4
