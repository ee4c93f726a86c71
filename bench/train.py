"""Train the small policy of atout.learn.train on this machine's CPU, then score it on duplicate deals.

A linear softmax policy over the legal actions, trained by REINFORCE (with a linear critic as the
baseline) in the Gymnasium single-seat environment (``atout.learn.single.SeatEnv``: one hand of
Le Rough, the learner at a random seat, ``random`` bots at the others), for ``--seconds``. Then it
plays ``--deals`` duplicate deals against ``random`` and against ``heuristic`` (each deal twice, the
policy at seats 0+2 then 1+3 on the same cards): its points per deal (its team's margin over the
other's) with a 95% interval. The untrained policy (all weights zero: it always passes and plays
its lowest card) is scored against ``random`` too, as the floor any training must clear.

    python bench/train.py [--quick] [--seconds S] [--deals N] [--seed K]

``--quick`` (under a minute) trains for 15 s and scores over 40 deals (fewer than the 200 of a
full run: said so by ``quick=1``). The last line is ``bench train: key=value ...``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from atout.learn.train import LinearPolicy, Score, evaluate, train

GAME = "rough"


def shown(score: Score) -> str:
    return f"{score.mean:.1f} [{score.low:.1f}, {score.high:.1f}]"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="15 s of training, 40 deals (under a minute)")
    p.add_argument("--seconds", type=float, default=None, help="training time (default 180, quick 15)")
    p.add_argument("--deals", type=int, default=None, help="duplicate deals per opponent (200, quick 40)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    seconds = args.seconds or (15.0 if args.quick else 180.0)
    deals = args.deals or (40 if args.quick else 200)
    trained = train(GAME, episodes=10**9, seconds=seconds, seed=args.seed)
    print(f"trained {trained.episodes} hands in {trained.seconds:.0f} s")
    untrained = evaluate(LinearPolicy.zeros(GAME), "random", deals=deals, seed=10_000 + args.seed)
    print(f"untrained vs random: {shown(untrained)}")
    scores = {}
    for opponent in ("random", "heuristic"):
        scores[opponent] = evaluate(trained.policy, opponent, deals=deals, seed=10_000 + args.seed)
        print(f"trained vs {opponent}: {shown(scores[opponent])} points per deal")
    r, h = scores["random"], scores["heuristic"]
    print(
        f"bench train: game={GAME} train_s={trained.seconds:.0f} episodes={trained.episodes} "
        f"vs_random={r.mean:.1f} vs_random_ci=[{r.low:.1f},{r.high:.1f}] "
        f"vs_heuristic={h.mean:.1f} vs_heuristic_ci=[{h.low:.1f},{h.high:.1f}] "
        f"untrained_vs_random={untrained.mean:.1f} deals={deals} quick={int(args.quick)}"
    )


if __name__ == "__main__":
    main()
