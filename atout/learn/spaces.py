"""A fixed action space per game: every action a seat may ever take, numbered once and for all.

Learning frameworks (OpenSpiel, PettingZoo, Gymnasium) want a fixed, finite set of action ids and
a mask of the legal ones. The engine's own legal actions vary in number and offer the discard as a
template ("choose 4 of these 12 cards": 495 choices in Le Rough, 8,008 in Le 500), so here a discard
of N cards is N successive *picks* of one card each (``pick`` actions): the caller keeps the cards
picked so far, the mask offers the cards not yet picked, and :func:`discard_action` turns the N picks
into the one ``discard`` action the engine and the API take. Euchre's exchange is already one card.

The space is a few *blocks* (:class:`Block`): the auction's actions (pass, the bids, keep, order up,
name a suit, go alone), then one block per kind of card action, each holding one id per card of the
game's deck in :attr:`ActionSpace.cards` order (suits S C D H, each low to high: 4 … A, then the
jokers BJ RJ). ``ActionSpace.describe()`` prints every id.

The space itself lives in ``workers.bots.action_ids`` (compiled with the bots, so that a bot playing
a learnt policy and the self-play loop of atout.learn.vector translate ids at engine speed); this
module is its name in the learning toolkit. Like it, it imports neither numpy nor anything of the
service, so a bot can use it anywhere.
"""

from __future__ import annotations

from workers.bots.action_ids import (
    CARD_BLOCKS,
    GAMES,
    JSON,
    PICK,
    ActionSpace,
    Block,
    action_space,
    discard_action,
    discard_count,
    legal_ids,
    legal_ids_of_match,
)

__all__ = [
    "CARD_BLOCKS",
    "GAMES",
    "JSON",
    "PICK",
    "ActionSpace",
    "Block",
    "action_space",
    "discard_action",
    "discard_count",
    "legal_ids",
    "legal_ids_of_match",
]
