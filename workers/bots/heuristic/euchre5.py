"""Five-handed euchre heuristics (docs/rules.md E5): order up or name with strong trump, exchange,
call the best partner card, go alone with a very strong hand, play.

A hand is valued as expected tricks with a given trump (E5-4: right bower, left bower,
then A K Q T 9 8): the maker needs three of five with the partner his called card brings
(E5-7, E5-10).
"""

from __future__ import annotations

from functools import cache

from engine import actions as act
from engine.cards import BIT, card, cards_of, mask_of, same_colour_suit, suit_of
from engine.euchre5 import Euchre5

from ..seen import TABLE_EUCHRE, Seen, key_in, play

TRUMP_WEIGHTS = (1.0, 0.85, 0.7, 0.55, 0.45, 0.35, 0.3, 0.3)
"""Tricks a trump is worth by its place in the E5-4 order."""
ORDER_AT = 1.8
"""Make trump from this estimate up: measured over heuristic self-play, the maker's side
(with the partner its called card brings, E5-7) then takes three tricks about two times
in three, which is where making (+1 each, E5-10) outweighs being euchred (+2 to each of
three defenders)."""
ALONE_AT = 3.6
"""Go alone from here: five tricks most of the time, and no partner to share the points."""


def estimate(hand: int, trump: int) -> float:
    """Expected tricks of this hand alone with ``trump`` (E5-4)."""
    table = TABLE_EUCHRE[trump]
    trumps = hand & table.trump
    n = trumps.bit_count()
    est = sum(TRUMP_WEIGHTS[100 + 8 - key_in(table, c)] for c in cards_of(trumps))
    for s in range(4):
        if s == trump:
            continue
        side = hand & table.follow[s]
        if side & BIT[s * 11 + 10]:
            est += 0.55
        if not side and n >= 2:
            est += 0.2
    return est


@cache
def call_order(trump: int) -> tuple[int, ...]:
    """The trumps high to low (E5-4): right bower, left bower, A K Q T 9 8."""
    return (card(trump, "J"), card(same_colour_suit(trump), "J"), *(card(trump, r) for r in "AKQT98"))


def best_card_to_call(hand: int, trump: int) -> int:
    """The highest trump not held, else an off-suit ace not held (E5-7)."""
    order = call_order(trump)
    for c in order[:4]:
        if not hand & BIT[c]:
            return c
    aces = [card(s, "A") for s in range(4) if s != trump and not hand & BIT[card(s, "A")]]
    if aces:
        return aces[0]
    return next(c for c in (*order, *Euchre5.deck) if not hand & BIT[c])


def best_exchange(hand: int, up: int) -> int | None:
    """The card to give for the upcard: the one whose loss leaves the best hand (E5-5)."""
    trump = suit_of(up)
    base = estimate(hand, trump)
    best, choice = base, None
    for c in cards_of(hand):
        v = estimate((hand | BIT[up]) ^ BIT[c], trump)
        if v > best + 1e-9 or (choice is None and v >= best - 1e-9):
            best, choice = v, c
    return choice


def order(s: Seen) -> act.Move:
    assert s.upcard is not None
    up = s.upcard
    trump = suit_of(up)
    hand = s.hand
    if s.seat == s.dealer:
        c = best_exchange(hand, up)
        if c is not None:
            hand = (hand | BIT[up]) ^ BIT[c]
        est = estimate(hand, trump)
    else:
        est = estimate(hand, trump) - 0.25  # the dealer picks up a trump
    return act.ORDER_UP if est >= ORDER_AT else act.PASS


def name(s: Seen, legal: list[act.Move]) -> act.Move:
    names = [a for a in legal if isinstance(a, act.NameTrump)]
    best = max(names, key=lambda a: estimate(s.hand, a.suit))
    est = estimate(s.hand, best.suit)
    if s.seat == s.dealer or est >= ORDER_AT:
        return best
    return act.PASS


def call(s: Seen) -> act.Move:
    assert s.trump is not None
    if estimate(s.hand, s.trump) >= ALONE_AT:
        return act.GO_ALONE
    return act.CALL[best_card_to_call(s.hand, s.trump)]


def choose(s: Seen, legal: list[act.Move]) -> act.Move:
    if s.phase == "order":
        return order(s)
    if s.phase == "exchange":
        assert s.upcard is not None
        c = best_exchange(s.hand, s.upcard)
        return act.EXCHANGE[c] if c is not None else act.PASS
    if s.phase == "name":
        return name(s, legal)
    if s.phase == "call":
        return call(s)
    return act.PLAY[play(s, mask_of(a.card for a in legal if isinstance(a, act.Play)))]
