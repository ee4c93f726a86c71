"""Engine speed: random playouts of each game, JSON round trip, and OpenSpiel's euchre.

For each game: complete hands per second and actions per second of uniformly random
playouts on one core (deal, bidding, play to the end of the hand; the legal actions
computed at every step) through ``engine.legal_moves`` / ``engine.push``, the in-place
path the search bots use (tests/engine/test_push_agrees_with_apply.py ties it to
``apply``). Then the JSON round trip of a mid-hand match, and the size of a mid-match
state's JSON. In the same run, the same loop on OpenSpiel's four-player ``euchre`` driven
from Python (``pip install '.[bench]'``), and our euchre5 hands/s as a ratio to it.

    python bench/engine.py [--quick]

The last line is ``bench engine: key=value ...`` with every figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
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
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            hand = m.hand_number
            while m.hand_number == hand and m.to_act is not None:
                push(m, m.to_act, random_move(m, rng))  # random_move computes the legal moves
                self.actions += 1
            self.hands += 1
            if m.to_act is None:
                m = engine.new_match(self.game, seed=self.seed + self.hands)
            if time.perf_counter() >= deadline:
                break
        self.m = m
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
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            self.hands += 1
            if time.perf_counter() >= deadline:
                break
        self.elapsed += time.perf_counter() - start


def compare_with_openspiel(seconds: float) -> tuple[float, float] | None:
    """Ours and OpenSpiel's hands/s, measured in alternating slices of the same run so that
    the load of a shared machine falls on both alike."""
    try:
        theirs = OpenSpielPlayouts()
    except ImportError:
        return None
    ours = OurPlayouts("euchre5")
    slices = max(4, int(seconds / 0.5))
    for _ in range(slices):
        ours.run(seconds / slices)
        theirs.run(seconds / slices)
    return ours.hands / ours.elapsed, theirs.hands / theirs.elapsed


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (under a minute)")
    args = parser.parse_args()
    seconds = 3.0 if args.quick else 15.0
    figures: dict[str, str] = {}
    for game in GAMES:
        run = OurPlayouts(game)
        run.run(seconds)
        hands, actions = run.hands / run.elapsed, run.actions / run.elapsed
        m = mid_hand(game)
        size = len(engine.to_json(m).encode())
        rt = round_trip_us(m, 200 if args.quick else 2000)
        print(
            f"{game:13s} {hands:9.0f} hands/s {actions:10.0f} actions/s   "
            f"JSON round trip {rt:6.1f} us   mid-match state {size} bytes"
        )
        figures[f"{game}_hands_per_s"] = f"{hands:.0f}"
        figures[f"{game}_actions_per_s"] = f"{actions:.0f}"
        figures[f"{game}_json_roundtrip_us"] = f"{rt:.1f}"
        figures[f"{game}_state_bytes"] = str(size)
    compared = compare_with_openspiel(2 * seconds)
    if compared is None:
        print("OpenSpiel not installed (pip install '.[bench]'): no ratio")
        figures["openspiel_euchre_hands_per_s"] = "na"
        figures["ratio_euchre5_vs_openspiel"] = "na"
    else:
        ours, theirs = compared
        print(
            f"interleaved: euchre5 {ours:.0f} hands/s, OpenSpiel euchre {theirs:.0f} hands/s; "
            f"ratio {ours / theirs:.2f} (target >= 0.5)"
        )
        figures["euchre5_interleaved_hands_per_s"] = f"{ours:.0f}"
        figures["openspiel_euchre_hands_per_s"] = f"{theirs:.0f}"
        figures["ratio_euchre5_vs_openspiel"] = f"{ours / theirs:.2f}"
    print("bench engine: " + " ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
