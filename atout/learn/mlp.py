"""A small policy network over the heuristic's choice: one hidden layer, numpy to train, JSON to ship.

The policy scores the legal ids of a decision from the seat's observation (atout.learn.encoding)
and the heuristic bot's choice there (its *hint*: the ids of the action ``workers.bots.heuristic``
takes, the cards of its discard for a pick), and plays the best one::

    z = [observation, hint]                  hint: 1 on the heuristic's ids still legal
    logits = relu(z @ w1 + b1) @ w2 + b2 + trust * hint      (over the legal ids only: the mask)

Why over the heuristic rather than from scratch: the hand-written heuristic already plays sound
cards, and what the expert's search adds to it (workers.bots.expert) is a few deviations in the
right places; a network that sees the heuristic's choice, and whose output starts from it through
``trust``, has only those deviations to learn, which a few minutes of CPU and a hidden layer of 128
units can do, where imitating every move from the bare observation cannot (it would first have to
relearn the heuristic). Every move it makes at play time still costs a heuristic decision (cheap,
compiled) and one forward pass.

Shipped as gzip'd JSON (:meth:`MLPPolicy.save`: the weights rounded to 5 significant digits), so the
bot ``bot:learned`` runs it in pure Python without numpy (workers/bots/learned.py): ``w1`` row per
input (the observation is sparse: a forward pass only adds the rows of its nonzero inputs) and
``w2`` row per action (only the legal ids' logits are computed). :func:`fit` trains it by Adam on
masked softmax cross-entropy against target distributions over the legal ids (what the expert's
search measured: atout.learn.exit).
"""

from __future__ import annotations

import gzip
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from atout.learn.encoding import Mask, Vector, choose, size
from atout.learn.spaces import JSON, action_space
from workers.bots import learned

Array = npt.NDArray[np.float32]
FORMAT = learned.FORMAT
"""The ``format`` field of a shipped policy: what workers/bots/learned.py reads."""


def hint_ids(answer: JSON) -> list[int]:
    """The ids of the heuristic's action for an answer holding a view and its legal actions: one id,
    or a pick per card of its discard (the bot's own function: workers.bots.learned.hint_ids)."""
    return learned.hint_ids(answer.get("view", answer), answer.get("legal_actions") or [])


def features(observation: Vector, hint: list[int], mask: Mask) -> Array:
    """The network's input: the observation, then 1 on each hinted id that is legal (so a pick
    already made, or the heuristic's discard being done, drops out of the hint)."""
    h = np.zeros(mask.shape[0], np.float32)
    h[hint] = 1.0
    return np.concatenate([observation.astype(np.float32), h * (mask > 0)])


@dataclass
class MLPPolicy:
    """The network of the module's docstring; calling it on features and a mask gives the best id."""

    game: str
    w1: Array
    b1: Array
    w2: Array
    b2: Array
    trust: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)
    """What the training says about itself (labels, seconds, playouts): saved with the weights."""

    @classmethod
    def initial(cls, game: str, hidden: int = 64, seed: int = 0, trust: float = 0.0) -> MLPPolicy:
        """Small random first-layer weights, every output weight zero: it plays the heuristic's
        choice when ``trust`` > 0, the lowest legal id when it is 0 (the hint counts for nothing)."""
        actions = action_space(game).size
        inputs = size(game) + actions
        rng = np.random.default_rng(seed)
        w1 = (rng.standard_normal((inputs, hidden)) * np.sqrt(2.0 / 64)).astype(np.float32)
        return cls(
            game,
            w1,
            np.zeros(hidden, np.float32),
            np.zeros((hidden, actions), np.float32),
            np.zeros(actions, np.float32),
            trust,
        )

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    def logits(self, z: Array) -> Array:
        """Logits of every id for a batch of feature rows (the hint is the last ``actions`` columns)."""
        actions = self.w2.shape[1]
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        return np.asarray(h @ self.w2 + self.b2 + self.trust * z[:, -actions:], np.float32)

    def __call__(self, z: Array, mask: Mask) -> int:
        """The legal id of highest logit (ties: the lowest id)."""
        logits = self.logits(z[None, :])[0]
        return int(np.argmax(np.where(mask > 0, logits, -np.inf)))

    def act(self, answer: JSON) -> JSON:
        """The engine/API action for an answer holding the view and the legal actions."""
        hint = hint_ids(answer)
        return choose(answer, lambda obs, mask: self(features(obs, hint, mask), mask))

    def copy(self) -> MLPPolicy:
        return MLPPolicy(
            self.game,
            self.w1.copy(),
            self.b1.copy(),
            self.w2.copy(),
            self.b2.copy(),
            self.trust,
            dict(self.meta),
        )

    def to_json(self) -> JSON:
        def r(a: Array) -> Any:
            return np.vectorize(lambda x: float(f"{x:.5g}"), otypes=[float])(a).tolist()

        return {
            "format": FORMAT,
            "game": self.game,
            "observation_size": size(self.game),
            "actions": int(self.w2.shape[1]),
            "hidden": self.hidden,
            "w1": r(self.w1),
            "b1": r(self.b1),
            "w2": r(self.w2.T),
            "b2": r(self.b2),
            "trust": float(f"{self.trust:.5g}"),
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: JSON) -> MLPPolicy:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a policy of format {FORMAT}: {data.get('format')!r}")
        f32 = np.float32
        return cls(
            str(data["game"]),
            np.asarray(data["w1"], f32),
            np.asarray(data["b1"], f32),
            np.asarray(data["w2"], f32).T.copy(),
            np.asarray(data["b2"], f32),
            float(data["trust"]),
            dict(data.get("meta") or {}),
        )

    def save(self, path: str | Path) -> None:
        """Gzip'd JSON (``mtime=0``: the same weights give the same bytes)."""
        text = json.dumps(self.to_json(), separators=(",", ":"))
        Path(path).write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))

    @classmethod
    def load(cls, path: str | Path) -> MLPPolicy:
        return cls.from_json(json.loads(gzip.decompress(Path(path).read_bytes())))


@dataclass(frozen=True)
class Examples:
    """Decisions to learn from: features ``z`` (a row each), legal ``masks`` and ``targets`` (a
    distribution over the legal ids per row: the expert's id, or the cards left of its discard)."""

    z: Array
    masks: Mask
    targets: Array

    def __len__(self) -> int:
        return int(self.z.shape[0])

    def take(self, rows: npt.NDArray[np.int64]) -> Examples:
        """The rows given, features as float32 (they may be kept as float16: half the memory)."""
        return Examples(self.z[rows].astype(np.float32), self.masks[rows], self.targets[rows])


def loss_and_grads(policy: MLPPolicy, batch: Examples, decay: float) -> tuple[float, list[Array]]:
    """Mean masked softmax cross-entropy of a batch and its gradient for (w1, b1, w2, b2, trust)."""
    n, actions = len(batch), policy.w2.shape[1]
    pre = batch.z @ policy.w1 + policy.b1
    h = np.maximum(pre, 0.0)
    hint = batch.z[:, -actions:]
    logits = h @ policy.w2 + policy.b2 + policy.trust * hint
    logits = np.where(batch.masks > 0, logits, -1e9)
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    p = e / e.sum(axis=1, keepdims=True)
    loss = -float(np.sum(batch.targets * np.log(np.maximum(p, 1e-12)))) / n
    d = (p - batch.targets) / n
    dh = (d @ policy.w2.T) * (pre > 0)
    grads = [
        batch.z.T @ dh + decay * policy.w1,
        dh.sum(axis=0),
        h.T @ d + decay * policy.w2,
        d.sum(axis=0),
        np.asarray([np.sum(d * hint)], np.float32),
    ]
    return loss, [np.asarray(g, np.float32) for g in grads]


def agreement(policy: MLPPolicy, data: Examples) -> float:
    """The share of decisions where the policy's id is one the target allows (the expert's)."""
    if not len(data):
        return float("nan")
    hits = 0.0
    for start in range(0, len(data), 4096):
        part = data.take(np.arange(start, min(len(data), start + 4096)))
        best = np.argmax(np.where(part.masks > 0, policy.logits(part.z), -np.inf), axis=1)
        hits += float(np.sum(part.targets[np.arange(len(part)), best] > 0))
    return hits / len(data)


def loss(policy: MLPPolicy, data: Examples) -> float:
    """The mean masked softmax cross-entropy of ``data`` (in chunks: the features may be float16)."""
    total = 0.0
    for start in range(0, len(data), 4096):
        part = data.take(np.arange(start, min(len(data), start + 4096)))
        total += loss_and_grads(policy, part, 0.0)[0] * len(part)
    return total / max(1, len(data))


def fit(
    policy: MLPPolicy,
    data: Examples,
    epochs: int = 30,
    batch: int = 256,
    rate: float = 2e-3,
    decay: float = 1e-4,
    seconds: float | None = None,
    seed: int = 0,
    held_out: Examples | None = None,
) -> list[float]:
    """Adam on ``data`` for ``epochs`` passes (or until ``seconds``), in place; the mean loss of each
    epoch. ``trust`` is trained like any weight (so imitation decides how much to follow the hint).
    With ``held_out``, the weights of the epoch with the lowest loss on it are kept (early stopping:
    the labels are noisy, a long fit learns their noise), and the losses given are those on it."""
    rng = np.random.default_rng(seed)
    params = [policy.w1, policy.b1, policy.w2, policy.b2, np.asarray([policy.trust], np.float32)]
    m = [np.zeros_like(x) for x in params]
    v = [np.zeros_like(x) for x in params]
    beta1, beta2, step, started = 0.9, 0.999, 0, time.perf_counter()
    losses: list[float] = []
    best = (loss(policy, held_out), [x.copy() for x in params]) if held_out is not None else None
    for _ in range(epochs):
        order, total = rng.permutation(len(data)), 0.0
        for start in range(0, len(data), batch):
            value, grads = loss_and_grads(policy, data.take(order[start : start + batch]), decay)
            total += value * min(batch, len(data) - start)
            step += 1
            for x, g, mi, vi in zip(params, grads, m, v, strict=True):
                mi *= beta1
                mi += (1 - beta1) * g
                vi *= beta2
                vi += (1 - beta2) * g * g
                x -= rate * (mi / (1 - beta1**step)) / (np.sqrt(vi / (1 - beta2**step)) + 1e-8)
            policy.trust = float(params[4][0])
        losses.append(total / max(1, len(data)) if held_out is None else loss(policy, held_out))
        if best is not None and losses[-1] < best[0]:
            best = (losses[-1], [x.copy() for x in params])
        if seconds is not None and time.perf_counter() - started >= seconds:
            break
    if best is not None:
        for x, kept in zip(params, best[1], strict=True):
            x[...] = kept
        policy.trust = float(params[4][0])
    return losses


__all__ = [
    "FORMAT",
    "Examples",
    "MLPPolicy",
    "agreement",
    "features",
    "fit",
    "hint_ids",
    "loss",
    "loss_and_grads",
]
