"""Le 500 (game id ``five_hundred``), docs/rules.md F5-1..F5-14.

Four players in two teams, 46 cards (A..4 and two jokers), one round of bidding for
8-10 tricks in a denomination, a six-card kitty for the taker, the Avondale score table.
Options: ``min_bid_level`` (F5-8), ``slam_bonus`` (F5-13), ``target_score`` (F5-14).
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar, Final

from . import actions as act
from .actions import DENOMINATIONS, Action
from .base import Game, Option
from .cards import BLACK_JOKER, JOKERS, RED_JOKER, card, same_colour_suit
from .errors import IllegalAction
from .match import JSON, Match
from .tricks import JOKER_SUIT, TrumpTable, trump_table

NT: Final = 4


def bid_value(tricks: int, denomination: int) -> int:
    """The Avondale table (F5-12): 40 + 100 x (tricks - 6) + 20 x d, d = S0 C1 D2 H3 NT4."""
    return 40 + 100 * (tricks - 6) + 20 * denomination


class FiveHundred(Game):
    id = "five_hundred"
    name = "Le 500"
    players = 4
    teams = True
    deck = tuple(card(s, r) for s in range(4) for r in "AKQJT987654") + JOKERS
    # F5-3: 3 each, 3 to the kitty, 2 each, 3 each, 3 to the kitty, 2 each.
    deal_pattern = (("each", 3), ("kitty", 3), ("each", 2), ("each", 3), ("kitty", 3), ("each", 2))
    hand_size = 10
    kitty_size = 6
    deck_rule = "F5-1"
    deal_rule = "F5-3"
    end_rule = "F5-14"
    option_specs: ClassVar[dict[str, Option]] = {
        "min_bid_level": Option(8, (6, 7, 8), "F5-8", "lowest number of tricks one may bid"),
        "slam_bonus": Option(
            False, (False, True), "F5-13", "all ten tricks on a contract worth less than 250 score 250"
        ),
        "target_score": Option(1000, (300, 500, 1000, 1500, 2000), "F5-14", "points that win the match"),
    }

    def open_bidding(self, m: Match) -> None:
        m.phase = "bidding"

    # ----- bidding (F5-8, F5-9) ------------------------------------------------------
    def _legal_bidding(self, m: Match) -> list[Action]:
        low = m.options["min_bid_level"]
        moves: list[Action] = [act.PASS]
        moves += [act.TrickBid(t, d) for t in range(low, 11) for d in range(5) if t * 5 + d > m.high_bid]
        return moves

    def _push_bidding(self, m: Match, seat: int, action: Action) -> None:
        if isinstance(action, act.TrickBid):
            low = m.options["min_bid_level"]
            if not low <= action.tricks <= 10:
                raise IllegalAction(
                    "a bid is {low} to 10 tricks, not {tricks}", rule="F5-8", low=low, tricks=action.tricks
                )
            if action.rank <= m.high_bid:
                raise IllegalAction(
                    "a bid must be higher than the highest bid so far "
                    "(more tricks, or as many in a higher suit: S < C < D < H < NT)",
                    rule="F5-8",
                )
            m.high_bid, m.high_bidder = action.rank, seat
        elif not isinstance(action, act.Pass):
            raise self.refuse(action, "F5-8", "'{action}' is not possible now: bid or pass")
        self.record_bid(m, seat, action)
        m.turns += 1
        if m.turns < self.players:
            m.to_act = (seat + 1) % self.players
            return
        if m.high_bidder is None:
            self.void_hand(m, "F5-9")
            return
        self.award_contract(m)

    def award_contract(self, m: Match) -> None:
        """F5-9, F5-10: the highest bidder takes the kitty and must discard six."""
        taker = m.high_bidder
        assert taker is not None
        tricks, d = divmod(m.high_bid, 5)
        m.taker, m.level = taker, tricks
        m.no_trump = d == NT
        m.trump = None if d == NT else d
        m.log.append({"type": "contract", "taker": taker, "tricks": tricks, "suit": DENOMINATIONS[d]})
        self.take_kitty(m, taker)

    # ----- discard (F5-10) -----------------------------------------------------------
    def _push_discard(self, m: Match, seat: int, action: Action) -> None:
        self.discard_to_pile(m, seat, action, "F5-10")
        self.start_play(m, seat)  # F5-11: the taker leads.

    # ----- play ----------------------------------------------------------------------
    def table_for(self, m: Match) -> TrumpTable:
        return five_hundred_table(m.trump)

    def start_play(self, m: Match, leader: int) -> None:
        m.table = self.table_for(m)
        super().start_play(m, leader)

    def follow_rule(self, m: Match, led: int) -> str:
        return "F5-7" if led in JOKERS else "ALL-4"

    # ----- scoring (F5-12, F5-13, F5-14) ---------------------------------------------
    def score_hand(self, m: Match) -> JSON:
        assert m.taker is not None
        team = m.taker % 2
        d = NT if m.no_trump else m.trump
        assert d is not None
        value = bid_value(m.level, d)
        taken = m.tricks_won[team] + m.tricks_won[team + 2]
        made = taken >= m.level
        if made and taken == 10 and m.options["slam_bonus"] and value < 250:
            value = 250
        scorer = team if made else 1 - team
        m.scores[scorer] += value
        points = [0, 0]
        points[scorer] = value
        return {
            "taker": m.taker,
            "contract": {"tricks": m.level, "suit": DENOMINATIONS[d]},
            "tricks_taken": [taken, 10 - taken] if team == 0 else [10 - taken, taken],
            "made": made,
            "points": points,
        }

    def match_winners(self, m: Match, result: JSON) -> list[int] | None:
        target = m.options["target_score"]
        for team in (0, 1):
            if m.scores[team] >= target:
                return self.team_seats(team)
        return None

    def contract_view(self, m: Match, seat: int | None) -> JSON | None:
        if m.taker is None:
            return None
        d = NT if m.no_trump else m.trump
        assert d is not None
        return {"taker": m.taker, "tricks": m.level, "suit": DENOMINATIONS[d], "value": bid_value(m.level, d)}


@cache  # a handful of tables per game: built once, then one lookup when play starts
def five_hundred_table(trump: int | None) -> TrumpTable:
    """F5-4..F5-6: the jokers, then the jack and its compere, then A..4 of trump; at NT
    the two jokers alone form the trump suit."""
    deck = FiveHundred.deck_mask
    if trump is None:
        return trump_table(deck, (BLACK_JOKER, RED_JOKER), JOKER_SUIT)
    order = (
        BLACK_JOKER,
        RED_JOKER,
        card(trump, "J"),
        card(same_colour_suit(trump), "J"),
        *(card(trump, r) for r in "AKQT987654"),
    )
    return trump_table(deck, order, trump)
