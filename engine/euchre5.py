"""Five-handed euchre with a called partner (game id ``euchre5``), docs/rules.md E5-1..E5-12.

Five players each for themselves, 28 cards (A..8), five cards each and a face-up upcard.
Round 1 orders the upcard's suit up (the dealer may exchange for it), round 2 names
another suit, and the dealer is stuck if all pass. The maker then calls a card: its
holder is his secret partner until it is played. Options: ``lone_march_points`` (E5-11),
``target_score`` (E5-12).
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from . import actions as act
from .actions import Action, Move
from .base import Game, Option
from .cards import BIT, CODES, card, cards_of, same_colour_suit, suit_of
from .errors import IllegalAction
from .match import JSON, Match
from .tricks import TrumpTable, trump_table


class Euchre5(Game):
    id = "euchre5"
    name = "Five-handed euchre"
    players = 5
    teams = False
    deck = tuple(card(s, r) for s in range(4) for r in "AKQJT98")
    deal_pattern = (("each", 2), ("each", 3), ("kitty", 3))  # E5-3; kitty[0] is the upcard
    hand_size = 5
    kitty_size = 3
    deck_rule = "E5-1"
    kitty_to_taker = False
    deal_rule = "E5-3"
    end_rule = "E5-12"
    option_specs: ClassVar[dict[str, Option]] = {
        "lone_march_points": Option(
            2, (2, 3, 4, 5), "E5-11", "points of a maker who chose to go alone and took all five tricks"
        ),
        "target_score": Option(10, (5, 7, 10, 11, 15), "E5-12", "points that end the match"),
    }

    def upcard(self, m: Match) -> int:
        return m.kitty_dealt[0]

    def open_bidding(self, m: Match) -> None:
        m.phase = "order"
        m.log.append({"type": "upcard", "card": CODES[self.upcard(m)]})

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.players

    # ----- round 1: order up (E5-5) --------------------------------------------------
    def _legal_order(self, m: Match) -> list[Move]:
        return [act.PASS, act.ORDER_UP]

    def _push_order(self, m: Match, seat: int, action: Action) -> None:
        if isinstance(action, act.OrderUp):
            m.taker, m.trump = seat, suit_of(self.upcard(m))
            m.bids.append((seat, action))
            m.log.append({"type": "order_up", "seat": seat, "suit": "SCDH"[m.trump]})
            m.phase, m.to_act = "exchange", m.dealer
            return
        if not isinstance(action, act.Pass):
            raise self.refuse(
                action, "E5-5", "'{action}' is not possible now: order the upcard's suit up or pass"
            )
        self.record_bid(m, seat, action)
        if seat != m.dealer:
            m.to_act = self.next_seat(seat)
            return
        # E5-6: all five passed, the upcard is turned down.
        m.phase, m.to_act = "name", self.next_seat(m.dealer)
        m.log.append({"type": "upcard_turned_down", "card": CODES[self.upcard(m)]})

    # ----- the dealer's exchange (E5-5) ----------------------------------------------
    def _legal_exchange(self, m: Match) -> list[Move]:
        return [act.PASS, *(act.EXCHANGE[c] for c in cards_of(m.hands[m.dealer]))]

    def _push_exchange(self, m: Match, seat: int, action: Action) -> None:
        if isinstance(action, act.Exchange):
            c = action.card
            if not m.hands[seat] & BIT[c]:
                raise IllegalAction(
                    "{card} is not in your hand; exchange one of your own cards for the upcard",
                    card=CODES[c],
                    rule="E5-5",
                )
            up = BIT[self.upcard(m)]
            m.hands[seat] = (m.hands[seat] | up) ^ BIT[c]
            m.kitty ^= up
            m.discards, m.discarder = BIT[c], seat
            m.log.append({"type": "exchange", "seat": seat, "took": CODES[self.upcard(m)]})
            m.log.append({"type": "discarded", "seat": seat, "cards": [CODES[c]], "visible_to": [seat]})
        elif isinstance(action, act.Pass):
            m.log.append({"type": "exchange_declined", "seat": seat})
        else:
            raise self.refuse(
                action,
                "E5-5",
                "'{action}' is not possible now: exchange a card for the upcard, or pass to keep your hand",
            )
        m.phase, m.to_act = "call", m.taker

    # ----- round 2: name a suit, stick the dealer (E5-6) -----------------------------
    def _legal_name(self, m: Match) -> list[Move]:
        turned = suit_of(self.upcard(m))
        names: list[Move] = [act.NAME[s] for s in range(4) if s != turned]
        return names if m.to_act == m.dealer else [act.PASS, *names]

    def _push_name(self, m: Match, seat: int, action: Action) -> None:
        if isinstance(action, act.NameTrump):
            if action.suit == suit_of(self.upcard(m)):
                raise IllegalAction("the turned-down upcard's suit may not be trump this hand", rule="E5-6")
            m.taker, m.trump = seat, action.suit
            m.bids.append((seat, action))
            m.log.append({"type": "name_trump", "seat": seat, "suit": "SCDH"[action.suit]})
            m.phase, m.to_act = "call", seat
            return
        if not isinstance(action, act.Pass):
            raise self.refuse(action, "E5-6", "'{action}' is not possible now: name a trump suit or pass")
        if seat == m.dealer:
            raise IllegalAction(
                "the four others passed: the dealer must name a suit (stick the dealer)", rule="E5-6"
            )
        self.record_bid(m, seat, action)
        m.to_act = self.next_seat(seat)

    # ----- calling the partner (E5-7, E5-8) ------------------------------------------
    def _legal_call(self, m: Match) -> list[Move]:
        own = m.hands[m.taker or 0]
        return [*(act.CALL[c] for c in self.deck if not own & BIT[c]), act.GO_ALONE]

    def _push_call(self, m: Match, seat: int, action: Action) -> None:
        if isinstance(action, act.CallPartner):
            c = action.card
            if not self.deck_mask & BIT[c]:
                raise IllegalAction("{card} is not in the euchre deck (A to 8)", rule="E5-1", card=CODES[c])
            if m.hands[seat] & BIT[c]:
                raise IllegalAction(
                    "you hold {card}: call a card that is not in your hand", rule="E5-7", card=CODES[c]
                )
            m.called = c
            holders = [s for s in range(self.players) if m.hands[s] & BIT[c]]
            m.partner = holders[0] if holders else None  # None: buried, the maker is alone (E5-8)
            m.log.append({"type": "partner_called", "seat": seat, "card": CODES[c]})
            # E5-8: only the holder learns he is the partner. The private event exists even
            # when the card is buried (seen by nobody then), so that the mere count of the
            # events a seat is not shown cannot tell a buried card from a held one.
            m.log.append(
                {
                    "type": "you_are_partner",
                    "seat": m.partner,
                    "card": CODES[c],
                    "visible_to": [] if m.partner is None else [m.partner],
                }
            )
        elif isinstance(action, act.GoAlone):
            m.alone = True
            m.log.append({"type": "go_alone", "seat": seat})
        else:
            raise self.refuse(
                action, "E5-7", "'{action}' is not possible now: call a partner card or go alone"
            )
        m.bids.append((seat, action))
        m.table = self.table_for(m)
        self.start_play(m, self.next_seat(m.dealer))  # E5-9: left of the dealer leads.

    # ----- play ----------------------------------------------------------------------
    def table_for(self, m: Match) -> TrumpTable:
        assert m.trump is not None
        return euchre_table(m.trump)

    def called_card_played(self, m: Match, seat: int, c: int) -> None:
        """E5-8: the partnership becomes public when the called card is played."""
        m.revealed = True
        m.log.append({"type": "partner_revealed", "seat": seat, "card": CODES[c]})

    # ----- scoring (E5-10, E5-11, E5-12) ---------------------------------------------
    def score_hand(self, m: Match) -> JSON:
        assert m.taker is not None
        attackers = [m.taker] if m.partner is None else [m.taker, m.partner]
        defenders = [s for s in range(self.players) if s not in attackers]
        taken = sum(m.tricks_won[s] for s in attackers)
        points = [0] * self.players
        if taken >= 3:
            each = 2 if taken == 5 else 1
            if taken == 5 and m.alone:
                each = m.options["lone_march_points"]
            for s in attackers:
                points[s] = each
        else:
            for s in defenders:
                points[s] = 4 if taken == 0 else 2
        for s in range(self.players):
            m.scores[s] += points[s]
        return {
            "maker": m.taker,
            "partner": m.partner,
            "called": CODES[m.called] if m.called is not None else None,
            "alone": m.alone,
            "attackers": attackers,
            "attacker_tricks": taken,
            "points": points,
        }

    def match_winners(self, m: Match, result: JSON) -> list[int] | None:
        best = max(m.scores)
        if best < m.options["target_score"]:
            return None
        return [s for s in range(self.players) if m.scores[s] == best]  # E5-12: ties share

    # ----- views ---------------------------------------------------------------------
    def contract_view(self, m: Match, seat: int | None) -> JSON | None:
        if m.taker is None:
            return None
        partner_known = m.revealed or (seat is not None and seat == m.partner)
        return {
            "maker": m.taker,
            "trump": "SCDH"[m.trump] if m.trump is not None else None,
            "called_card": CODES[m.called] if m.called is not None else None,
            "alone": m.alone,
            "partner": m.partner if partner_known else None,
        }

    def extra_view(self, m: Match, seat: int | None) -> JSON:
        """The upcard was dealt face up (E5-3), so it and what became of it stay public all
        hand: ``upcard`` while it lies face up, ``turned_down`` once round 1 failed (E5-6),
        ``upcard_dealt`` always, and ``upcard_taken``: None until decided, then whether the
        dealer took it in exchange (E5-5)."""
        up = self.upcard(m)
        face_up = m.phase in ("order", "exchange")
        turned_down = m.phase == "name" or (m.trump is not None and m.trump != suit_of(up))
        taken: bool | None = None
        if turned_down:
            taken = False
        elif m.trump is not None and not face_up:
            taken = m.discarder is not None
        return {
            "upcard": CODES[up] if face_up else None,
            "turned_down": CODES[up] if turned_down else None,
            "upcard_dealt": CODES[up],
            "upcard_taken": taken,
        }


@cache  # a handful of tables per game: built once, then one lookup when play starts
def euchre_table(trump: int) -> TrumpTable:
    """E5-4: right bower, left bower (the jick), then A K Q T 9 8 of trump."""
    order = (card(trump, "J"), card(same_colour_suit(trump), "J"), *(card(trump, r) for r in "AKQT98"))
    return trump_table(Euchre5.deck_mask, order, trump)
