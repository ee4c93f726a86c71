"""Atout's rules engine: Le 500, Le Rough and five-handed euchre (docs/rules.md).

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
    deal_from_seed,
    event_for,
    from_json,
    game,
    games,
    hand_records,
    legal_actions,
    legal_moves,
    match_commitment,
    new_match,
    push,
    random_move,
    revealed_key,
    start,
    to_json,
    verify_deal,
    verify_log,
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
    "deal_from_seed",
    "event_for",
    "from_json",
    "game",
    "games",
    "hand_records",
    "legal_actions",
    "legal_moves",
    "match_commitment",
    "new_match",
    "parse",
    "push",
    "random_move",
    "revealed_key",
    "sample_match",
    "start",
    "to_json",
    "verify_deal",
    "verify_log",
    "view",
]
