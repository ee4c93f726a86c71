"""The toolkit's learners. The linear policy of atout.learn.train: a short training changes it, it
plays legal actions through ``encoding.choose`` on duplicate deals, beats ``random`` there, and survives
a save and a load. Expert iteration (atout.learn.exit) and its network (atout.learn.mlp): its labels
are the expert's own search, a short run learns, and the network plays legal ids only."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the learn extra is not installed")

from atout.learn import exit as recipe
from atout.learn.encoding import size
from atout.learn.mlp import MLPPolicy, features
from atout.learn.table import Table
from atout.learn.train import LinearPolicy, evaluate, train
from workers import bots


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


# ----- expert iteration (atout.learn.exit) and its network (atout.learn.mlp) ----------------------


def positions(game: str, seed: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Views and legal actions of a hand the heuristic plays, where a seat has more than one action."""
    rng = random.Random(seed)
    table = Table.new(game, seed)
    out = []
    while (seat := table.to_act) is not None:
        view, legal = table.view(seat), table.legal_actions(seat)
        if len(legal) > 1 or legal[0]["type"] == "discard":
            out.append((view, legal))
        table.push(seat, bots.choose("heuristic", view, legal, rng))
    return out


@pytest.mark.parametrize("game", ["five_hundred", "rough", "euchre5"])
def test_the_recipes_search_chooses_as_the_expert_does(game: str) -> None:
    """The labels come from the expert's own search: the same choice for the same random source."""
    for k, (view, legal) in enumerate(positions(game, 3)[::2]):
        found = recipe.search(view, legal, random.Random(k), 6)
        assert found.candidates[found.chosen] == bots.choose(
            "expert", view, legal, random.Random(k), playouts=6
        )
        assert len(found.advantages) == len(found.errors) == len(found.candidates)
        assert found.advantages[0] == 0.0 and found.errors[0] == 0.0  # the heuristic's choice: the baseline


def test_soft_targets_weigh_the_candidates_by_their_advantage() -> None:
    target = recipe.soft_target(6, [1, 3, 4], [0.0, 10.0, -10.0], temperature=10.0)
    assert target.sum() == pytest.approx(1.0) and set(np.flatnonzero(target)) == {1, 3, 4}
    assert target[3] / target[1] == pytest.approx(np.e, rel=1e-5)
    assert target[1] / target[4] == pytest.approx(np.e, rel=1e-5)


def test_a_short_expert_iteration_learns_from_nothing() -> None:
    """From a network that ignores the heuristic's choice (it plays the lowest legal id), 20 s of
    labels and fitting lower the held-out loss and win points back against the heuristic."""
    trained = recipe.train("rough", seconds=20, rounds=1, jobs=1, start_trust=0.0, seed=1)
    assert trained.labels > 100 and len(trained.curve) == 1
    assert trained.curve[0].held_out_loss < trained.start_loss
    untrained = MLPPolicy.initial("rough", recipe.HIDDEN, seed=1, trust=0.0)
    after = evaluate(trained.policy, "heuristic", deals=20, seed=50)
    before = evaluate(untrained, "heuristic", deals=20, seed=50)
    assert after.mean > before.mean, (before, after)


def test_the_network_plays_only_legal_ids_and_round_trips(tmp_path: Path) -> None:
    policy = MLPPolicy.initial("euchre5", hidden=8, seed=2, trust=1.5)
    policy.b2[:] = np.arange(policy.b2.shape[0])  # prefers the highest ids, legal or not
    mask = np.zeros(policy.b2.shape[0], np.int8)
    mask[[3, 10]] = 1
    z = features(np.zeros(size("euchre5"), np.float32), [3], mask)
    assert policy(z, mask) == 10
    policy.save(tmp_path / "euchre5.json.gz")
    again = MLPPolicy.load(tmp_path / "euchre5.json.gz")
    assert again.game == "euchre5" and again.trust == 1.5
    assert np.allclose(again.w1, policy.w1, rtol=1e-4) and np.array_equal(again.b2, policy.b2)
    assert again(z, mask) == 10
