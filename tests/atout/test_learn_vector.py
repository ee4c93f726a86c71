"""Self-play on many tables at once (atout.learn.vector): what a learner relies on.

The same seed and the same actions give the same games; every row is the seat to act's
observation as atout.learn.encoding computes it from ``engine.view`` and its mask the engine's
legal actions (a discard as picks); random play over many hands of every game never raises; and
each table's hands are those a bare engine plays from the table's match seed with the same
actions, scored the same (atout.learn.table.hand_points).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import engine
from atout.learn.encoding import legal_mask, observation
from atout.learn.spaces import GAMES, PICK, action_space
from atout.learn.table import hand_points, margins
from atout.learn.vector import VectorTables


def random_ids(obs: dict[str, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
    """One legal id per row, uniformly among the row's mask."""
    mask = obs["action_mask"]
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def test_a_seed_gives_the_same_games() -> None:
    runs = []
    for seed in (7, 7, 8):
        env = VectorTables("rough", num_envs=4)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        steps = [(obs["observation"], info["match_seed"])]
        for _ in range(120):
            obs, rewards, terminated, _, info = env.step(random_ids(obs, rng))
            steps.append((obs["observation"], rewards, terminated, info["seat"], info["match_seed"]))
        runs.append(steps)
    same = [
        all(np.array_equal(a, b) for a, b in zip(x, y, strict=True))
        for x, y in zip(runs[0], runs[1], strict=True)
    ]
    assert all(same)
    assert not np.array_equal(runs[0][0][1], runs[2][0][1])  # another seed, other deals


@pytest.mark.parametrize("game", GAMES)
def test_rows_are_the_single_seat_encoding_and_masks_the_engines_legal_actions(game: str) -> None:
    env = VectorTables(game, num_envs=5)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(1)
    picks_seen = 0
    for _ in range(150):
        for i, m in enumerate(env.matches):
            seat = int(info["seat"][i])
            assert seat == m.to_act
            picks = env.picks(i)
            picks_seen += bool(picks)
            assert np.array_equal(obs["observation"][i], observation(engine.view(m, seat), picks))
            assert np.array_equal(
                obs["action_mask"][i], legal_mask(game, engine.legal_actions(m, seat), picks)
            )
        assert env.single_observation_space.contains({k: v[0] for k, v in obs.items()})
        obs, _, _, _, info = env.step(random_ids(obs, rng))
    assert picks_seen > 0 or game == "euchre5"


class Replay:
    """Each table's ids of its current episode, with the seat that took each and the match seed."""

    def __init__(self, env: VectorTables, info: dict[str, Any]) -> None:
        self.env = env
        self.seeds = [int(s) for s in info["match_seed"]]
        self.ids: list[list[tuple[int, int]]] = [[] for _ in range(env.num_envs)]

    def took(self, actions: np.ndarray[Any, Any], info: dict[str, Any]) -> None:
        for i, index in enumerate(actions):
            self.ids[i].append((int(info["seat"][i]), int(index)))

    def bare_engine(self, i: int) -> engine.Match:
        """Table ``i``'s episode played again on a new match of its seed, the engine's JSON actions
        (the picks of a discard sent as one ``discard``)."""
        game = self.env.game
        m = engine.new_match(game, seed=self.seeds[i], options=self.env.options)
        space, picked = action_space(game), []
        for seat, index in self.ids[i]:
            action = space.action(index)
            if action["type"] == PICK:
                picked.append(action["card"])
                if len(picked) < engine.game(game).kitty_size:
                    continue
                action, picked = {"type": "discard", "cards": sorted(picked)}, []
            engine.push(m, seat, action)
        return m


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("reward", ["points", "margin"])
def test_each_table_plays_the_hand_a_bare_engine_replays(game: str, reward: str) -> None:
    """Every hand scored: the engine, given the table's match seed and the same actions, scores the
    same hand, and the rewards are each seat's points (or margins) of it."""
    env = VectorTables(game, num_envs=6, reward=reward)
    obs, info = env.reset(seed=11)
    replay = Replay(env, info)
    rng = np.random.default_rng(2)
    checked = 0
    while checked < 40:
        actions = random_ids(obs, rng)
        replay.took(actions, info)
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        assert set(info["results"]) == set(np.flatnonzero(terminated))  # one hand an episode
        for i in np.flatnonzero(terminated):
            m = replay.bare_engine(i)
            assert m.prev is not None and m.prev.result == info["results"][i]
            points = hand_points(game, m.prev.result)
            assert rewards[i].tolist() == pytest.approx(
                margins(game, points) if reward == "margin" else points
            )
            replay.ids[i], replay.seeds[i] = [], int(info["match_seed"][i])
            checked += 1
        assert not rewards[~terminated].any()


@pytest.mark.parametrize("game", GAMES)
def test_random_play_over_many_hands_never_raises(game: str) -> None:
    """Whole matches (``hands=None``) and two-hand episodes: rewards at each hand scored, the
    episode's end when its hands are done or the match is over, margins summing to zero."""
    for hands in (None, 2):
        env = VectorTables(game, num_envs=8, hands=hands, reward="margin")
        obs, _ = env.reset(seed=5)
        rng = np.random.default_rng(3)
        scored = ended = 0
        while scored < 400:
            obs, rewards, terminated, truncated, info = env.step(random_ids(obs, rng))
            assert obs["action_mask"].sum(axis=1).min() >= 1  # every table has a seat to act
            assert np.allclose(rewards.sum(axis=1), 0.0)
            scored += len(info["results"])
            ended += int(terminated.sum() + truncated.sum())
        assert 0 < ended <= scored


def test_an_illegal_id_raises_and_changes_nothing() -> None:
    env = VectorTables("euchre5", num_envs=3)
    obs, _ = env.reset(seed=1)
    before = [engine.to_json(m) for m in env.matches]
    actions = obs["action_mask"].argmax(axis=1)
    actions[2] = np.flatnonzero(obs["action_mask"][2] == 0)[0]
    with pytest.raises(ValueError, match="table 2"):
        env.step(actions)
    assert [engine.to_json(m) for m in env.matches] == before
    with pytest.raises(ValueError, match="one action per table"):
        env.step(actions[:2])
    with pytest.raises(RuntimeError, match="reset"):
        VectorTables("rough", num_envs=2).step([0, 0])
