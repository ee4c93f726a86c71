"""A small policy trained on CPU in minutes, numpy only: linear softmax over the legal actions, REINFORCE.

``train("rough", seconds=60)`` plays episodes of :class:`atout.learn.single.SeatEnv` (one hand, the
learner at a random seat, built-in bots elsewhere) and after each one moves the weights along
``(G - V(s)) * grad log pi(a | s)`` for every decision the learner took, ``G`` the hand's margin
scaled to [-1, 1] and ``V`` a linear critic learnt alongside (the baseline). The policy is
``softmax(W x + c)`` over the legal ids only (the mask), ``x`` the observation vector
(atout.learn.encoding). :func:`evaluate` scores any policy on duplicate deals (the same cards dealt
twice, the sides' seats swapped), in points (margins) per deal with a 95% interval
(workers.tournament.interval).
"""

from __future__ import annotations

import multiprocessing
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from atout.learn.encoding import Mask, Vector, choose, size
from atout.learn.single import SeatEnv
from atout.learn.spaces import JSON, action_space
from atout.learn.table import MAX_MARGIN, Table
from workers import bots
from workers.arena import seat_plan
from workers.tournament import interval

Weights = npt.NDArray[np.float64]


@dataclass
class LinearPolicy:
    """``softmax(weights @ [x, 1])`` over the legal ids; calling it gives the most probable id."""

    game: str
    weights: Weights

    @classmethod
    def zeros(cls, game: str) -> LinearPolicy:
        return cls(game, np.zeros((action_space(game).size, size(game) + 1)))

    def probabilities(self, observation: Vector, mask: Mask) -> npt.NDArray[np.float64]:
        logits = self.weights[:, :-1] @ observation + self.weights[:, -1]
        logits = np.where(mask > 0, logits, -np.inf)
        e = np.exp(logits - logits.max())
        return np.asarray(e / e.sum())

    def __call__(self, observation: Vector, mask: Mask) -> int:
        """The most probable legal id (ties: the lowest): how the trained policy plays."""
        return int(np.argmax(np.where(mask > 0, self.probabilities(observation, mask), -1.0)))

    def act(self, answer: JSON) -> JSON:
        """The engine/API action for an answer holding the view and the legal actions."""
        return choose(answer, self)

    def sample(self, observation: Vector, mask: Mask, rng: np.random.Generator) -> int:
        p = self.probabilities(observation, mask)
        return int(rng.choice(len(p), p=p))

    def save(self, path: str | Path) -> None:
        np.savez(path, weights=self.weights, game=np.array(self.game))

    @classmethod
    def load(cls, path: str | Path) -> LinearPolicy:
        with np.load(path) as data:
            return cls(str(data["game"]), np.asarray(data["weights"], np.float64))


@dataclass(frozen=True)
class Training:
    """What :func:`train` gives back: the policy, the episodes played and the time they took."""

    policy: LinearPolicy
    episodes: int
    seconds: float
    mean_reward: float
    """The mean scaled margin of the last tenth of the episodes (training play: sampled actions)."""


def train(
    game: str = "rough",
    episodes: int = 20_000,
    seconds: float | None = None,
    opponents: str = "random",
    partner: str | None = None,
    learning_rate: float = 0.003,
    critic_rate: float = 0.003,
    seed: int = 0,
    policy: LinearPolicy | None = None,
) -> Training:
    """Train a linear softmax policy by REINFORCE against ``opponents`` (a ``workers.bots`` level;
    ``partner`` for the learner's partner, default the same) for ``episodes`` hands or ``seconds``,
    whichever ends first; ``policy`` continues an earlier training. Each decision's advantage is the
    hand's scaled margin minus a linear critic's estimate for its state (learnt alongside at
    ``critic_rate``), which takes the luck of the cards out of the gradient."""
    policy = policy or LinearPolicy.zeros(game)
    env = SeatEnv(game, opponents=opponents, partner=partner, reward="margin")
    rng = np.random.default_rng(seed)
    scale, rewards = MAX_MARGIN[game], []
    value = np.zeros(size(game) + 1)  # a linear critic: the expected scaled margin of a state
    started = time.perf_counter()
    played = 0
    while played < episodes and (seconds is None or time.perf_counter() - started < seconds):
        obs, _ = env.reset(seed=int(rng.integers(2**62)))
        xs: list[Vector] = []
        grads: list[npt.NDArray[np.float64]] = []
        total, done = 0.0, False
        while not done:
            p = policy.probabilities(obs["observation"], obs["action_mask"])
            action = int(rng.choice(len(p), p=p))
            grad = -p
            grad[action] += 1.0  # d log pi(action) / d logits
            xs.append(obs["observation"])
            grads.append(grad)
            obs, reward, terminated, truncated, _ = env.step(action)
            total += reward
            done = terminated or truncated
        g = total / scale
        x = np.stack(xs)
        advantages = g - (x @ value[:-1] + value[-1])  # the critic's baseline, state by state
        _update(policy.weights, learning_rate, np.stack(grads) * advantages[:, None], x)
        _update(value[None, :], critic_rate, advantages[:, None], x)
        rewards.append(g)
        played += 1
    tail = rewards[-max(1, len(rewards) // 10) :]
    return Training(policy, played, time.perf_counter() - started, float(np.mean(tail)) if tail else 0.0)


def _update(weights: Weights, step: float, grads: npt.NDArray[np.float64], xs: Vector) -> None:
    """``weights += step * grads^T [xs, 1]`` (a row of ``grads`` and ``xs`` per decision) on the
    rows and columns that change only: the observations are sparse and few actions are legal, so
    the product stays small (a full one is a threaded BLAS call, slower than the game on a loaded
    machine)."""
    rows, cols = np.flatnonzero(grads.any(axis=0)), np.flatnonzero(xs.any(axis=0))
    weights[np.ix_(rows, cols)] += step * (grads[:, rows].T @ xs[:, cols])
    weights[rows, -1] += step * grads[:, rows].sum(axis=0)


@dataclass(frozen=True)
class Score:
    """Points (margins) per deal of a policy's side, with its 95% interval."""

    mean: float
    low: float
    high: float
    deals: int


class Player(Protocol):
    """A trained policy as :func:`evaluate` plays it: its game, and its action for an API answer."""

    @property
    def game(self) -> str: ...

    def act(self, answer: JSON) -> JSON: ...


def evaluate(
    policy: Player,
    opponent: str = "random",
    deals: int = 200,
    seed: int = 1,
    budget_s: float = 0.05,
    jobs: int = 1,
) -> Score:
    """The policy against a built-in level on ``deals`` duplicate deals: each deal (one hand, from
    match seed ``seed + i``) is played twice, the policy holding seats 0+2 then 1+3 (euchre: seat 0
    alone, then seats 1..4, workers.arena.seat_plan); a deal's points are the mean margin of the
    policy's seats over the two. ``jobs`` > 1 plays the deals in that many processes (the same
    figures: each deal depends on its seed alone)."""
    tasks = [(policy, opponent, seed + i, budget_s) for i in range(deals)]
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            per_deal = pool.map(_deal, tasks, chunksize=max(1, deals // (8 * jobs)))
    else:
        per_deal = [_deal(t) for t in tasks]
    mean, low, high = interval(per_deal)
    return Score(mean, low, high, deals)


def _deal(task: tuple[Player, str, int, float]) -> float:
    """One duplicate deal of :func:`evaluate`: the policy's mean margin over its two seatings."""
    policy, opponent, deal_seed, budget_s = task
    game = policy.game
    both = []
    for mine in seat_plan(game):
        table = Table.new(game, deal_seed)
        rng = random.Random(f"evaluate:{deal_seed}:{mine}")
        while (seat := table.to_act) is not None:
            view, legal = table.view(seat), table.legal_actions(seat)
            if seat in mine:
                action = policy.act({"view": view, "legal_actions": legal})
            else:
                action = bots.choose(opponent, view, legal, rng, budget_s)
            table.push(seat, action)
        both.append(float(np.mean([table.margins()[s] for s in mine])))
    return float(np.mean(both))


__all__ = ["LinearPolicy", "Player", "Score", "Training", "evaluate", "train"]
