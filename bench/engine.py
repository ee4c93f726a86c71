"""Engine speed: random playouts of each game, JSON round trip, and OpenSpiel's euchre.

For each game: complete hands per second and actions per second of uniformly random
playouts on one core (deal, bidding, play to the end of the hand; the legal actions
computed at every step) through ``engine.random_move`` / ``engine.push``, the in-place
path the search bots use (a property test ties ``push`` to ``apply``). Then the JSON round
trip of a mid-hand match, and the size of a mid-match state's JSON.

In the same run, interleaved in short slices so that the load of a shared machine falls on
all alike: euchre5 on the compiled engine (mypyc), OpenSpiel's four-player ``euchre`` driven
from Python (``pip install '.[bench]'``), and euchre5 through the *public* path a bot author
or an RL loop calls: ``engine.legal_actions`` (JSON dicts) and ``engine.apply`` (a new match
each step, the old one unchanged). Every loop picks its move the same way (one
``rng.random()``), so the ratios compare engines, not pickers. The plain-Python figures of the
same loops come from a child process with ``ATOUT_PURE_ENGINE=1``.

    python bench/engine.py [--quick]

The last line is ``bench engine: key=value ...`` with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine

GAMES = ("five_hundred", "rough", "euchre5")


class OurPlayouts:
    """Random playouts of one game, resumable so that runs can be interleaved."""

    def __init__(self, game: str, seed: int = 1) -> None:
        self.game, self.seed = game, seed
        self.rng = random.Random(seed)
        self.m = engine.new_match(game, seed=seed)
        self.hands = self.actions = 0
        self.elapsed = 0.0

    def run(self, seconds: float) -> None:
        push, random_move, rng = engine.push, engine.random_move, self.rng
        m = self.m
        actions = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            hand = m.hand_number
            while m.hand_number == hand and m.to_act is not None:
                push(m, m.to_act, random_move(m, rng))  # random_move computes the legal moves
                actions += 1
            self.hands += 1
            if m.to_act is None:
                m = engine.new_match(self.game, seed=self.seed + self.hands)
            if time.perf_counter() >= deadline:
                break
        self.m = m
        self.actions += actions
        self.elapsed += time.perf_counter() - start


class OpenSpielPlayouts:
    """The same loop on OpenSpiel's euchre: chance outcomes and legal actions drawn uniformly."""

    def __init__(self, seed: int = 1) -> None:
        import pyspiel  # type: ignore[import-not-found]

        self.game = pyspiel.load_game("euchre")
        self.rng = random.Random(seed)
        self.hands = 0
        self.elapsed = 0.0

    def run(self, seconds: float) -> None:
        rng, game = self.rng, self.game
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(rng.random() * len(legal))])
            self.hands += 1
            if time.perf_counter() >= deadline:
                break
        self.elapsed += time.perf_counter() - start


class PublicPlayouts(OurPlayouts):
    """Random playouts through the public JSON path: ``legal_actions`` gives dicts, one is picked
    (a discard template is answered with a random choice of its cards), ``apply`` returns a new
    match. Its own loop, not a step method shared with ``OurPlayouts``: a call per step would
    slow the loop it is compared with."""

    def run(self, seconds: float) -> None:
        apply, legal_actions, rng = engine.apply, engine.legal_actions, self.rng
        m = self.m
        actions = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            hand = m.hand_number
            while m.hand_number == hand and m.to_act is not None:
                seat = m.to_act
                legal = legal_actions(m, seat)
                action = legal[int(rng.random() * len(legal))]
                if "count" in action:  # the discard template: choose that many of its cards
                    action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
                m = apply(m, seat, action)
                actions += 1
            self.hands += 1
            if m.to_act is None:
                m = engine.new_match(self.game, seed=self.seed + self.hands)
            if time.perf_counter() >= deadline:
                break
        self.m = m
        self.actions += actions
        self.elapsed += time.perf_counter() - start


def compare_with_openspiel(seconds: float) -> dict[str, float] | None:
    """Hands/s of euchre5 through ``push``, of euchre5 through the public ``apply`` path, and of
    OpenSpiel's euchre, measured in alternating slices of the same run."""
    try:
        theirs = OpenSpielPlayouts()
    except ImportError:
        return None
    ours, public = OurPlayouts("euchre5"), PublicPlayouts("euchre5")
    slices = max(6, int(seconds / 0.5))
    rounds: list[tuple[float, float]] = []
    for _ in range(slices):
        before = (ours.hands, ours.elapsed, theirs.hands, theirs.elapsed)
        ours.run(seconds / slices / 2)
        public.run(seconds / slices / 4)
        theirs.run(seconds / slices / 4)
        mine = (ours.hands - before[0]) / (ours.elapsed - before[1])
        other = (theirs.hands - before[2]) / (theirs.elapsed - before[3])
        rounds.append((mine, other))
    ratios = sorted(a / b for a, b in rounds)
    return {
        "push": ours.hands / ours.elapsed,
        "public": public.hands / public.elapsed,
        "openspiel": theirs.hands / theirs.elapsed,
        "ratio_low": ratios[0],
        "ratio_high": ratios[-1],
    }


def mid_hand(game: str, seed: int = 5) -> engine.Match:
    """A match in its third hand, halfway through the tricks."""
    rng = random.Random(seed)
    m = engine.new_match(game, seed=seed)
    g = engine.game(game)
    while m.to_act is not None and not (m.hand_number >= 3 and len(m.tricks) == g.hand_size // 2):
        engine.push(m, m.to_act, engine.random_move(m, rng))
    return m


def round_trip_us(m: engine.Match, repeat: int) -> float:
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            engine.from_json(engine.to_json(m))
        samples.append((time.perf_counter() - start) / repeat * 1e6)
    return statistics.median(samples)


def measure(seconds: float, repeat: int) -> tuple[dict[str, str], list[str]]:
    """Every figure of the engine this process runs (``engine.BUILD``), and the lines to print."""
    build = engine.BUILD
    figures: dict[str, str] = {}
    lines: list[str] = [f"engine build: {build}"]
    prefix = "" if build == "compiled" else "pure_"
    for game in GAMES:
        run = OurPlayouts(game)
        run.run(seconds)
        hands, actions = run.hands / run.elapsed, run.actions / run.elapsed
        m = mid_hand(game)
        size = len(engine.to_json(m).encode())
        rt = round_trip_us(m, repeat)
        lines.append(
            f"{build:8s} {game:13s} {hands:9.0f} hands/s {actions:10.0f} actions/s   "
            f"JSON round trip {rt:6.1f} us   mid-match state {size} bytes"
        )
        figures[f"{prefix}{game}_hands_per_s"] = f"{hands:.0f}"
        figures[f"{prefix}{game}_actions_per_s"] = f"{actions:.0f}"
        figures[f"{prefix}{game}_json_roundtrip_us"] = f"{rt:.1f}"
        if not prefix:
            figures[f"{game}_state_bytes"] = str(size)
    compared = compare_with_openspiel(2 * seconds)
    if compared is None:
        lines.append("OpenSpiel not installed (pip install '.[bench]'): no ratio")
        figures[f"{prefix}ratio_euchre5_vs_openspiel"] = "na"
        figures[f"{prefix}ratio_public_apply_vs_openspiel"] = "na"
        return figures, lines
    push, public, theirs = compared["push"], compared["public"], compared["openspiel"]
    lines.append(
        f"{build:8s} interleaved: euchre5 {push:.0f} hands/s (push), {public:.0f} hands/s (public "
        f"legal_actions + apply), OpenSpiel euchre {theirs:.0f} hands/s; ratios {push / theirs:.2f} "
        f"(rounds {compared['ratio_low']:.2f}-{compared['ratio_high']:.2f}) and {public / theirs:.2f}"
    )
    figures[f"{prefix}euchre5_interleaved_hands_per_s"] = f"{push:.0f}"
    figures[f"{prefix}euchre5_public_apply_hands_per_s"] = f"{public:.0f}"
    figures[f"{prefix}openspiel_euchre_hands_per_s"] = f"{theirs:.0f}"
    figures[f"{prefix}ratio_euchre5_vs_openspiel"] = f"{push / theirs:.2f}"
    figures[f"{prefix}ratio_euchre5_vs_openspiel_low"] = f"{compared['ratio_low']:.2f}"
    figures[f"{prefix}ratio_euchre5_vs_openspiel_high"] = f"{compared['ratio_high']:.2f}"
    figures[f"{prefix}ratio_public_apply_vs_openspiel"] = f"{public / theirs:.2f}"
    return figures, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (under a minute)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the pure child's answer
    args = parser.parse_args()
    seconds = 2.0 if args.quick else 15.0
    repeat = 200 if args.quick else 2000
    if args.json:
        print(json.dumps(measure(seconds, repeat)))
        return
    figures: dict[str, str] = {"engine_build": engine.BUILD}
    if engine.BUILD == "compiled":  # the plain modules of the same source, in a child process
        child = subprocess.run(
            [sys.executable, __file__, "--json", *(["--quick"] if args.quick else [])],
            env={**os.environ, "ATOUT_PURE_ENGINE": "1"},
            capture_output=True,
            text=True,
            check=True,
        )
        pure_figures, pure_lines = json.loads(child.stdout)
        print("\n".join(pure_lines))
        figures.update(pure_figures)
    else:
        print("the engine is not compiled here (no C compiler?): plain-Python figures only")
    own, lines = measure(seconds, repeat)
    print("\n".join(lines))
    figures.update(own)
    if "pure_euchre5_hands_per_s" in figures and "euchre5_hands_per_s" in figures:
        speedup = int(figures["euchre5_hands_per_s"]) / int(figures["pure_euchre5_hands_per_s"])
        figures["compiled_speedup_euchre5"] = f"{speedup:.2f}"
    print("bench engine: " + " ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
