"""Le 500 heuristics (docs/rules.md F5): bid from counted trump strength, discard to voids, play.

The hand is valued per denomination as expected tricks: jokers and bowers (F5-4) count
nearly a trick each, lower trumps count more as the suit gets longer, side aces and
guarded kings count, and the kitty (F5-10) and partner add a fixed allowance. The bid is
the cheapest legal one in the best denomination that the estimate covers (F5-8).
"""

from __future__ import annotations

from engine import actions as act
from engine.cards import BIT, JOKERS, cards_of, mask_of, suit_of

from ..seen import TABLE_500, Seen, highest_bid, key_in, play

TRUMP_WEIGHTS = (1.0, 1.0, 0.95, 0.85, 0.75, 0.55, 0.4, 0.3, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2)
"""Tricks a trump is worth by its place in the F5-4 order (jokers, bowers, A, K ...)."""
HELP = 2.6
"""Tricks expected from the kitty (six cards to choose from, F5-10) and from partner."""
DARE = 1.0
"""Bid up to this many tricks above the estimate: measured over heuristic self-play, a
contract of ``round(estimate) + 1`` tricks is made about half the time, and a made 8S
(240, F5-12) is worth as much as a failed one costs (F5-13), while a pass leaves the
contract to the other side."""
NT = 4


def estimate(hand: int, d: int) -> float:
    """Expected tricks for the taker's side with ``hand`` in denomination ``d`` (4: NT)."""
    table = TABLE_500[d if d < NT else None]
    if d < NT:
        trumps = hand & table.trump
        n = trumps.bit_count()
        order_len = len(TRUMP_WEIGHTS)
        est = sum(TRUMP_WEIGHTS[100 + order_len - key_in(table, c)] for c in cards_of(trumps))
        est += max(0, n - 4) * 0.45
        for s in range(4):
            if s == d:
                continue
            side = hand & table.follow[s]
            k = side.bit_count()
            est += _side_tricks(side, s)
            if n >= 4:
                est += 0.35 if k == 0 else 0.15 if k == 1 else 0.0
        return est + HELP
    est = sum(1.0 for j in JOKERS if hand & BIT[j])
    for s in range(4):
        side = hand & table.follow[s]
        k = side.bit_count()
        est += _side_tricks(side, s)
        if k >= 5 and side & BIT[s * 11 + 10]:
            est += (k - 4) * 0.5
        if not side & (BIT[s * 11 + 10] | BIT[s * 11 + 9]) and k < 4:
            est -= 0.6
    return est + HELP - 0.4


def _side_tricks(side: int, s: int) -> float:
    ace, king, queen = BIT[s * 11 + 10], BIT[s * 11 + 9], BIT[s * 11 + 8]
    k = side.bit_count()
    out = 0.0
    if side & ace:
        out += 0.9
    if side & king and k >= 2:
        out += 0.75 if side & ace else 0.4
    if side & queen and side & ace and side & king and k >= 3:
        out += 0.3
    return out


def bid(s: Seen, legal: list[act.Move]) -> act.Move:
    """The cheapest legal bid in the best-covered denomination, or pass (F5-8)."""
    _, bidder = highest_bid(s)
    partner_high = bidder is not None and bidder % 2 == s.seat % 2
    best: tuple[float, act.Move] | None = None
    for d in range(5):
        cap = estimate(s.hand, d) + DARE
        if cap >= 10 and cap < 10.5 + DARE:
            cap = 9.99  # ten tricks want a near-certain hand
        if partner_high:
            cap -= 1.0  # overcall partner only with a clearly better hand
        options = [
            a for a in legal if isinstance(a, act.TrickBid) and a.denomination == d and a.tricks <= cap
        ]
        if not options:
            continue
        choice = min(options, key=lambda a: a.rank)
        score = cap - choice.tricks + d * 0.05
        if best is None or score > best[0]:
            best = (score, choice)
    return best[1] if best is not None else act.PASS


def _denomination(s: Seen) -> int:
    return NT if s.no_trump else (s.trump if s.trump is not None else NT)


def discard(s: Seen, template: act.DiscardTemplate) -> act.Discard:
    """Keep trumps, aces and guarded kings; throw the low side cards, voiding short suits (F5-10)."""
    hand = template.cards
    d = _denomination(s)
    table = TABLE_500[d if d < NT else None]
    need = template.count
    keep_score: dict[int, float] = {}
    for c in cards_of(hand):
        if table.trump & BIT[c]:
            keep_score[c] = 1000 + key_in(table, c)
            continue
        su = suit_of(c)
        side = hand & table.follow[su] & ~table.trump
        k = side.bit_count()
        rank = c % 11
        score = float(rank)
        if rank == 10:
            score += 200
        elif rank == 9 and k >= 2:
            score += 120 if side & BIT[su * 11 + 10] else 60
        if d == NT:
            score += k * 3  # long suits run at no trump
        else:
            score -= 20 if k <= 2 and not side & BIT[su * 11 + 10] else 0  # short suits: voids
        keep_score[c] = score
    # Void a whole short side suit when it fits in the discards (ruffing power later).
    chosen = 0
    if d != NT:
        sides = []
        for su in range(4):
            side = hand & table.follow[su] & ~table.trump
            if side and not side & BIT[su * 11 + 10]:
                sides.append((side.bit_count(), sum(keep_score[c] for c in cards_of(side)), side))
        for k, _, side in sorted(sides):
            if k <= need - chosen.bit_count():
                chosen |= side
    rest = sorted((c for c in cards_of(hand & ~chosen)), key=lambda c: keep_score[c])
    for c in rest[: need - chosen.bit_count()]:
        chosen |= BIT[c]
    return act.Discard(chosen)


def choose(s: Seen, legal: list[act.Move]) -> act.Move:
    if s.phase == "bidding":
        return bid(s, legal)
    if s.phase == "discard":
        template = legal[0]
        assert isinstance(template, act.DiscardTemplate)
        return discard(s, template)
    return act.PLAY[play(s, mask_of(a.card for a in legal if isinstance(a, act.Play)))]
