"""The small policy of atout.learn.train: a short training changes it, it plays legal actions through
``encoding.choose`` on duplicate deals, beats ``random`` there, and survives a save and a load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the learn extra is not installed")

from atout.learn.train import LinearPolicy, evaluate, train


def test_a_short_training_beats_random_and_round_trips(tmp_path: Path) -> None:
    trained = train("rough", episodes=300, seconds=20, seed=3)
    assert trained.episodes > 50 and trained.policy.weights.any()
    score = evaluate(trained.policy, "random", deals=20, seed=50)
    assert score.deals == 20 and score.low > 0, score  # random bidders fail their contracts
    trained.policy.save(tmp_path / "rough.npz")
    again = LinearPolicy.load(tmp_path / "rough.npz")
    assert again.game == "rough" and np.array_equal(again.weights, trained.policy.weights)


def test_the_policy_never_picks_an_illegal_id() -> None:
    policy = LinearPolicy.zeros("euchre5")
    policy.weights[:, -1] = np.arange(policy.weights.shape[0])  # prefers the highest ids, legal or not
    mask = np.zeros(policy.weights.shape[0], np.int8)
    mask[[3, 10]] = 1
    x = np.zeros(policy.weights.shape[1] - 1, np.float32)
    assert policy(x, mask) == 10
    assert set(np.flatnonzero(policy.probabilities(x, mask))) == {3, 10}
    score = evaluate(policy, "heuristic", deals=2)
    assert np.isfinite(score.mean)
