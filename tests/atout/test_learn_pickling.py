"""The learning interfaces' states pickle and copy at any point of play, in both engine builds (issue 36,
"A bot lab").

Vectorized trainers ship environments to subprocesses and checkpoints pickle them; OpenSpiel serializes
a Python game's state by pickling its attributes (``random_sim_test(..., serialize=True)``) and clones it
with ``copy.deepcopy``. So an OpenSpiel state and game, a PettingZoo ``AtoutEnv`` and a Gymnasium
``SeatEnv``, taken mid-game, must come back from ``pickle`` and ``copy.deepcopy`` equal and play on
exactly as the original: the same legal actions, observations, rewards and ends under the same actions
and seeds. The compiled engine is the build that failed, so the first test checks it is the one loaded.
Each extra (openspiel, learn) is skipped only where it is not installed.
"""

from __future__ import annotations

import copy
import importlib
import os
import pickle
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import engine
import engine.match

GAMES = ["five_hundred", "rough", "euchre5"]
ENGINE = Path(__file__).resolve().parents[2] / "engine"

ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "deepcopy": copy.deepcopy,
}


def test_the_engine_build_under_test_is_the_one_named() -> None:
    """Unless ``ATOUT_PURE_ENGINE=1``, the compiled engine is what these tests run (``make compile``)."""
    compiled = str(engine.match.__file__).endswith(".so")
    if os.environ.get("ATOUT_PURE_ENGINE") == "1":
        assert not compiled and engine.BUILD == "pure"
    elif any(ENGINE.glob("match.*.so")):
        assert compiled and engine.BUILD == "compiled", "stale extensions: run `make compile`"


@pytest.fixture
def pyspiel() -> ModuleType:
    return pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")


@pytest.fixture
def spiel(pyspiel: ModuleType) -> ModuleType:
    return importlib.import_module("atout.learn.spiel")


@pytest.fixture
def envs() -> ModuleType:
    pytest.importorskip("pettingzoo", reason="the learn extra is not installed")
    return importlib.import_module("atout.learn.envs")


@pytest.fixture
def gymnasium() -> ModuleType:
    return pytest.importorskip("gymnasium", reason="the learn extra is not installed")


@pytest.fixture
def single(gymnasium: ModuleType) -> ModuleType:
    return importlib.import_module("atout.learn.single")


# ----- OpenSpiel ------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_openspiel_random_simulation_with_serialization_passes(
    pyspiel: ModuleType, spiel: ModuleType, game: str
) -> None:
    """OpenSpiel's own check: along random games, each state serialized (its attributes pickled) and
    deserialized prints the same."""
    pyspiel.random_sim_test(spiel.load(game), num_sims=5, serialize=True, verbose=False)


def spiel_copies(pyspiel: ModuleType, state: Any) -> dict[str, Any]:
    """The state brought back each way a trainer or OpenSpiel does it."""
    game = state.get_game()
    _, from_string = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    return {
        **{how: round_trip(state) for how, round_trip in ROUND_TRIPS.items()},
        "clone": state.clone(),
        "deserialize_state": game.deserialize_state(state.serialize()),
        "game_and_state": from_string,
    }


def replayed(game: Any, history: list[int]) -> Any:
    """The state of ``history`` made again move by move (no copy involved)."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def assert_same_spiel_state(a: Any, b: Any) -> None:
    assert type(b) is type(a)
    assert (str(b), b.history(), b.current_player(), b.is_terminal()) == (
        str(a),
        a.history(),
        a.current_player(),
        a.is_terminal(),
    )
    if a.is_terminal():
        assert b.returns() == a.returns()
        return
    assert b.legal_actions() == a.legal_actions()
    for seat in range(a.num_players()):
        assert b.information_state_string(seat) == a.information_state_string(seat)
        assert b.observation_string(seat) == a.observation_string(seat)
        assert np.array_equal(b.information_state_tensor(seat), a.information_state_tensor(seat))


def points_of_a_hand(loaded: Any, rng: random.Random) -> tuple[list[int], dict[str, int]]:
    """A random hand's history, and a point of it (a history length) for each kind of node it met:
    the deal by chance, each phase of the engine, a discard half picked, the end."""
    state, seen = loaded.new_initial_state(), {}
    while True:
        table = state.table
        kind = "deal" if table is None else "end" if state.is_terminal() else table.match.phase
        kind = "picking" if table is not None and table.picked else kind
        seen.setdefault(kind, []).append(len(state.history()))
        if state.is_terminal():
            return state.history(), {kind: rng.choice(at) for kind, at in seen.items()}
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game", GAMES)
def test_openspiel_states_round_trip_at_every_kind_of_node_and_play_on_identically(
    pyspiel: ModuleType, spiel: ModuleType, game: str
) -> None:
    """Stopped at a point of each kind, a state comes back equal each way (pickle, deepcopy, OpenSpiel's
    clone and serializations) and each copy follows a state replayed to that point move for move to
    the end of the hand."""
    loaded = spiel.load(game, dealer=1)
    rng = random.Random(game)
    kinds: set[str] = set()
    for _ in range(2):
        history, points = points_of_a_hand(loaded, rng)
        kinds |= set(points)
        for kind, at in points.items():
            for how, other in spiel_copies(pyspiel, replayed(loaded, history[:at])).items():
                original, moves = replayed(loaded, history[:at]), random.Random(at)
                assert other.dealer == 1, (kind, how)
                while True:
                    assert_same_spiel_state(original, other)
                    if original.is_terminal():
                        break
                    action = moves.choice(original.legal_actions())
                    other.apply_action(action)
                    original.apply_action(action)
    assert {"deal", "play", "end"} <= kinds
    assert ("picking" if game != "euchre5" else "exchange") in kinds


def test_openspiel_game_round_trips_with_its_parameters(spiel: ModuleType) -> None:
    """A game (held by OpenSpiel's rl_environment, say) comes back with its dealer and options."""
    loaded = spiel.load("rough", dealer=2, target_score=200)
    for how, round_trip in ROUND_TRIPS.items():
        other = round_trip(loaded)
        assert str(other) == str(loaded) and other.dealer == 2 and other.options == loaded.options, how
        state = other.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        assert state.table.match.dealer == 2 and state.table.match.options["target_score"] == 200


# ----- PettingZoo -------------------------------------------------------------------------------------
def aec_step_result(e: Any) -> tuple[Any, ...]:
    obs, reward, terminated, truncated, info = e.last()
    return (
        e.agent_selection,
        obs["observation"].tolist(),
        obs["action_mask"].tolist(),
        reward,
        terminated,
        truncated,
        info,
        dict(e.rewards),
        dict(e.terminations),
        dict(e.truncations),
        list(e.agents),
    )


@pytest.mark.parametrize("how", ROUND_TRIPS)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("hands", [1, 3])
def test_a_pettingzoo_env_in_play_round_trips_and_plays_on_identically(
    envs: ModuleType, game: str, hands: int, how: str
) -> None:
    """The AEC env stepped some random legal ids, then copied: stepped on with the same ids (``None``
    for the agents already done, as PettingZoo wants), both show the same observations, masks,
    rewards, terminations and agent to act, to the end of the episode; and the next ``reset()``
    without a seed deals the same match from the env's generator."""
    rng = np.random.default_rng(hands)
    for seed in range(3):
        original = envs.AtoutEnv(game, hands=hands, reward="margin")
        original.reset(seed=seed)
        for _ in range(int(rng.integers(1, 30 * hands))):
            if not original.agents or original.terminations[original.agent_selection]:
                break
            original.step(
                int(rng.choice(np.flatnonzero(original.observe(original.agent_selection)["action_mask"])))
            )
        other = ROUND_TRIPS[how](original)
        assert other is not original and other.table is not original.table
        while original.agents:
            assert aec_step_result(other) == aec_step_result(original)
            _, _, terminated, truncated, _ = original.last()
            mask = original.observe(original.agent_selection)["action_mask"]
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(mask)))
            other.step(action)
            original.step(action)
        assert not other.agents
        other.reset()
        original.reset()
        assert aec_step_result(other) == aec_step_result(original)


# ----- Gymnasium ----------------------------------------------------------------------------------------
def gym_result(result: tuple[Any, ...]) -> tuple[Any, ...]:
    obs, *rest = result
    return obs["observation"].tolist(), obs["action_mask"].tolist(), *rest


@pytest.mark.parametrize("how", ROUND_TRIPS)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("opponents", ["random", "heuristic"])
def test_a_gymnasium_seat_env_in_play_round_trips_and_plays_on_identically(
    single: ModuleType, game: str, opponents: str, how: str
) -> None:
    """The learner's env, mid-episode (the bots have played up to its turn), copied: the same actions
    give the same observations, rewards, ends and infos (the bots' own random draws come along), and
    the next ``reset()`` without a seed deals the same match from the env's generator."""
    rng = np.random.default_rng(5)
    for seed in range(3):
        original = single.SeatEnv(game, opponents=opponents, seat=None, hands=2, reward="margin")
        obs, _ = original.reset(seed=seed)
        for _ in range(int(rng.integers(0, 12))):
            obs, _, terminated, truncated, _ = original.step(
                int(rng.choice(np.flatnonzero(obs["action_mask"])))
            )
            if terminated or truncated:
                obs, _ = original.reset()
        other = ROUND_TRIPS[how](original)
        assert other.seat == original.seat and np.array_equal(other.action_masks(), original.action_masks())
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(original.action_masks())))
            expected = original.step(action)
            assert gym_result(other.step(action)) == gym_result(expected)
            done = expected[2] or expected[3]
        assert gym_result(other.reset()) == gym_result(original.reset())


@pytest.mark.parametrize("game", GAMES)
def test_a_registered_gymnasium_env_with_its_wrappers_round_trips(
    gymnasium: ModuleType, single: ModuleType, game: str
) -> None:
    """``gymnasium.make`` wraps the env (order enforcing, the passive checker): the whole pickles, here
    in the second hand of its episode (the first one scored: the match holds its record, ALL-7)."""
    original = gymnasium.make(single.IDS[game], opponents="heuristic", seat=2, hands=2)
    obs, _ = original.reset(seed=9)
    rng = np.random.default_rng(9)
    while original.unwrapped.table.hands_played == 0:
        obs, *_ = original.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    copies = {how: round_trip(original) for how, round_trip in ROUND_TRIPS.items()}
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        result = original.step(action)
        for how, other in copies.items():
            assert gym_result(other.step(action)) == gym_result(result), how
        obs, _, terminated, truncated, _ = result
        done = terminated or truncated


# ----- the vector env -------------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ROUND_TRIPS)
@pytest.mark.parametrize("game", GAMES)
def test_a_vector_env_in_play_round_trips_and_plays_on_identically(game: str, how: str) -> None:
    """N tables mid-hand (a discard half picked among them, perhaps) shipped to a subprocess or kept
    in a checkpoint: the copy steps as the original, rewards and re-deals included."""
    vector = pytest.importorskip("atout.learn.vector")
    original = vector.VectorTables(game, 8)
    obs, _ = original.reset(seed=3)
    rng = np.random.default_rng(3)

    def random_ids(masks: Any) -> list[int]:
        return [int(rng.choice(np.flatnonzero(row))) for row in masks]

    for _ in range(40):
        obs, *_ = original.step(random_ids(obs["action_mask"]))
    other = ROUND_TRIPS[how](original)
    for _ in range(300):
        ids = random_ids(obs["action_mask"])
        expected, copied = original.step(ids), other.step(ids)
        for mine, theirs in zip(expected[:4], copied[:4], strict=True):
            if isinstance(mine, dict):
                assert all(np.array_equal(mine[k], theirs[k]) for k in mine)
            else:
                assert np.array_equal(mine, theirs)
        obs = expected[0]
