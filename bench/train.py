"""The shipped learned policies (``bot:learned``) scored on duplicate deals, and the recipe that trains them.

For each game, the policy shipped in workers/bots/policies/<game>.json.gz (trained by expert
iteration, atout.learn.exit) plays ``--deals`` duplicate deals against ``random`` and against
``heuristic`` (each deal twice on the same cards, the policy holding seats 0+2 then 1+3; euchre:
seat 0 alone, then seats 1..4; atout.learn.train.evaluate): its points per deal (its side's margin
over the other's) with a 95% interval, the training time and the learning curve recorded in the
file when it was trained.

``--train GAME[,GAME]`` (or ``all``) trains those games first, for ``--seconds`` (default: Le Rough
1,500 s, the others 600 s) on ``--jobs`` processes, scores each round's network against the heuristic
on 200 deals (the learning curve: evaluation time, not training time), and writes the policy file
the bot ships (``make compile`` is not needed: the weights are data).

    python bench/train.py [--quick] [--train GAMES] [--seconds S] [--deals N] [--jobs J]

``--quick`` (under a minute) scores the shipped policies over 40 deals (``quick=1``) and trains Le
Rough for 15 s into a temporary file (the recipe runs; its figures are not the shipped policy's).
The last line is ``bench train: key=value ...``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from atout.learn import exit as recipe
from atout.learn.mlp import MLPPolicy
from atout.learn.train import Score, evaluate
from workers.bots.learned import POLICIES

GAMES = ("rough", "five_hundred", "euchre5")
SECONDS = {"rough": 1500.0, "five_hundred": 600.0, "euchre5": 600.0}
"""Training budgets: the headline game gets most of the half hour, the two others less each."""
ROUNDS = 5
"""Rounds of labelling and fitting: the points of the learning curve."""
CURVE_DEALS = 200
EVAL_SEED = 10_001
"""The evaluation's first deal: the same deals for every policy (training deals are >= 10**9)."""


def shown(score: Score) -> str:
    return f"{score.mean:.2f} [{score.low:.2f}, {score.high:.2f}]"


def train_game(game: str, seconds: float, jobs: int, out: Path, curve_deals: int = CURVE_DEALS) -> MLPPolicy:
    """Train ``game``, score each round's network against the heuristic, write the policy to ``out``."""
    print(f"{game}: training for {seconds:.0f} s on {jobs} processes", flush=True)
    trained = recipe.train(
        game, seconds=seconds, rounds=ROUNDS, jobs=jobs, log=lambda line: print("  " + line, flush=True)
    )
    curve: list[dict[str, Any]] = []
    for point in trained.curve:
        score = evaluate(point.policy, "heuristic", deals=curve_deals, seed=EVAL_SEED, jobs=jobs)
        print(
            f"  after {point.seconds:.0f} s: {shown(score)} points a deal vs heuristic ({curve_deals} deals)"
        )
        curve.append(
            {
                "seconds": round(point.seconds, 1),
                "labels": point.labels,
                "held_out_loss": round(point.held_out_loss, 4),
                "agreement": round(point.agreement, 4),
                "heuristic_agreement": round(point.heuristic_agreement, 4),
                "vs_heuristic": [round(score.mean, 2), round(score.low, 2), round(score.high, 2)],
                "deals": curve_deals,
            }
        )
    policy = trained.policy
    policy.meta["curve"] = curve
    policy.meta["start_loss"] = round(trained.start_loss, 4)
    out.parent.mkdir(parents=True, exist_ok=True)
    policy.save(out)
    print(f"  wrote {out} ({out.stat().st_size // 1024} KiB)", flush=True)
    return policy


def score_game(game: str, policy: MLPPolicy, deals: int, jobs: int, figures: dict[str, str]) -> None:
    """The policy against random and heuristic on ``deals`` duplicate deals, into ``figures``."""
    started = time.perf_counter()
    for opponent in ("random", "heuristic"):
        s = evaluate(policy, opponent, deals=deals, seed=EVAL_SEED, jobs=jobs)
        print(f"{game:13s} learned vs {opponent:9s}: {shown(s)} points a deal over {deals} duplicate deals")
        figures[f"{game}_vs_{opponent}"] = f"{s.mean:.2f}"
        figures[f"{game}_vs_{opponent}_ci"] = f"[{s.low:.2f},{s.high:.2f}]"
    meta = policy.meta
    print(
        f"{'':13s} trained {meta.get('seconds', float('nan')):.0f} s ({meta.get('labels', 0)} labels, "
        f"{meta.get('hands', 0)} hands), scored in {time.perf_counter() - started:.0f} s"
    )
    for point in meta.get("curve", []):
        mean, low, high = point["vs_heuristic"]
        print(
            f"{'':13s}   curve: {point['seconds']:6.0f} s {point['labels']:7d} labels  held-out loss "
            f"{point['held_out_loss']:.3f}  vs heuristic {mean:.1f} [{low:.1f}, {high:.1f}]"
        )
    figures[f"{game}_train_s"] = f"{meta.get('seconds', float('nan')):.0f}"
    figures[f"{game}_labels"] = str(meta.get("labels", 0))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="40 deals, a 15 s training (under a minute)")
    p.add_argument("--train", default="", help="games to train first (comma-separated, or all)")
    p.add_argument("--seconds", type=float, default=None, help="training time per game (default per game)")
    p.add_argument("--deals", type=int, default=None, help="duplicate deals per opponent (1000, quick 40)")
    p.add_argument("--jobs", type=int, default=2, help="processes for training and scoring")
    p.add_argument("--games", default=",".join(GAMES), help="games to score (comma-separated)")
    args = p.parse_args()
    deals = args.deals or (40 if args.quick else 1000)
    to_train = list(GAMES) if args.train == "all" else [g for g in args.train.split(",") if g]
    figures: dict[str, str] = {}
    for game in to_train:
        train_game(game, args.seconds or SECONDS[game], args.jobs, POLICIES / f"{game}.json.gz")
    for game in [g for g in args.games.split(",") if g]:
        score_game(game, MLPPolicy.load(POLICIES / f"{game}.json.gz"), deals, args.jobs, figures)
    if args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            quick = train_game("rough", args.seconds or 15.0, args.jobs, Path(tmp) / "rough.json.gz", 40)
        figures["quick_train_labels"] = str(quick.meta["labels"])
    print(
        "bench train: "
        + " ".join(f"{k}={v}" for k, v in figures.items())
        + f" deals={deals} jobs={args.jobs} quick={int(args.quick)}"
    )


if __name__ == "__main__":
    main()
