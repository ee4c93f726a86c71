"""The heuristic bot on chosen deals: it bids, discards and plays the way a sound player would."""

from __future__ import annotations

import random
from typing import Any

import engine
from workers import bots

JSON = dict[str, Any]


def deal(game: str, dealer: int, fixed: dict[int, list[str]], kitty: list[str] | None = None) -> JSON:
    """An explicit deal (ALL-3): the given cards, the rest of the deck dealt in deck order."""
    g = engine.game(game)
    deck = [
        c for c in g.describe()["deck"] if not any(c in h for h in fixed.values()) and c not in (kitty or [])
    ]
    hands = []
    for seat in range(g.players):
        hand = list(fixed.get(seat, []))
        while len(hand) < g.hand_size:
            hand.append(deck.pop(0))
        hands.append(hand)
    rest = list(kitty or [])
    while len(rest) < g.kitty_size:
        rest.append(deck.pop(0))
    assert not deck
    return {"dealer": dealer, "hands": hands, "kitty": rest}


def heuristic(m: engine.Match) -> JSON:
    seat = m.to_act
    assert seat is not None
    return bots.choose("heuristic", engine.view(m, seat), engine.legal_actions(m, seat), random.Random(0))


def play(m: engine.Match, *actions: tuple[int, JSON]) -> engine.Match:
    for seat, action in actions:
        m = engine.apply(m, seat, action)
    return m


def card(code: str) -> JSON:
    return {"type": "play", "card": code}


PASS = {"type": "pass"}


# ----- Le 500 -----------------------------------------------------------------------------------


def test_500_bids_spades_with_jokers_bowers_and_long_spades() -> None:
    """F5-4, F5-8: both jokers, both black jacks and five more spades make a spade contract."""
    hand = ["BJ", "RJ", "JS", "JC", "AS", "KS", "QS", "TS", "AH", "AD"]
    m = engine.new_match("five_hundred", deal=deal("five_hundred", 3, {0: hand}))
    action = heuristic(m)
    assert action["type"] == "bid" and action["suit"] == "S"


def test_500_passes_with_a_weak_hand() -> None:
    hand = ["4C", "5D", "6H", "7S", "4D", "5H", "6C", "7D", "8H", "9C"]
    m = engine.new_match("five_hundred", deal=deal("five_hundred", 3, {0: hand}))
    assert heuristic(m) == PASS


HEARTS = {0: ["9H", "8H", "7H"], 1: ["4H", "JH"], 2: ["TH", "5H"], 3: ["AH", "KH", "QH", "6H"]}


def spade_contract_to_play() -> engine.Match:
    """Seat 0 takes 8 spades, discards six non-hearts and leads (F5-10, F5-11)."""
    m = engine.new_match("five_hundred", deal=deal("five_hundred", 3, HEARTS))
    m = play(m, (0, {"type": "bid", "tricks": 8, "suit": "S"}), (1, PASS), (2, PASS), (3, PASS))
    others = [c for c in engine.view(m, 0)["hand"] if not c.endswith("H")][:6]
    return play(m, (0, {"type": "discard", "cards": others}))


def test_500_ducks_when_partner_wins_and_it_is_last_to_play() -> None:
    m = play(spade_contract_to_play(), (0, card("7H")), (1, card("JH")), (2, card("5H")))
    assert heuristic(m) == card("6H")


def test_500_wins_cheaply_when_last_to_play() -> None:
    m = play(spade_contract_to_play(), (0, card("9H")), (1, card("4H")), (2, card("TH")))
    assert heuristic(m) == card("QH")


def test_500_taker_discards_no_trump_and_keeps_side_aces() -> None:
    """F5-10: the taker keeps trumps (jokers, bowers, spades) and aces; he throws low cards."""
    hand = ["BJ", "RJ", "JS", "JC", "AS", "KS", "QS", "TS", "AH", "AD"]
    m = engine.new_match("five_hundred", deal=deal("five_hundred", 3, {0: hand}))
    m = play(m, (0, {"type": "bid", "tricks": 8, "suit": "S"}), (1, PASS), (2, PASS), (3, PASS))
    thrown = heuristic(m)["cards"]
    assert not set(thrown) & {*hand}


# ----- Le Rough ---------------------------------------------------------------------------------


def test_rough_bids_with_a_strong_hand_and_passes_with_a_weak_one() -> None:
    strong = ["AS", "KS", "QS", "TS", "9S", "AH", "AD", "5S"]
    m = engine.new_match("rough", deal=deal("rough", 3, {0: strong}))
    assert heuristic(m)["type"] == "bid"
    weak = ["7S", "8S", "9C", "7C", "8D", "9D", "7H", "8H"]
    m = engine.new_match("rough", deal=deal("rough", 3, {0: weak}))
    assert heuristic(m) == PASS


def test_rough_smears_a_ten_on_partners_sure_trick() -> None:
    """RG-4, RG-12: last to play with partner winning, give him the ten, not the nine."""
    fixed = {0: ["7S", "AH", "AD", "AC"], 1: ["AS", "KH"], 2: ["8S", "KD"], 3: ["TS", "9S"]}
    m = engine.new_match("rough", deal=deal("rough", 3, fixed))
    m = play(m, (0, {"type": "bid", "points": 70}), (1, PASS), (2, PASS), (3, PASS))
    kept = {"7S", "AH", "AD", "AC"}
    thrown = [c for c in engine.view(m, 0)["hand"] if c not in kept][:4]
    m = play(m, (0, {"type": "discard", "cards": thrown}), (0, card("7S")), (1, card("AS")), (2, card("8S")))
    assert heuristic(m) == card("TS")


def test_rough_taker_banks_loose_tens_and_fives_in_the_discard() -> None:
    """RG-10: discards count for the taker, so unguarded tens and fives go there."""
    hand = ["AS", "KS", "QS", "JS", "9S", "TH", "5D", "7C"]
    m = engine.new_match("rough", deal=deal("rough", 3, {0: hand}, kitty=["8S", "7S", "8C", "9C"]))
    m = play(m, (0, {"type": "bid", "points": 70}), (1, PASS), (2, PASS), (3, PASS))
    thrown = set(heuristic(m)["cards"])
    assert {"TH", "5D"} <= thrown
    assert not thrown & {"AS", "KS", "QS", "JS"}


# ----- five-handed euchre -----------------------------------------------------------------------


def test_euchre_orders_up_a_strong_hand_and_passes_a_weak_one() -> None:
    strong = ["JS", "JC", "AS", "KS", "AH"]
    m = engine.new_match("euchre5", deal=deal("euchre5", 4, {0: strong}, kitty=["9S"]))
    assert heuristic(m) == {"type": "order_up"}
    weak = ["8D", "9D", "TH", "8C", "9C"]
    m = engine.new_match("euchre5", deal=deal("euchre5", 4, {0: weak}, kitty=["9S"]))
    assert heuristic(m) == PASS


def test_euchre_maker_calls_the_highest_trump_he_lacks() -> None:
    """E5-7: with the left bower and A K Q of spades, the right bower is the best partner."""
    hand = ["JC", "AS", "KS", "QS", "8H"]
    m = engine.new_match("euchre5", deal=deal("euchre5", 4, {0: hand}, kitty=["9S"]))
    m = play(m, (0, {"type": "order_up"}))
    m = engine.apply(m, 4, heuristic(m))  # the dealer's exchange
    assert heuristic(m) == {"type": "call_partner", "card": "JS"}


def test_euchre_goes_alone_with_both_bowers_and_top_trumps() -> None:
    hand = ["JS", "JC", "AS", "KS", "AH"]
    m = engine.new_match("euchre5", deal=deal("euchre5", 4, {0: hand}, kitty=["9S"]))
    m = play(m, (0, {"type": "order_up"}))
    m = engine.apply(m, 4, heuristic(m))
    assert heuristic(m) == {"type": "go_alone"}


def test_euchre_dealer_exchanges_his_lowest_off_suit_card() -> None:
    """E5-5: the dealer takes the upcard and throws the lone low card of a side suit."""
    dealer_hand = ["JS", "AS", "KH", "AD", "8C"]
    m = engine.new_match("euchre5", deal=deal("euchre5", 4, {4: dealer_hand}, kitty=["9S"]))
    m = play(m, (0, {"type": "order_up"}))
    assert heuristic(m) == {"type": "exchange", "discard": "8C"}
