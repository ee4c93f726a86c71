"""Le Rough heuristics (docs/rules.md RG): bid card points, bank points in the discard, play for points.

The hand is valued as expected tricks in its best trump suit (the taker fixes trump with
his first lead, RG-11), turned into card points at ``POINTS_PER_TRICK`` plus a base for the
kitty and partner. The discard banks vulnerable point cards (tens and fives not backed by
their ace), since discards count for the taker (RG-10), and keeps trumps and side aces.
"""

from __future__ import annotations

from engine import actions as act
from engine.cards import BIT, cards_of, mask_of, suit_of

from ..seen import ROUGH_POINTS, TABLE_ROUGH, Seen, highest_bid, play

TRUMP_WEIGHTS = (1.0, 0.85, 0.6, 0.45, 0.35, 0.3, 0.3, 0.3, 0.3)
"""Tricks a trump is worth by rank, A K Q J T 9 8 7 5 (RG-3)."""
POINTS_PER_TRICK = 11.0
BASE = 22.0
"""Card points expected from the kitty and partner whatever the hand (RG-10, RG-12)."""


def trump_tricks(hand: int, s: int) -> float:
    """Expected tricks with suit ``s`` as trump (RG-3 rank, no bowers)."""
    n = (hand & TABLE_ROUGH[s].follow[s]).bit_count()
    est = 0.0
    for c in cards_of(hand):
        su, rank = suit_of(c), c % 11
        if su == s:
            est += TRUMP_WEIGHTS[10 - rank if rank >= 3 else 8]
        elif rank == 10:
            est += 0.9
        elif rank == 9 and hand & BIT[su * 11 + 10]:
            est += 0.6
    est += max(0, n - 3) * 0.4
    return est


def best_trump(hand: int) -> int:
    return max(range(4), key=lambda s: (trump_tricks(hand, s), s))


def estimate(hand: int) -> float:
    """Card points (RG-12) the taker's side can count on about seven times in ten.

    Measured over heuristic self-play: the taker's side averages 70 to 90 points whatever
    the hand (the kitty, the lead, the choice of trump and banked discards help it, RG-10,
    RG-11), and the raw trick estimate moves that by about one point in two.
    """
    return 47.5 + raw_estimate(hand) / 2


def raw_estimate(hand: int) -> float:
    tricks = trump_tricks(hand, best_trump(hand))
    return BASE + tricks * POINTS_PER_TRICK + sum(ROUGH_POINTS[c] for c in cards_of(hand)) * 0.3


def bid(s: Seen, legal: list[act.Move]) -> act.Move:
    """Bid the cheapest legal value the estimate covers; the dealer keeps an opponent's bid
    when his own hand covers it (RG-6, RG-7); 100 only with a near-certain hand (RG-9)."""
    est = estimate(s.hand)
    high, bidder = highest_bid(s)
    partner_high = bidder is not None and bidder % 2 == s.seat % 2
    if partner_high:
        est -= 10
    if any(isinstance(a, act.Keep) for a in legal):
        return act.KEEP if est >= high else act.PASS
    bids = [a for a in legal if isinstance(a, act.PointBid) and a.points <= est and a.points < 100]
    return min(bids, key=lambda a: a.points) if bids else act.PASS


def discard(s: Seen, template: act.DiscardTemplate, trump: int | None = None) -> act.Discard:
    """Keep the trump suit (the best one unless given) and side aces; bank unbacked tens and
    fives, whose points count for the taker (RG-10), then void short suits."""
    hand = template.cards
    if trump is None:
        trump = best_trump(hand)
    need = template.count

    def keep(c: int) -> float:
        su, rank = suit_of(c), c % 11
        if su == trump:
            return 1000 + rank
        side = hand & TABLE_ROUGH[None].follow[su]
        k = side.bit_count()
        if rank == 10:
            return 500
        if ROUGH_POINTS[c]:
            backed = hand & BIT[su * 11 + 10] and rank == 6 and k <= 3
            return 300 if backed else -50 + rank  # banked for the taker (RG-10)
        return rank + k * 4

    order = sorted(cards_of(hand), key=keep)
    return act.Discard(mask_of(order[:need]))


def first_lead(s: Seen, legal: list[act.Move]) -> act.Move:
    """RG-11: the taker's first card fixes trump; lead the top of the best suit."""
    trump = best_trump(s.hand)
    mine = [c for c in cards_of(s.hand) if suit_of(c) == trump]
    return act.PLAY[max(mine, key=lambda c: c % 11)]


def choose(s: Seen, legal: list[act.Move]) -> act.Move:
    if s.phase == "bidding":
        return bid(s, legal)
    if s.phase == "discard":
        template = legal[0]
        assert isinstance(template, act.DiscardTemplate)
        return discard(s, template)
    if s.table is None:
        return first_lead(s, legal)
    return act.PLAY[play(s, mask_of(a.card for a in legal if isinstance(a, act.Play)))]
