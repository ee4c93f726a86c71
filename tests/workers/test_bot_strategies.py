"""Every bot level answers a legal action from a seat's view alone.

Property over random matches of the three games, in every phase: the answer applies
(``engine.apply`` accepts it), the bot leaves its arguments untouched, and a bot's choice
is fixed by its rng seed.
"""

from __future__ import annotations

import copy
import os
import random

import pytest

import engine
from workers import bots

GAMES = ("five_hundred", "rough", "euchre5")
MATCHES = int(os.environ.get("ATOUT_BOT_MATCHES", "10"))
PHASES = {
    "five_hundred": {"bidding", "discard", "play"},
    "rough": {"bidding", "discard", "play"},
    "euchre5": {"order", "exchange", "name", "call", "play"},
}


def positions(game: str, seed: int, hands: int = 3) -> list[engine.Match]:
    """The positions of a random match's first hands, each with a seat to act."""
    rng = random.Random(seed)
    m = engine.new_match(game, seed=seed)
    out = []
    while m.to_act is not None and m.hand_number <= hands:
        out.append(m)
        m = engine.apply(m, m.to_act, engine.random_move(m, rng))
    return out


def ask(level: str, m: engine.Match, seed: int, playouts: int | None = None) -> dict[str, object]:
    seat = m.to_act
    assert seat is not None
    view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
    return bots.choose(level, view, legal, random.Random(seed), budget_s=0.01, playouts=playouts)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("level", ["random", "heuristic"])
def test_bot_answers_a_legal_action_in_every_phase(game: str, level: str) -> None:
    phases = set()
    for seed in range(MATCHES * 4):
        for step, m in enumerate(positions(game, seed)):
            action = ask(level, m, seed * 1000 + step)
            assert m.to_act is not None
            engine.apply(m, m.to_act, action)  # raises IllegalAction if it is not legal
            phases.add(m.phase)
    assert phases == PHASES[game]


@pytest.mark.parametrize("game", GAMES)
def test_expert_answers_a_legal_action_in_every_phase(game: str) -> None:
    phases = set()
    for seed in range(MATCHES):
        for step, m in enumerate(positions(game, seed, hands=2)):
            if step % 3 and m.phase == "play":
                continue
            action = ask("expert", m, step, playouts=4)
            assert m.to_act is not None
            engine.apply(m, m.to_act, action)
            phases.add(m.phase)
    assert phases == PHASES[game]


@pytest.mark.parametrize("game", GAMES)
def test_bot_plays_whole_matches_against_itself(game: str) -> None:
    """Heuristic bots alone finish matches (every hand ends, ALL-2, F5-14, RG-15, E5-12)."""
    for seed in range(MATCHES):
        m = engine.new_match(game, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while m.to_act is not None:
            seat = m.to_act
            action = bots.choose("heuristic", engine.view(m, seat), engine.legal_actions(m, seat), rng)
            m = engine.apply(m, seat, action)
            steps += 1
            assert steps < 20_000
        assert m.winners


@pytest.mark.parametrize("level", list(bots.LEVELS))
@pytest.mark.parametrize("game", GAMES)
def test_bot_never_changes_its_arguments(game: str, level: str) -> None:
    for m in positions(game, 11, hands=1)[::4]:
        seat = m.to_act
        assert seat is not None
        view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
        before = copy.deepcopy((view, legal))
        bots.choose(level, view, legal, random.Random(0), budget_s=0.01, playouts=1)
        assert (view, legal) == before


@pytest.mark.parametrize("level", list(bots.LEVELS))
@pytest.mark.parametrize("game", GAMES)
def test_bot_choice_is_fixed_by_its_seed(game: str, level: str) -> None:
    for step, m in enumerate(positions(game, 5, hands=1)[::3]):
        assert ask(level, m, step, playouts=5) == ask(level, m, step, playouts=5)


def test_random_discard_is_a_set_of_the_right_size() -> None:
    """F5-10: the template is answered with ``count`` distinct cards of ``from``."""
    m = next(p for p in positions("five_hundred", 0, hands=6) if p.phase == "discard")
    for seed in range(20):
        action = ask("random", m, seed)
        assert action["type"] == "discard"
        cards = action["cards"]
        assert isinstance(cards, list) and len(set(cards)) == 6


def test_unknown_level_is_refused() -> None:
    m = positions("rough", 0)[0]
    with pytest.raises(ValueError):
        ask("grandmaster", m, 0)
