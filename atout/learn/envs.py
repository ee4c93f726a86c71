"""PettingZoo AEC environments of the three games: one agent per seat, the engine's rules.

``env("rough")`` (or ``AtoutEnv("rough", hands=1, reward="points")``) is an ``AECEnv`` whose agents
``player_0`` … ``player_{n-1}`` are the seats. Each observation is a dict, as PettingZoo's classic
card games give it: ``observation``, the seat's vector (atout.learn.encoding, float32 in [-1, 1]) and
``action_mask``, int8 over the game's fixed action space (atout.learn.spaces: all zeros off the
seat's turn). A discard of N cards is N steps of the taker, one card each. ``reset(seed=…)`` deals a
new match from the seed (the engine's shuffle and first dealer).

An episode is ``hands`` hands (None: the whole match). Rewards come when a hand is scored: each
seat's points of the hand (``reward="points"``: the team's points in Le 500 and Le Rough, the seat's
in euchre, atout.learn.table.hand_points) or its margin over its opponents (``reward="margin"``,
zero-sum). Every agent terminates together at the end of the episode.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces  # optional dependency: the `learn` extra
from pettingzoo import AECEnv  # optional dependency: the `learn` extra

import engine
from atout.learn.encoding import size
from atout.learn.spaces import JSON, action_space
from atout.learn.table import Table, margins

REWARDS = ("points", "margin")


def observation_space(game: str) -> spaces.Dict:
    """The observation dict of a seat of ``game``: its vector and its action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(-1.0, 1.0, (size(game),), np.float32),
            "action_mask": spaces.Box(0, 1, (action_space(game).size,), np.int8),
        }
    )


class AtoutEnv(AECEnv):  # type: ignore[misc]
    """One Atout game as a PettingZoo AEC environment (see the module's docstring)."""

    metadata = {"name": "atout_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str = "rough",
        hands: int | None = 1,
        options: JSON | None = None,
        reward: str = "points",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.game, self.hands, self.reward, self.render_mode = game, hands, reward, render_mode
        self.options = engine.game(game).validate_options(options)
        self.metadata = {**self.metadata, "name": f"atout_{game}_v0"}
        self.possible_agents = [f"player_{s}" for s in range(engine.game(game).players)]
        self._observation_space = observation_space(game)
        self._action_space = spaces.Discrete(action_space(game).size)
        self._rng = random.Random()
        self.table: Table | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.table = Table.new(self.game, self._rng.getrandbits(62), self.options, self.hands)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        seat = self.table.to_act
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, Any]:
        assert self.table is not None, "reset() first"
        vector, mask = self.table.observe(self.possible_agents.index(agent))
        return {"observation": vector, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        assert table is not None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        before, hands = table.points[:], table.hands_played
        table.step(int(action))
        if table.hands_played != hands:  # a hand was scored
            gained = [after - b for after, b in zip(table.points, before, strict=True)]
            shown = margins(self.game, gained) if self.reward == "margin" else gained
            for s, name in enumerate(self.possible_agents):
                self.rewards[name] = float(shown[s])
        if table.done:
            ended = self.truncations if table.truncated else self.terminations
            for name in self.agents:
                ended[name] = True
                self.infos[name] = {"result": table.last_result}
        else:
            seat = table.to_act
            assert seat is not None
            self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.table is None:
            return None
        m = self.table.match
        hands = " | ".join(" ".join(engine.view(m, s)["hand"]) for s in range(m.players))
        return f"{m!r}\n{hands}"

    def close(self) -> None:
        pass


def env(game: str = "rough", **kwargs: Any) -> AtoutEnv:
    """The AEC environment of ``game`` ("five_hundred", "rough", "euchre5"); see ``AtoutEnv``."""
    return AtoutEnv(game, **kwargs)
