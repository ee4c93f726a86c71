"""The three games as OpenSpiel Python games (atout.learn.spiel): OpenSpiel's own random simulation
test, determinization (``resample_from_infostate``) and its Python IS-MCTS and MCTS, out of the box."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402  (after the extra is found)

from atout.learn import spiel  # noqa: E402
from atout.learn.encoding import size  # noqa: E402
from atout.learn.spaces import action_space  # noqa: E402

GAMES = ["five_hundred", "rough", "euchre5"]


@pytest.mark.parametrize("game", GAMES)
def test_registered_and_openspiel_random_simulation_passes(game: str) -> None:
    loaded = pyspiel.load_game(spiel.NAMES[game])
    assert loaded.get_type().short_name == f"python_atout_{game}"
    assert loaded.num_distinct_actions() == action_space(game).size
    assert loaded.information_state_tensor_shape() == [size(game)]
    pyspiel.random_sim_test(loaded, num_sims=10, serialize=False, verbose=False)


@pytest.mark.parametrize("game", GAMES)
def test_parameters_choose_the_dealer_and_the_options(game: str) -> None:
    loaded = spiel.load(game, dealer=2, target_score=engine_target(game))
    state = loaded.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.table is not None and state.table.match.dealer == 2
    assert state.table.match.options["target_score"] == engine_target(game)
    with pytest.raises(ValueError, match="dealer"):
        spiel.load(game, dealer=9)


def engine_target(game: str) -> int:
    return {"five_hundred": 500, "rough": 200, "euchre5": 5}[game]


@pytest.mark.parametrize("game", GAMES)
def test_resampled_states_are_indistinguishable_to_the_seat(game: str) -> None:
    """At every decision of random hands, for every seat (the one to act mid-discard too), the
    resampled state has the same information state (string and tensor), and plays on to the end."""
    loaded = spiel.load(game)
    rng = random.Random(game)
    differs = 0
    for _ in range(2):
        state = loaded.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            for seat in range(loaded.num_players()):
                other = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
                assert other.information_state_string(seat) == state.information_state_string(seat)
                assert np.array_equal(
                    other.information_state_tensor(seat), state.information_state_tensor(seat)
                )
                assert other.current_player() == state.current_player()
                differs += other.history() != state.history()
            state.apply_action(rng.choice(state.legal_actions()))
    assert differs > 0  # the hidden cards were dealt anew
    final = other.clone()
    while not final.is_terminal():
        final.apply_action(rng.choice(final.legal_actions()))
    assert sum(final.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("game", GAMES)
def test_python_ismcts_and_mcts_play_a_hand(game: str) -> None:
    loaded = spiel.load(game)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    searchers = [
        ismcts.ISMCTSBot(
            loaded, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(2)
        ),
        mcts.MCTSBot(loaded, 2.0, 8, evaluator, random_state=np.random.RandomState(3), solve=False),
    ]
    rng = random.Random(1)
    state = loaded.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        bot = searchers[state.current_player() % 2]
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves >= loaded.num_players() and sum(state.returns()) == pytest.approx(0.0)


def test_bot_rollouts_search_and_complete_a_discard_in_progress() -> None:
    """``BotRollout`` (the heuristic playing every seat to the end of the hand) drives IS-MCTS, and
    ``bot_ids`` finishes a discard the taker has begun with a card of its own choosing."""
    loaded = spiel.load("rough")
    rng = random.Random(4)
    searcher = ismcts.ISMCTSBot(
        loaded, spiel.BotRollout(seed=1), 100.0, 4, random_state=np.random.RandomState(5)
    )
    state = loaded.new_initial_state()
    began_discard = False
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        elif state.table.match.phase == "discard" and not began_discard:
            first = state.legal_actions()[0]
            state.apply_action(first)
            began_discard = True
            picks = spiel.bot_ids(state, "heuristic", rng)
            assert len(picks) == 3 and first not in picks and len(set(picks)) == 3
            for pick in picks:
                state.apply_action(pick)
        elif state.current_player() % 2 == 0:
            state.apply_action(searcher.step(state))
        else:
            for action in spiel.bot_ids(state, "heuristic", rng):
                state.apply_action(action)
    assert began_discard and sum(state.returns()) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="bot level"):
        spiel.BotRollout("grandmaster")
