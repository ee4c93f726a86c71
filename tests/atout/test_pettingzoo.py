"""The PettingZoo AEC environments (atout.learn.envs) pass ``pettingzoo.test.api_test``, one hand and
whole matches, and score an episode as the engine scores its hands."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the learn extra is not installed")

from pettingzoo.test import api_test

import engine
from atout.learn.envs import AtoutEnv, env

GAMES = ["five_hundred", "rough", "euchre5"]


# Recommendations PettingZoo waives by name for its own card games (leduc_holdem, texas_holdem, ...),
# whose observations are the same dict of a vector and an action mask.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("hands", [1, None])
def test_api_test_passes(game: str, hands: int | None) -> None:
    api_test(env(game, hands=hands), num_cycles=200)


def play(e: AtoutEnv, seed: int, rng: np.random.Generator) -> tuple[dict[str, float], int]:
    """An episode of random legal ids: each agent's total reward and the number of steps."""
    e.reset(seed=seed)
    totals: dict[str, float] = {}
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and obs["observation"].dtype == np.float32
        e.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return totals, steps


@pytest.mark.parametrize("game", GAMES)
def test_rewards_are_the_hands_points_and_seeds_replay(game: str) -> None:
    rng = np.random.default_rng(7)
    nonzero = 0
    for seed in range(6):
        e = env(game, reward="points")
        totals, steps = play(e, seed, rng)
        assert e.table is not None and e.table.hands_played == 1
        result = e.table.last_result
        assert result is not None
        players = engine.game(game).players
        expected = [0.0] * players if result.get("void") else None
        if expected is None and not (game == "rough" and result["contract"]["points"] == 100):
            points = result["points"]
            expected = [float(points[s % 2] if len(points) == 2 else points[s]) for s in range(players)]
        if expected is not None:
            assert [totals[f"player_{s}"] for s in range(players)] == expected
        nonzero += any(totals.values())
        margins, _ = play(env(game, reward="margin"), seed, np.random.default_rng(7 + seed))
        assert sum(margins.values()) == pytest.approx(0.0)
        assert steps >= players
    assert nonzero > 0
    first = env(game)
    first.reset(seed=11)
    second = env(game)
    second.reset(seed=11)
    agent = first.agent_selection
    assert agent == second.agent_selection
    assert np.array_equal(first.observe(agent)["observation"], second.observe(agent)["observation"])
