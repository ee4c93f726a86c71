"""Bot strategies: pure functions of a seat's view and its legal actions.

``choose(level, view, legal, rng, budget_s)`` answers one legal action in its JSON form.
A bot is given ``engine.view(m, seat)`` and ``engine.legal_actions(m, seat)`` only, so it
cannot see a hidden card (docs/rules.md ALL-7); it never changes its arguments.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import _build

BUILD = _build.choose(__name__, Path(__file__).parent)
"""``"compiled"`` (mypyc, like the engine: setup.py) or ``"pure"``: decided before the modules load."""

from . import expert, heuristic, learned, random_bot  # noqa: E402  (after the build is chosen)

JSON = dict[str, Any]
Strategy = Callable[[JSON, list[JSON], random.Random, float], JSON]

LEVELS: dict[str, Strategy] = {
    "random": random_bot.choose,
    "heuristic": heuristic.choose,
    "expert": expert.choose,
    "learned": learned.choose,
}


def choose(
    level: str,
    view: JSON,
    legal: list[JSON],
    rng: random.Random,
    budget_s: float = 1.0,
    playouts: int | None = None,
) -> JSON:
    """A legal action chosen by the bot ``level`` (``random``, ``heuristic``, ``expert``, ``learned``).

    ``budget_s`` bounds the expert's thinking time; ``playouts`` (expert only) fixes its
    number of sampled deals instead, so that its choice depends on ``rng`` alone.
    """
    try:
        strategy = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}") from None
    if not legal:
        raise ValueError("no legal action: it is not this seat's turn")
    if playouts is not None and level == "expert":
        return expert.choose(view, legal, rng, budget_s, playouts=playouts)
    return strategy(view, legal, rng, budget_s)
