"""The ``learned`` level: a small network trained by expert iteration, run in pure Python.

The network (atout.learn.mlp; trained by atout.learn.exit, ``python bench/train.py``) learnt from
the ``expert`` bot's search which of the ``heuristic`` bot's choices to keep and where to deviate:
it reads the seat's observation (workers.bots.observe: what the seat sees, docs/rules.md ALL-7) and
the heuristic's choice for it, and scores the legal ids::

    h = relu(w1 . [observation, hint] + b1)      logit(id) = w2[id] . h + b2[id] + trust * hint[id]

Its weights ship beside this module, one gzip'd JSON file per game (``policies/<game>.json.gz``),
read once per process. The service's workers do not install numpy (it is in the ``learn`` extra
only), so the forward pass is plain Python: the observation is sparse, so only the first-layer rows
of its nonzero entries are summed, and only the legal ids' logits computed (compiled with the bots
by mypyc: well under a millisecond a move). A game without a policy file is an error, never
another bot in disguise. Deterministic: ``rng`` and ``budget_s`` are unused.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any, Final

from . import heuristic, observe
from .action_ids import PICK, action_space

JSON = dict[str, Any]
FORMAT: Final = "atout-mlp/1"
POLICIES: Final = Path(__file__).resolve().parent / "policies"


class Network:
    """One game's weights, laid out for a sparse forward pass (see the module's docstring)."""

    def __init__(self, data: JSON) -> None:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a policy of format {FORMAT}: {data.get('format')!r}")
        self.game: str = str(data["game"])
        self.inputs: int = int(data["observation_size"])
        self.w1: list[list[float]] = [[float(x) for x in row] for row in data["w1"]]
        self.b1: list[float] = [float(x) for x in data["b1"]]
        self.w2: list[list[float]] = [[float(x) for x in row] for row in data["w2"]]
        self.b2: list[float] = [float(x) for x in data["b2"]]
        self.trust: float = float(data["trust"])
        actions = action_space(self.game).size
        if len(self.w1) != self.inputs + actions or len(self.w2) != actions:
            raise ValueError(
                f"{self.game}: the weights do not fit {self.inputs} inputs and {actions} actions"
            )

    def hidden(self, observation: list[float], hint: list[int]) -> list[float]:
        """The hidden layer for the observation and the hinted ids (those that are legal)."""
        h = self.b1[:]
        width = len(h)
        for i in range(len(observation)):
            x = observation[i]
            if x != 0.0:
                row = self.w1[i]
                for j in range(width):
                    h[j] += x * row[j]
        for a in hint:
            row = self.w1[self.inputs + a]
            for j in range(width):
                h[j] += row[j]
        return [v if v > 0.0 else 0.0 for v in h]

    def logits(self, observation: list[float], hint: list[int], legal: list[int]) -> list[float]:
        """The logit of each legal id (in the order of ``legal``)."""
        hinted = [a for a in hint if a in legal]
        h = self.hidden(observation, hinted)
        out: list[float] = []
        for a in legal:
            row = self.w2[a]
            z = self.b2[a]
            for j in range(len(h)):
                z += row[j] * h[j]
            if a in hinted:
                z += self.trust
            out.append(z)
        return out

    def best(self, observation: list[float], hint: list[int], legal: list[int]) -> int:
        """The legal id of highest logit (``legal`` ascending; ties: the lowest id)."""
        scores = self.logits(observation, hint, legal)
        best = 0
        for k in range(1, len(scores)):
            if scores[k] > scores[best]:
                best = k
        return legal[best]


_NETWORKS: dict[str, Network] = {}


def load(path: Path) -> Network:
    """A network from a shipped file (gzip'd JSON, atout.learn.mlp.MLPPolicy.save)."""
    return Network(json.loads(gzip.decompress(path.read_bytes())))


def network(game: str) -> Network:
    """The shipped network of ``game``, loaded once per process."""
    net = _NETWORKS.get(game)
    if net is None:
        path = POLICIES / f"{game}.json.gz"
        if not path.is_file():
            raise ValueError(f"no learned policy for {game!r} ({path} is missing)")
        net = _NETWORKS[game] = load(path)
        if net.game != game:
            raise ValueError(f"{path} holds a policy of {net.game!r}, not {game!r}")
    return net


def hint_ids(view: JSON, legal: list[JSON]) -> list[int]:
    """The ids of the heuristic's action: one id, or a pick per card of its discard."""
    space = action_space(str(view["kind"]))
    action = heuristic.choose(view, legal, random.Random(0), 0.0)
    if action["type"] == "discard":
        return [space.index({"type": PICK, "card": c}) for c in action["cards"]]
    return [space.index(action)]


def play(net: Network, view: JSON, legal: list[JSON]) -> JSON:
    """The action ``net`` takes for a seat's view and legal actions."""
    hint = hint_ids(view, legal)

    def policy(observation: list[float], ids: list[int]) -> int:
        return net.best(observation, hint, ids)

    return observe.choose(view, policy, legal)


def choose(view: JSON, legal: list[JSON], rng: random.Random, budget_s: float = 1.0) -> JSON:
    """The learned bot: the shipped network of the view's game; ``rng`` and ``budget_s`` unused."""
    return play(network(str(view["kind"])), view, legal)
