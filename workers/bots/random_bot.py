"""The ``random`` level: a uniformly random legal action.

A discard template (F5-10, RG-10) is answered with a uniformly random set of ``count``
of its cards, so every legal discard is possible.
"""

from __future__ import annotations

import random
from typing import Any

JSON = dict[str, Any]


def choose(view: JSON, legal: list[JSON], rng: random.Random, budget_s: float = 1.0) -> JSON:
    """One legal action drawn uniformly; ``view`` and ``budget_s`` are not needed."""
    action = rng.choice(legal)
    if action.get("type") == "discard" and "choices" in action:
        return {"type": "discard", "cards": sorted(rng.sample(list(action["choices"]), int(action["count"])))}
    return dict(action)
