"""OpenSpiel's Python IS-MCTS against our heuristic bot, on duplicate deals of Le Rough.

Through the registration (``atout.learn.spiel``, ``python_atout_rough``): each deal is drawn by
chance (one card per chance node, from the deal's seed; the dealer turns with the deal) and played
twice, IS-MCTS holding seats 0+2 and the heuristic (``workers.bots``, the service's ``heuristic``
level) 1+3, then the seats swapped on the same cards, so the luck of the deal cancels. IS-MCTS
(``open_spiel.python.algorithms.ismcts``, random rollouts or ``--rollout heuristic``, a fresh
resampling of the hidden cards per simulation through ``resample_from_infostate``) decides with
``--simulations`` simulations. A deal's points are IS-MCTS's margin (its team's points of the hand
minus the heuristic's), the mean of the two seatings; the figure is their mean with a 95% interval
(workers.tournament).

    python bench/ismcts.py [--quick] [--deals N] [--simulations S] [--uct C] [--rollout R] [--seed K]

``--quick`` (under a minute) plays 3 deals at 8 simulations a move. The last line is
``bench ismcts: key=value ...``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from open_spiel.python.algorithms import ismcts, mcts

from atout.learn import spiel
from atout.learn.spaces import action_space
from workers.tournament import interval

GAME = "rough"


def play_hand(
    deal_seed: int, searcher_seats: tuple[int, ...], simulations: int, uct: float, rollout: str
) -> float:
    """One hand of the deal ``deal_seed``: IS-MCTS's mean margin over its seats."""
    dealer = deal_seed % 4
    game = spiel.load(GAME, dealer=dealer)
    state = game.new_initial_state()
    order = list(range(len(action_space(GAME).cards)))
    random.Random(f"ismcts-deal:{deal_seed}").shuffle(order)
    for card in order:
        state.apply_action(card)
    seeds = np.random.RandomState(deal_seed)
    evaluator = (
        mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=seeds)
        if rollout == "random"
        else spiel.BotRollout(rollout, seed=deal_seed)
    )
    searcher = ismcts.ISMCTSBot(game, evaluator, uct, simulations, random_state=seeds)
    rng = random.Random(f"ismcts-heuristic:{deal_seed}:{searcher_seats}")
    while not state.is_terminal():
        seat = state.current_player()
        if seat in searcher_seats:
            state.apply_action(searcher.step(state))
            continue
        for action in spiel.bot_ids(state, "heuristic", rng):
            state.apply_action(action)
    margins = state.returns()
    return float(np.mean([margins[s] for s in searcher_seats]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="3 deals, 8 simulations a move (under a minute)")
    p.add_argument("--deals", type=int, default=None, help="duplicate deals (default 20, quick 3)")
    p.add_argument("--simulations", type=int, default=None, help="per move (default 50, quick 8)")
    p.add_argument("--uct", type=float, default=100.0, help="UCT exploration, in points (margins ±200)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--rollout",
        default="random",
        choices=("random", "heuristic"),
        help="random moves (OpenSpiel's RandomRolloutEvaluator, the default) or the heuristic bot "
        "for every seat (atout.learn.spiel.BotRollout)",
    )
    args = p.parse_args()
    deals = args.deals or (3 if args.quick else 20)
    simulations = args.simulations or (8 if args.quick else 50)
    started = time.perf_counter()
    per_deal = []
    for i in range(deals):
        seed = args.seed + i
        both = [play_hand(seed, seats, simulations, args.uct, args.rollout) for seats in ((0, 2), (1, 3))]
        per_deal.append(float(np.mean(both)))
        print(f"deal {seed}: IS-MCTS {both[0]:+.1f} at seats 0+2, {both[1]:+.1f} at 1+3: {per_deal[-1]:+.1f}")
    mean, low, high = interval(per_deal)
    seconds = time.perf_counter() - started
    print(
        f"bench ismcts: game={GAME} opponent=heuristic deals={deals} simulations={simulations} "
        f"uct={args.uct:g} rollout={args.rollout} points_per_deal={mean:.1f} low={low:.1f} high={high:.1f} "
        f"seconds={seconds:.0f} quick={int(args.quick)}"
    )


if __name__ == "__main__":
    main()
