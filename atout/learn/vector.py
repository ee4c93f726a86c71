"""Self-play on many tables at once: N matches of one game stepped by one array of action ids.

``VectorTables("rough", num_envs=64)`` holds N tables; at every step each table has one seat to
act, and the batch gives that seat's observation (atout.learn.encoding's vector, the same numbers)
and legal-action mask as whole numpy arrays, ``(N, size)`` float32 and ``(N, actions)`` int8, with
``info["seat"]`` the seat each row belongs to. ``step(actions)`` takes one id per table (a discard
of N cards is N picks, atout.learn.spaces). An episode is ``hands`` hands (1 by default; None: the
match, truncated after the arena's ``MAX_HANDS``), and a finished table is dealt a new match in the
same step (Gymnasium's "same-step" autoreset): the row then already shows the new episode's first
turn, and ``terminated`` / ``truncated`` say the old one ended. Rewards come when a hand is scored,
one per *seat*: ``(N, players)``, each seat's points of the hand (``reward="points"``, the team's in
Le 500 and Le Rough, atout.learn.table.hand_points) or its margin over its opponents (``"margin"``,
zero-sum); ``info["results"]`` maps the tables that scored a hand to the engine's result.

**Why this API.** Gymnasium's vector API fits the shape of the calls (``reset(seed=) -> (obs,
info)``, ``step(actions) -> (obs, rewards, terminated, truncated, info)``, batched spaces with
``single_observation_space`` / ``single_action_space``, autoreset), and that shape is kept. But these
are turn-based games of four or five seats played by one policy for all of them, so a reward is
per seat, not per table, and the learner needs to know whose turn each row is: pgx's vectorised
games (sotetsuk/pgx) settle it the same way, ``current_player`` and ``rewards`` of shape
``(N, num_players)``. Gymnasium's ``VectorEnv`` wrappers assume one reward per table, so the class
does not pretend to be one. PettingZoo's parallel API steps every agent of *one* environment at
once, which a game where one seat acts at a time cannot use; it vectorises nothing either.

**Reproducible.** ``reset(seed=s)`` gives table ``i`` its own ``random.Random(f"{s}/{i}")``, which
draws the match seed (``engine.new_match(game, seed=...)``) of each of its episodes in turn
(``info["match_seed"]``): the same seed and the same actions give the same games, whatever the
other tables do.

**Fast.** Each step reads the engine's match for the seat to act (workers.bots.observe and
action_ids, compiled with the bots: no view is built, no JSON), collects every table's non-zero
entries and legal ids in flat lists, and scatters them into the arrays once for the batch.
``bench/selfplay.py`` measures it against the bare engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces  # optional dependency: the `learn` extra
from gymnasium.vector.utils import batch_space  # optional dependency: the `learn` extra

import engine
from atout.learn.encoding import Mask, size
from atout.learn.spaces import JSON, action_space
from atout.learn.table import hand_points, margins
from workers.arena.base import MAX_HANDS
from workers.bots.observe import count_columns, count_divisors
from workers.bots.selfplay import Tables

REWARDS = ("points", "margin")
Observations = dict[str, npt.NDArray[Any]]
Step = tuple[
    Observations, npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
]


class VectorTables:
    """N tables of one game for self-play (see the module's docstring)."""

    metadata = {"autoreset_mode": "same-step"}

    def __init__(
        self,
        game: str = "rough",
        num_envs: int = 16,
        hands: int | None = 1,
        options: JSON | None = None,
        reward: str = "points",
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if hands is not None and hands < 1:
            raise ValueError(f"an episode is at least one hand, not {hands}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        g = engine.game(game)
        self.game, self.num_envs, self.hands, self.reward = game, num_envs, hands, reward
        self.options = g.validate_options(options)
        self.players: int = g.players
        self.size, self.actions = size(game), action_space(game).size
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (self.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.actions,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(self.actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = spaces.MultiDiscrete([self.actions] * num_envs)
        self.tables = Tables([])
        self._count_columns = np.array(count_columns(game), np.intp)
        self._divisors = np.array(count_divisors(game, self.options["target_score"]), np.float64)
        self.hands_played: list[int] = []
        self.match_seeds: list[int] = []
        self._rngs: list[random.Random] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observations, dict[str, Any]]:
        """Every table dealt a new match: from table ``i``'s generator ``f"{seed}/{i}"`` (a fresh
        random seed when ``seed`` is None)."""
        base = seed if seed is not None else random.SystemRandom().getrandbits(62)
        n = self.num_envs
        self._rngs = [random.Random(f"{base}/{i}") for i in range(n)]
        self.hands_played, self.match_seeds = [0] * n, [0] * n
        self.tables = Tables([self._deal(i) for i in range(n)])
        return self._observations(), self._info({})

    def step(self, actions: Sequence[int] | npt.NDArray[np.integer[Any]]) -> Step:
        """One id per table, taken by the seat to act there (``info["seat"]`` of the last step).
        Every id is checked against its table's mask before any table moves: an illegal one raises
        ``ValueError`` and changes nothing."""
        ids: list[int] = np.asarray(actions, np.int64).reshape(-1).tolist()
        if len(ids) != self.num_envs:
            raise ValueError(f"one action per table: {self.num_envs} expected, {len(ids)} given")
        if not self.hands_played:
            raise RuntimeError("reset() first")
        bad = self.tables.illegal(ids)
        if bad >= 0:
            legal = self.tables.legal[bad]
            raise ValueError(f"table {bad}: action id {ids[bad]} is not legal now (legal: {legal})")
        rewards = np.zeros((self.num_envs, self.players), np.float32)
        terminated = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        results: dict[int, JSON] = {}
        matches = self.tables.matches
        for i in self.tables.step(ids):
            m = matches[i]
            assert m.prev is not None
            points = hand_points(self.game, m.prev.result)
            rewards[i] = margins(self.game, points) if self.reward == "margin" else points
            results[i] = m.prev.result
            self.hands_played[i] += 1
            if m.over or self.hands_played[i] >= (self.hands or MAX_HANDS):
                (terminated if m.over or self.hands is not None else truncated)[i] = True
                matches[i] = self._deal(i)
        return self._observations(), rewards, terminated, truncated, self._info(results)

    def _deal(self, i: int) -> engine.Match:
        """Table ``i``'s next episode: a new match from its own generator."""
        self.match_seeds[i] = self._rngs[i].getrandbits(62)
        self.hands_played[i] = 0
        return engine.new_match(self.game, seed=self.match_seeds[i], options=self.options)

    def _observations(self) -> Observations:
        """Every table's row, written by the compiled core and scattered into the arrays at once:
        the ones by their flat indices, the counts divided column by column (the same divisions,
        in float64, as the single-seat encoding)."""
        ones: list[int] = []
        counts: list[int] = []
        at: list[int] = []
        self.tables.write(ones, counts, at)
        n = self.num_envs
        obs = np.zeros((n, self.size), np.float32)
        obs.reshape(-1)[np.fromiter(ones, np.intp, len(ones))] = 1.0
        values = np.fromiter(counts, np.float64, len(counts)).reshape(n, -1) / self._divisors
        obs[:, self._count_columns] = np.clip(values, -1.0, 1.0)
        mask: Mask = np.zeros((n, self.actions), np.int8)
        mask.reshape(-1)[np.fromiter(at, np.intp, len(at))] = 1
        return {"observation": obs, "action_mask": mask}

    def _info(self, results: dict[int, JSON]) -> dict[str, Any]:
        return {
            "seat": np.array(self.tables.seats, np.int64),
            "match_seed": np.array(self.match_seeds, np.int64),
            "results": results,
        }

    @property
    def matches(self) -> list[engine.Match]:
        """Each table's match as it stands (its seat to act is ``info["seat"]``)."""
        return self.tables.matches

    def picks(self, i: int) -> list[str]:
        """The cards the seat to act at table ``i`` has picked so far for its discard."""
        return self.tables.picked[i][:]

    def close(self) -> None:
        pass


__all__ = ["REWARDS", "VectorTables"]
