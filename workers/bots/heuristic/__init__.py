"""The ``heuristic`` level: sound bidding and card play from hand evaluation, one module per game.

Every decision is a pure function of what the seat knows (``Seen``) and its legal actions,
deterministic, and cheap enough to be the expert's playout policy.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import engine
from engine import actions as act

from ..seen import Seen, from_match, from_view, parse_legal
from . import euchre5, five_hundred, rough

JSON = dict[str, Any]

POLICIES: dict[str, Callable[[Seen, list[act.Move]], act.Move]] = {
    "five_hundred": five_hundred.choose,
    "rough": rough.choose,
    "euchre5": euchre5.choose,
}


def decide(s: Seen, legal: list[act.Move]) -> act.Action:
    """The heuristic action for a seat's knowledge and its legal actions (records)."""
    choice = legal[0] if len(legal) == 1 else POLICIES[s.game](s, legal)
    if isinstance(choice, act.DiscardTemplate):
        choice = POLICIES[s.game](s, legal)
    assert not isinstance(choice, act.DiscardTemplate)
    return choice


def decide_match(m: engine.Match) -> act.Action:
    """The heuristic action of the seat to act in ``m``, seeing only what that seat may see."""
    seat = m.to_act
    assert seat is not None
    legal = engine.legal_moves(m)
    if len(legal) == 1 and not isinstance(legal[0], act.DiscardTemplate):
        return legal[0]
    return decide(from_match(m, seat), legal)


def choose(view: JSON, legal: list[JSON], rng: random.Random, budget_s: float = 1.0) -> JSON:
    """The heuristic bot: deterministic, ``rng`` and ``budget_s`` unused."""
    return decide(from_view(view), parse_legal(legal)).to_json()
