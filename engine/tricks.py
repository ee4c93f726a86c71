"""The trick-taking core shared by the three games (docs/rules.md ALL-4, ALL-5).

A ``TrumpTable`` is everything trick play needs once trump is known: the *effective*
suit of each card (a bower or a joker belongs to trump, ALL-5), the mask of each
effective suit (following is ``hand & follow[led]``), and a win key per led suit (the
highest key in a trick wins: trump keys sit above every plain key). Each game only says
which cards are trump and in what order; following and winning are decided here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from .cards import BIT, CARD_COUNT, Record, suit_of

JOKER_SUIT: Final = 4
"""Effective suit of the jokers when they alone are trump (Le 500 at no trump, F5-6)."""


@dataclass(frozen=True, slots=True)
class TrumpTable(Record):
    trump_suit: int | None
    """Effective suit index of trump (0-3, or JOKER_SUIT), None when nothing is trump."""
    suit: tuple[int, ...]
    """Effective suit of every card int."""
    follow: tuple[int, ...]
    """Mask of the game's cards of each effective suit 0..4."""
    trump: int
    """Mask of the trump cards."""
    win_key: tuple[tuple[int, ...], ...]
    """``win_key[led][card]``: 0 for a card that can't win, plain rank, or 100+ for trump."""


@cache
def trump_table(deck: int, trump_order: tuple[int, ...], trump_suit: int | None) -> TrumpTable:
    """Build the table of a deck (mask) for trump cards ``trump_order`` (high to low).

    The other cards rank by natural rank within their suit (A high, F5-5, RG-3, E5-4);
    the cards listed in ``trump_order`` leave their natural suit for trump's (ALL-5).
    """
    trump_mask = 0
    for c in trump_order:
        trump_mask |= BIT[c]
    eff = [-1] * CARD_COUNT
    follow = [0] * 5
    for c in range(CARD_COUNT):
        if not deck & BIT[c]:
            continue
        s = trump_suit if trump_mask & BIT[c] and trump_suit is not None else suit_of(c)
        eff[c] = s
        follow[s] |= BIT[c]
    keys = []
    for led in range(5):
        row = [0] * CARD_COUNT
        for c in range(CARD_COUNT):
            if trump_mask & BIT[c]:
                row[c] = 100 + len(trump_order) - trump_order.index(c)
            elif eff[c] == led:
                row[c] = 1 + c % 11
        keys.append(tuple(row))
    return TrumpTable(trump_suit, tuple(eff), tuple(follow), trump_mask, tuple(keys))


def legal_plays(hand: int, trick: Sequence[int], table: TrumpTable) -> int:
    """Mask of the cards a hand may play to a trick (ALL-4): follow the led suit if able."""
    if not trick:
        return hand
    same = hand & table.follow[table.suit[trick[0]]]
    return same or hand


def trick_winner_index(trick: Sequence[int], table: TrumpTable) -> int:
    """Position in ``trick`` of the winning card: highest trump, else highest of the led suit."""
    keys = table.win_key[table.suit[trick[0]]]
    best = 0
    best_key = keys[trick[0]]
    for i in range(1, len(trick)):
        k = keys[trick[i]]
        if k > best_key:
            best, best_key = i, k
    return best
