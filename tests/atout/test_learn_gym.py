"""The Gymnasium single-seat environment (atout.learn.single): Gymnasium's own checker passes for each
game, and an episode's reward is the learner's points of the hand."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the learn extra is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402  (after the extra is found)

from atout.learn.single import IDS, SeatEnv  # noqa: E402
from atout.learn.table import hand_points  # noqa: E402

GAMES = ["five_hundred", "rough", "euchre5"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kwargs", [{}, {"opponents": "heuristic", "seat": 1, "reward": "margin"}])
def test_gymnasium_check_env_passes(game: str, kwargs: dict[str, object]) -> None:
    check_env(gymnasium.make(IDS[game], **kwargs).unwrapped)


@pytest.mark.parametrize("game", GAMES)
def test_an_episode_pays_the_learners_points_of_the_hand(game: str) -> None:
    env = SeatEnv(game, opponents="random", partner="heuristic", seat=None)
    rng = np.random.default_rng(3)
    seats = set()
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        seats.add(info["seat"])
        total, done, decisions = 0.0, False, 0
        while not done:
            mask = obs["action_mask"]
            assert mask.any() and np.array_equal(mask, env.action_masks())
            obs, reward, terminated, truncated, step_info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
            done, decisions = terminated or truncated, decisions + 1
        assert terminated and not truncated and decisions >= 1
        assert total == hand_points(game, step_info["result"])[info["seat"]]
        assert not env.action_masks().any()
    assert len(seats) > 1


def test_an_illegal_action_ends_the_episode_with_the_worst_reward() -> None:
    env = SeatEnv("rough", seat=0)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and info == {"illegal": True} and reward == -200.0


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="bot level"):
        SeatEnv("rough", opponents="grandmaster")
    with pytest.raises(ValueError, match="seat"):
        SeatEnv("rough", seat=4)
    with pytest.raises(ValueError, match="reward"):
        SeatEnv("rough", reward="wins")
