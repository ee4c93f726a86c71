"""The ``learned`` level: a shipped network per game, played in pure Python from a seat's view alone.

Its answers are legal in every phase of the three games (docs/rules.md ALL-7: it gets the view and
the legal actions only), its forward pass gives the numpy network's logits (atout.learn.mlp, which
trained it), and the bot takes, decision by decision, the action the trained network takes through
the learning toolkit's encoding: what was measured in bench/train.py is what the workers play.
Run on both builds of the bots (compiled and ``ATOUT_PURE_ENGINE=1``: the Makefile's pure pass).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import engine
from atout.learn.encoding import size
from atout.learn.mlp import MLPPolicy, features
from atout.learn.spaces import action_space
from workers import bots
from workers.bots import learned

GAMES = ("five_hundred", "rough", "euchre5")
PHASES = {
    "five_hundred": {"bidding", "discard", "play"},
    "rough": {"bidding", "discard", "play"},
    "euchre5": {"order", "exchange", "name", "call", "play"},
}


def shipped(game: str) -> MLPPolicy:
    return MLPPolicy.load(learned.POLICIES / f"{game}.json.gz")


def decisions(game: str, seed: int, level: str = "heuristic") -> list[engine.Match]:
    """The positions of a match played to its end by ``level`` at every seat (a seat to act in each)."""
    rng = random.Random(seed)
    shortest = min(engine.game(game).option_specs["target_score"].allowed)
    m = engine.new_match(game, seed=seed, options={"target_score": shortest})
    out = []
    while m.to_act is not None:
        out.append(m)
        seat = m.to_act
        m = engine.apply(
            m, seat, bots.choose(level, engine.view(m, seat), engine.legal_actions(m, seat), rng)
        )
    return out


@pytest.mark.parametrize("game", GAMES)
def test_the_learned_bot_answers_a_legal_action_in_every_phase(game: str) -> None:
    phases = set()
    for seed in range(3):
        for m in decisions(game, seed, level="learned"):
            seat = m.to_act
            assert seat is not None
            action = bots.choose(
                "learned", engine.view(m, seat), engine.legal_actions(m, seat), random.Random(0)
            )
            engine.apply(m, seat, action)  # raises IllegalAction if it is not legal
            phases.add(m.phase)
    assert phases == PHASES[game]


@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_policy_is_small_and_of_its_game(game: str) -> None:
    path = learned.POLICIES / f"{game}.json.gz"
    assert path.stat().st_size < 1_000_000
    net = learned.network(game)
    assert net.game == game and net.inputs == size(game)
    assert shipped(game).meta["recipe"] == "atout.learn.exit"


@pytest.mark.parametrize("game", GAMES)
def test_the_pure_python_forward_pass_gives_the_numpy_logits(game: str) -> None:
    net, policy = learned.network(game), shipped(game)
    rng = np.random.default_rng(7)
    actions = action_space(game).size
    for _ in range(100):
        obs = np.zeros(size(game), np.float32)
        obs[rng.choice(size(game), 60, replace=False)] = rng.choice([1.0, 0.25, 0.5, -0.3], 60)
        legal = sorted(int(a) for a in rng.choice(actions, int(rng.integers(2, 12)), replace=False))
        hint = [int(rng.choice(legal))] if rng.random() < 0.8 else [int(rng.integers(actions))]
        mask = np.zeros(actions, np.int8)
        mask[legal] = 1
        z = features(obs, hint, mask)
        expected = policy.logits(z[None, :])[0][legal]
        got = net.logits([float(x) for x in obs], hint, legal)
        assert np.allclose(got, expected, rtol=1e-4, atol=1e-3)
        top = np.sort(expected)[-2:]
        if top[1] - top[0] > 1e-3:  # no near tie that float32 rounding could turn
            assert net.best([float(x) for x in obs], hint, legal) == policy(z, mask)


@pytest.mark.parametrize("game", GAMES)
def test_the_bot_plays_what_the_trained_network_plays(game: str) -> None:
    """Through workers.bots.observe (stdlib) and through atout.learn.encoding (numpy): one choice."""
    policy = shipped(game)
    for m in decisions(game, 21)[::2]:
        seat = m.to_act
        assert seat is not None
        view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
        assert bots.choose("learned", view, legal, random.Random(0)) == policy.act(
            {"view": view, "legal_actions": legal}
        )


def test_a_policy_file_of_another_format_or_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="format"):
        learned.Network({"format": "other"})
    data = shipped("rough").to_json()
    data["w2"] = data["w2"][:-1]
    with pytest.raises(ValueError, match="do not fit"):
        learned.Network(data)
