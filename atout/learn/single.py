"""A single-agent Gymnasium environment: the learner holds one seat, built-in bots the others.

``SeatEnv("rough", opponents="random")`` seats the learner at ``seat`` (None: a seat drawn at each
reset) and plays every other seat with a level of ``workers.bots`` (``random``, ``heuristic``,
``expert``): ``opponents`` for the other side, ``partner`` for the learner's partner in Le 500 and
Le Rough (default: the same level as the opponents). Observations are the dict PettingZoo's card
games use: ``observation`` (atout.learn.encoding's vector) and ``action_mask`` (int8 over the fixed
action space, atout.learn.spaces); :meth:`SeatEnv.action_masks` gives the mask alone (the name
sb3-contrib's maskable algorithms call).

An episode is ``hands`` hands (1 by default, None: the match). The reward comes when a hand is
scored: the learner's points of the hand (``reward="points"``: its team's in Le 500 and Le Rough,
atout.learn.table.hand_points) or its margin over its opponents (``reward="margin"``). An action
outside the mask ends the episode at once with ``illegal_reward`` (the worst margin of a hand by
default) and ``info["illegal"] = True``: masked policies never take one, and Gymnasium's checker,
which samples actions blindly, gets an answer rather than an exception.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium  # optional dependency: the `learn` extra
import numpy as np
from gymnasium import spaces  # optional dependency: the `learn` extra

import engine
from atout.learn.encoding import Mask
from atout.learn.envs import REWARDS, observation_space
from atout.learn.spaces import JSON, action_space
from atout.learn.table import MAX_MARGIN, Table, margins
from workers import bots


class SeatEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of an Atout game against built-in bots (see the module's docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        game: str = "rough",
        opponents: str = "random",
        partner: str | None = None,
        seat: int | None = None,
        hands: int | None = 1,
        options: JSON | None = None,
        reward: str = "points",
        illegal_reward: float | None = None,
        budget_s: float = 0.05,
        render_mode: str | None = None,
    ) -> None:
        g = engine.game(game)
        for level in (opponents, partner or opponents):
            if level not in bots.LEVELS:
                raise ValueError(f"unknown bot level {level!r}; known: {', '.join(bots.LEVELS)}")
        if seat is not None and not 0 <= seat < g.players:
            raise ValueError(f"seat must be 0..{g.players - 1} or None, not {seat}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.game, self.opponents, self.partner = game, opponents, partner or opponents
        self.fixed_seat, self.hands, self.reward, self.budget_s = seat, hands, reward, budget_s
        self.options = g.validate_options(options)
        self.illegal_reward = -MAX_MARGIN[game] if illegal_reward is None else illegal_reward
        self.render_mode = render_mode
        self.observation_space = observation_space(game)
        self.action_space = spaces.Discrete(action_space(game).size)
        self.seat = seat if seat is not None else 0
        self.table: Table | None = None
        self._bot_rng = random.Random()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        n = engine.game(self.game).players
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(n))
        match_seed = int(self.np_random.integers(2**62))
        self._bot_rng = random.Random(match_seed)
        self.table = Table.new(self.game, match_seed, self.options, self.hands)
        self._bots_play()
        return self._observe(), {"seat": self.seat}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        table = self.table
        assert table is not None, "reset() first"
        if table.done:
            raise RuntimeError("the episode is over: reset() first")
        if int(action) not in table.legal():
            return self._observe(), float(self.illegal_reward), True, False, {"illegal": True}
        before, hands = table.points[:], table.hands_played
        table.step(int(action))
        self._bots_play()
        gained = [after - b for after, b in zip(table.points, before, strict=True)]
        shown = margins(self.game, gained) if self.reward == "margin" else gained
        info: dict[str, Any] = {"hands": table.hands_played}
        if table.hands_played != hands:
            info["result"] = table.last_result
        ended = table.done and not table.truncated
        return self._observe(), float(shown[self.seat]), ended, table.truncated, info

    def action_masks(self) -> Mask:
        """The legal-action mask alone (all zeros once the episode is over)."""
        assert self.table is not None, "reset() first"
        return self.table.observe(self.seat)[1]

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.table is None:
            return None
        view = self.table.view(self.seat)
        return f"{self.table.match!r} seat {self.seat} hand {' '.join(view['hand'])}"

    def _observe(self) -> dict[str, Any]:
        assert self.table is not None
        vector, mask = self.table.observe(self.seat)
        return {"observation": vector, "action_mask": mask}

    def _bots_play(self) -> None:
        """The bots act until it is the learner's turn or the episode is over (never before the
        learner's first turn: every seat speaks in every auction and plays in every hand)."""
        table = self.table
        assert table is not None
        while True:
            seat = table.to_act
            if seat is None or seat == self.seat:
                return
            teams = engine.game(self.game).teams
            level = self.partner if teams and seat % 2 == self.seat % 2 else self.opponents
            view, legal = table.view(seat), table.legal_actions(seat)
            table.push(seat, bots.choose(level, view, legal, self._bot_rng, self.budget_s))


IDS: dict[str, str] = {game: f"atout/{game}-v0" for game in ("five_hundred", "rough", "euchre5")}
"""Gymnasium ids: ``gymnasium.make("atout/rough-v0", opponents="heuristic")`` after importing this module."""

for _game, _id in IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point="atout.learn.single:SeatEnv", kwargs={"game": _game})
