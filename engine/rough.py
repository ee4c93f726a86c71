"""Le Rough (game id ``rough``), docs/rules.md RG-1..RG-16.

Four players in two teams, 36 cards (A..7 and the five), card points (aces and tens 10,
fives 5: 100 in all), one round of point bids from 70 to 100 where the dealer speaks last
and may *keep* the highest bid, a four-card kitty whose discards count for the taker, and
trump fixed by the first card the taker leads unless he declares no trump.
Options: ``dealer_may_open`` (RG-7), ``target_score`` (RG-15), ``floor_loses`` (RG-16, a
[decision] of ours: see ``match_winners``).
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar, Final

from . import actions as act
from .actions import Action, Move
from .base import Game, Option
from .cards import BIT, CODES, card, cards_of, suit_of
from .errors import IllegalAction
from .match import JSON, Match
from .tricks import TrumpTable, trump_table

CARD_POINTS: Final = {"A": 10, "T": 10, "5": 5}
"""RG-4: each ace 10, each ten 10, each five 5."""
GAME_BID: Final = 100
"""RG-9: bidding 100 puts the whole match at stake."""


class Rough(Game):
    id = "rough"
    name = "Le Rough"
    players = 4
    teams = True
    deck = tuple(card(s, r) for s in range(4) for r in "AKQJT9875")
    deal_pattern = (("each", 4), ("kitty", 4), ("each", 4))  # RG-5
    hand_size = 8
    kitty_size = 4
    deck_rule = "RG-1"
    deal_rule = "RG-5"
    end_rule = "RG-15"
    option_specs: ClassVar[dict[str, Option]] = {
        "dealer_may_open": Option(
            True, (True, False), "RG-7", "the dealer may take a contract when the three others passed"
        ),
        "target_score": Option(350, (200, 250, 300, 350, 400, 500), "RG-15", "points that win the match"),
        "floor_loses": Option(
            True, (True, False), "RG-16", "a team whose score falls to minus the target score loses the match"
        ),
    }
    points_mask: ClassVar[tuple[int, ...]]

    def open_bidding(self, m: Match) -> None:
        m.phase = "bidding"

    # ----- bidding (RG-6, RG-7, RG-9) ------------------------------------------------
    def in_the_box(self, m: Match, seat: int) -> bool:
        """RG-9: a team below zero may neither bid nor keep 100."""
        return m.scores[seat % 2] < 0

    def _legal_bidding(self, m: Match) -> list[Move]:
        seat = m.to_act
        assert seat is not None
        moves: list[Move] = [act.PASS]
        top = GAME_BID if not self.in_the_box(m, seat) else GAME_BID - 5
        if seat == m.dealer and m.high_bidder is not None:
            if m.high_bid <= top:
                moves.append(act.KEEP)
            return moves
        if seat == m.dealer and not m.options["dealer_may_open"]:
            return moves
        low = max(70, m.high_bid + 5)
        moves += [act.PointBid(p) for p in range(low, top + 1, 5)]
        return moves

    def _push_bidding(self, m: Match, seat: int, action: Action) -> None:
        dealer = seat == m.dealer
        if isinstance(action, act.PointBid):
            p = action.points
            if dealer and m.high_bidder is not None:
                raise IllegalAction(
                    "the dealer may only pass or keep the highest bid, not raise it", rule="RG-7"
                )
            if dealer and not m.options["dealer_may_open"]:
                raise IllegalAction(
                    "with this table's rules the dealer may not open when all passed", rule="RG-7"
                )
            if not (70 <= p <= GAME_BID and p % 5 == 0):
                raise IllegalAction(
                    "a bid is 70 to 100 points in steps of 5, not {points}", rule="RG-6", points=p
                )
            if p <= m.high_bid:
                raise IllegalAction("a bid must be higher than {high_bid}", rule="RG-6", high_bid=m.high_bid)
            if p == GAME_BID and self.in_the_box(m, seat):
                raise IllegalAction("a team below zero (in the box) may not bid 100", rule="RG-9")
            m.high_bid, m.high_bidder = p, seat
        elif isinstance(action, act.Keep):
            if not dealer:
                raise IllegalAction("only the dealer may keep a bid", rule="RG-7")
            if m.high_bidder is None:
                raise IllegalAction("nobody has bid: there is nothing to keep", rule="RG-7")
            if m.high_bid == GAME_BID and self.in_the_box(m, seat):
                raise IllegalAction("a team below zero (in the box) may not keep a bid of 100", rule="RG-9")
            m.high_bidder = seat
        elif not isinstance(action, act.Pass):
            raise self.refuse(action, "RG-6", "'{action}' is not possible now: bid, keep (dealer) or pass")
        self.record_bid(m, seat, action)
        if not dealer:
            m.to_act = (seat + 1) % self.players
            return
        if m.high_bidder is None:
            self.void_hand(m, "RG-8")
            return
        m.taker, m.level = m.high_bidder, m.high_bid
        m.log.append({"type": "contract", "taker": m.taker, "points": m.level})
        self.take_kitty(m, m.taker)

    # ----- discard (RG-10) -----------------------------------------------------------
    def _push_discard(self, m: Match, seat: int, action: Action) -> None:
        self.discard_to_pile(m, seat, action, "RG-10")
        self.start_play(m, seat)  # RG-11: the taker leads.

    # ----- play: trump fixed by the first lead (RG-11) -------------------------------
    def table_for(self, m: Match) -> TrumpTable:
        return rough_table(None if m.no_trump else m.trump)

    def first_lead(self, m: Match) -> bool:
        return m.table is None

    def _legal_play(self, m: Match) -> list[Move]:
        if not self.first_lead(m):
            return super()._legal_play(m)
        hand = cards_of(m.hands[m.to_act or 0])
        return [*(act.PLAY[c] for c in hand), *(act.PLAY_NO_TRUMP[c] for c in hand)]

    def _push_play(self, m: Match, seat: int, action: Action) -> None:
        if not self.first_lead(m):
            super()._push_play(m, seat, action)
            return
        if not isinstance(action, act.Play):
            raise self.refuse(
                action,
                "RG-11",
                "'{action}' is not possible now: the taker leads a card (with no_trump if he declares it)",
            )
        c = action.card
        if not m.hands[seat] & BIT[c]:
            raise IllegalAction("{card} is not in your hand", rule="ALL-4", card=CODES[c])
        if action.no_trump:
            m.no_trump = True
            m.log.append({"type": "trump", "suit": "NT", "seat": seat})
        else:
            m.trump = suit_of(c)
            m.log.append({"type": "trump", "suit": "SCDH"[m.trump], "seat": seat})
        m.table = self.table_for(m)
        self.play_card(m, seat, c)

    # ----- scoring (RG-12..RG-15) ----------------------------------------------------
    def card_points(self, mask: int) -> int:
        return sum(CARD_POINTS.get(CODES[c][0], 0) for c in cards_of(mask))

    def score_hand(self, m: Match) -> JSON:
        assert m.taker is not None
        team = m.taker % 2
        taken = [0, 0]
        for _, cards, winner in m.tricks:
            for c in cards:
                taken[winner % 2] += CARD_POINTS.get(CODES[c][0], 0)
        taken[team] += self.card_points(m.discards)  # RG-10: discards count for the taker.
        made = taken[team] >= m.level
        points = [0, 0]
        if m.level != GAME_BID:  # RG-14: a 100 contract decides the match instead.
            points[team] = taken[team] if made else -m.level
            points[1 - team] = taken[1 - team]
            m.scores[0] += points[0]
            m.scores[1] += points[1]
        return {
            "taker": m.taker,
            "contract": {"points": m.level},
            "card_points": taken,
            "made": made,
            "points": points,
        }

    def match_winners(self, m: Match, result: JSON) -> list[int] | None:
        if result.get("void"):
            return None
        team = result["taker"] % 2
        if m.level == GAME_BID:
            return self.team_seats(team if result["made"] else 1 - team)
        target = m.options["target_score"]
        over = [t for t in (0, 1) if m.scores[t] >= target]
        if over:
            # RG-15: both over in one hand -> the taking team wins.
            return self.team_seats(team if team in over else over[0])
        if m.options["floor_loses"] and m.scores[team] <= -target:
            # RG-16 [decision]: a team at minus the target loses, so that every match ends.
            return self.team_seats(1 - team)
        return None

    def contract_view(self, m: Match, seat: int | None) -> JSON | None:
        if m.taker is None:
            return None
        return {"taker": m.taker, "points": m.level}

    def extra_view(self, m: Match, seat: int | None) -> JSON:
        """Card points taken in tricks so far (public); the taker's discards stay hidden."""
        taken = [0, 0]
        for _, cards, winner in m.tricks:
            for c in cards:
                taken[winner % 2] += CARD_POINTS.get(CODES[c][0], 0)
        return {"trick_points": taken}


@cache  # a handful of tables per game: built once, then one lookup when play starts
def rough_table(trump: int | None) -> TrumpTable:
    """RG-3: the same rank in every suit, trump or not; no bowers."""
    if trump is None:
        return trump_table(Rough.deck_mask, (), None)
    return trump_table(Rough.deck_mask, tuple(card(trump, r) for r in "AKQJT9875"), trump)
