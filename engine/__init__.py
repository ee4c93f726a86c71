"""Atout's rules engine: Le 500, Le Rough and five-handed euchre (RULES.md).

Pure Python, standard library only, no I/O::

    import engine
    m = engine.new_match("rough", seed=7)
    seat = m.to_act
    m = engine.apply(m, seat, engine.legal_actions(m, seat)[0])
    engine.view(m, seat)
"""

from __future__ import annotations

from . import euchre5, five_hundred, rough  # noqa: F401  (registers the games)
from .actions import Action, DiscardTemplate, Move, parse
from .api import (
    FORMAT,
    apply,
    event_for,
    from_json,
    game,
    games,
    legal_actions,
    legal_moves,
    new_match,
    push,
    random_move,
    to_json,
    view,
)
from .determinize import sample_match
from .errors import IllegalAction
from .match import Match

__all__ = [
    "FORMAT",
    "Action",
    "DiscardTemplate",
    "IllegalAction",
    "Match",
    "Move",
    "apply",
    "event_for",
    "from_json",
    "game",
    "games",
    "legal_actions",
    "legal_moves",
    "new_match",
    "parse",
    "push",
    "random_move",
    "sample_match",
    "to_json",
    "view",
]
