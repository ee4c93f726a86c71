"""Atout's rules engine: Le 500, Le Rough and five-handed euchre (docs/rules.md).

Standard library only, no I/O. Installed with a C compiler at hand, the modules are compiled by
mypyc from this same source (setup.py); ``BUILD`` says whether the ``"compiled"`` or the
``"pure"`` Python modules are running, and ``ATOUT_PURE_ENGINE=1`` in the environment loads the
plain ones even where the compiled ones exist (to compare, or to debug with a Python debugger)::

    import engine
    m = engine.new_match("rough", seed=7)
    seat = m.to_act
    m = engine.apply(m, seat, engine.legal_actions(m, seat)[0])
    engine.view(m, seat)
"""

from __future__ import annotations

# _build first: with ATOUT_PURE_ENGINE=1 it makes every later submodule load from source.
from . import _build, euchre5, five_hundred, rough  # noqa: F401  (euchre5... register the games)
from . import match as _match_module
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
    to_dict,
    to_json,
    verify_deal,
    verify_log,
    view,
)
from .determinize import sample_match
from .errors import IllegalAction
from .match import Match

BUILD = "pure" if str(_match_module.__file__).endswith(".py") else "compiled"
"""``"compiled"`` (mypyc extensions) or ``"pure"`` (the plain modules): what this process runs."""

__all__ = [
    "BUILD",
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
    "to_dict",
    "to_json",
    "verify_deal",
    "verify_log",
    "view",
]
