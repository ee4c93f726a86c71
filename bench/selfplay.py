"""Self-play speed: hands per second of random play through every door a learner may use.

For each game, five loops play uniformly random legal actions, interleaved in short slices so that
the load of a shared machine falls on all alike (the ratios are the figures to trust; the hands/s
move with the load):

- ``engine``: the bare engine, ``engine.random_move`` + ``engine.push`` on one match after the other
  (bench/engine.py's loop: the reference, a discard one random action);
- ``arena``: ``workers.arena.play_match`` between two ``random`` sides (views and JSON legal actions
  for every decision, as a bot author's harness runs them), four hands a match;
- ``spiel``: the OpenSpiel game ``python_atout_<game>`` (atout.learn.spiel): a chance node per card
  dealt, then the legal ids, one hand a state;
- ``pettingzoo``: the AEC environment (atout.learn.envs), ``last()`` then ``step`` with an id drawn
  from the mask, one hand an episode;
- ``vector``: atout.learn.vector's ``VectorTables`` of ``--tables`` tables, one id per table drawn
  from the mask rows with numpy, one hand an episode (auto-reset).

A *hand* is one hand dealt and scored (a hand everybody passed counts, as in bench/engine.py); a
discard is one action in the engine and the arena, N picks elsewhere. ``--profile`` prints where the
PettingZoo and the vector loops of Le Rough spend their time (cProfile: a compiled function is one
entry, its inside unseen).

    python bench/selfplay.py [--quick] [--seconds S] [--tables N] [--profile] [--games G ...]

The last line is ``bench selfplay: key=value ...`` with every figure: ``<door>_<game>`` in hands/s
and ``<door>_ratio_<game>``, its share of the bare engine's rate.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from atout.learn import spiel
from atout.learn.envs import AtoutEnv
from atout.learn.vector import VectorTables
from workers.arena import Builtin, play_match

GAMES = ("five_hundred", "rough", "euchre5")
DOORS = ("engine", "arena", "spiel", "pettingzoo", "vector")


class Loop:
    """One door's random play, resumable: ``run(seconds)`` plays on for about that long."""

    def __init__(self, game: str, seed: int) -> None:
        self.game, self.seed = game, seed
        self.hands = 0
        self.elapsed = 0.0

    def run(self, seconds: float) -> None:
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            self.hands += self.play()
        self.elapsed += time.perf_counter() - start

    def play(self) -> int:
        """Play a little; the hands scored by it."""
        raise NotImplementedError

    @property
    def rate(self) -> float:
        return self.hands / self.elapsed if self.elapsed else 0.0


class Engine(Loop):
    def __init__(self, game: str, seed: int) -> None:
        super().__init__(game, seed)
        self.rng = random.Random(seed)
        self.m = engine.new_match(game, seed=seed)

    def play(self) -> int:
        m, rng = self.m, self.rng
        hand = m.hand_number
        while m.hand_number == hand and m.to_act is not None:
            engine.push(m, m.to_act, engine.random_move(m, rng))
        if m.to_act is None:
            self.m = engine.new_match(self.game, seed=self.seed + self.hands + 1)
        return 1


class Arena(Loop):
    def play(self) -> int:
        self.seed += 1
        side = Builtin("random")
        return play_match(
            self.game, self.seed, (0, 2) if self.game != "euchre5" else (0,), side, side, max_hands=4
        ).hands


class Spiel(Loop):
    def __init__(self, game: str, seed: int) -> None:
        super().__init__(game, seed)
        self.openspiel = spiel.load(game)
        self.rng = random.Random(seed)

    def play(self) -> int:
        rng = self.rng
        state = self.openspiel.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
        return 1


class PettingZoo(Loop):
    def __init__(self, game: str, seed: int) -> None:
        super().__init__(game, seed)
        self.env = AtoutEnv(game)
        self.rng = np.random.default_rng(seed)

    def play(self) -> int:
        env, rng = self.env, self.rng
        env.reset(seed=int(rng.integers(2**62)))
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
        return 1


class Vector(Loop):
    def __init__(self, game: str, seed: int, tables: int) -> None:
        super().__init__(game, seed)
        self.env = VectorTables(game, num_envs=tables)
        self.obs, _ = self.env.reset(seed=seed)
        self.rng = np.random.default_rng(seed)

    def play(self) -> int:
        mask = self.obs["action_mask"]
        actions = (self.rng.random(mask.shape, np.float32) * mask).argmax(axis=1)
        self.obs, _, _, _, info = self.env.step(actions)
        return len(info["results"])


def loops(game: str, tables: int) -> dict[str, Loop]:
    return {
        "engine": Engine(game, 1),
        "arena": Arena(game, 1),
        "spiel": Spiel(game, 1),
        "pettingzoo": PettingZoo(game, 1),
        "vector": Vector(game, 1, tables),
    }


def measure(game: str, seconds: float, tables: int, slice_s: float = 0.25) -> dict[str, float]:
    """Hands/s of every door for ``game``, each played about ``seconds`` in alternating slices."""
    doors = loops(game, tables)
    for loop in doors.values():
        loop.run(0.05)  # warm: first deals, caches
        loop.hands, loop.elapsed = 0, 0.0
    for _ in range(max(1, round(seconds / slice_s))):
        for loop in doors.values():
            loop.run(slice_s)
    return {door: loop.rate for door, loop in doors.items()}


def profile(loop: Loop, seconds: float, top: int = 14) -> str:
    """cProfile's busiest functions (own time) in ``seconds`` of ``loop``."""
    profiler = cProfile.Profile()
    profiler.runcall(loop.run, seconds)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 s a door and game (under a minute)")
    parser.add_argument("--seconds", type=float, default=None, help="per door and game (default 10)")
    parser.add_argument("--tables", type=int, default=64, help="tables of the vector environment")
    parser.add_argument("--profile", action="store_true", help="cProfile the PettingZoo and vector loops")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES), help="default: all three")
    args = parser.parse_args()
    seconds = args.seconds or (2.0 if args.quick else 10.0)
    figures: dict[str, str] = {"engine_build": engine.BUILD, "tables": str(args.tables)}
    print(f"engine build: {engine.BUILD}; {seconds:g} s a door and game, interleaved; {args.tables} tables")
    print(f"{'game':13s}" + "".join(f"{d:>12s}" for d in DOORS) + "   (hands/s; ratio to the engine)")
    for game in args.games:
        rates = measure(game, seconds, args.tables)
        base = rates["engine"]
        print(f"{game:13s}" + "".join(f"{rates[d]:12.0f}" for d in DOORS))
        print(f"{'':13s}" + "".join(f"{rates[d] / base:12.2f}" for d in DOORS))
        for door in DOORS:
            figures[f"{door}_{game}"] = f"{rates[door]:.0f}"
        for door in DOORS[1:]:
            figures[f"{door}_ratio_{game}"] = f"{rates[door] / base:.3f}"
    if args.profile:
        for name, loop in (
            ("pettingzoo", PettingZoo("rough", 2)),
            ("vector", Vector("rough", 2, args.tables)),
        ):
            print(f"--- cProfile: {name}, Le Rough")
            print(profile(loop, min(seconds, 5.0)))
    print("bench selfplay: " + " ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
