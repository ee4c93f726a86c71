"""docs/rules.md F5-1..F5-14: Le 500."""

from __future__ import annotations

import pytest
from scenarios import (
    PASS,
    assert_illegal,
    bid,
    deal,
    deck,
    discard,
    finish_hand,
    hand_of,
    legal_cards,
    packets,
    play,
    play_cards,
    run,
    shuffled,
    with_scores,
)

import engine

GAME = "five_hundred"
COMPERE = {"S": "C", "C": "S", "D": "H", "H": "D"}


def trump_order(suit: str) -> list[str]:
    """F5-4, high to low: BJ, RJ, jack of trump, the compere, then A K Q T 9 8 7 6 5 4."""
    return ["BJ", "RJ", "J" + suit, "J" + COMPERE[suit], *(r + suit for r in "AKQT987654")]


def taking(
    hands: dict[int, list[str]],
    contract: tuple[int, str],
    kitty: list[str] | None = None,
    options: dict[str, object] | None = None,
    dealer: int = 3,
    scores: tuple[int, int] | None = None,
) -> engine.Match:
    """Seat (dealer+1) bids ``contract``, the others pass, and the taker discards the kitty:
    the match is at the first lead, the taker holding exactly ``hands[taker]``."""
    d = deal(GAME, dealer, hands, kitty)
    m = engine.new_match(GAME, seed=0, options=options, deal=d)
    if scores is not None:
        m = with_scores(m, scores)
    return run(m, bid(*contract), PASS, PASS, PASS, discard(*d["kitty"]))


def sure_hand(denomination: str) -> list[str]:
    """Ten cards that win every trick in ``denomination``."""
    if denomination == "NT":
        return ["BJ", "RJ", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"]
    return trump_order(denomination)[:10]


NINE_IN_HEARTS = {
    0: ["BJ", "RJ", "JH", "JD", "AH", "KH", "QH", "TH", "9H", "4C"],
    1: ["AC", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S"],
}
"""Seat 0 holds nine top hearts and the 4C, seat 1 the AC as his only club: 9 tricks exactly
(the kitty below holds every other trump, so nobody can ruff)."""
NINE_IN_HEARTS_KITTY = ["8H", "7H", "6H", "5H", "4H", "5S"]

NINE_IN_SPADES = {
    0: ["BJ", "RJ", "JS", "JC", "AS", "KS", "QS", "TS", "9S", "4H"],
    1: ["AH", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D"],
}
NINE_IN_SPADES_KITTY = ["8S", "7S", "6S", "5S", "4S", "5D"]


# ----- F5-1 the deck --------------------------------------------------------------------


def test_f5_1_the_deck_is_46_cards_ace_to_four_and_two_jokers() -> None:
    """F5-1: A K Q J T 9 8 7 6 5 4 in each suit plus both jokers."""
    expected = {r + s for r in "AKQJT987654" for s in "SCDH"} | {"BJ", "RJ"}
    assert len(deck(GAME)) == 46
    assert set(deck(GAME)) == expected
    m = engine.new_match(GAME, seed=1)
    assert sum(len(engine.view(m, s)["hand"]) for s in range(4)) == 40


def test_f5_1_a_deal_with_a_card_outside_the_deck_is_refused() -> None:
    """F5-1: a deal with a three in place of the red joker is not a Le 500 deal."""
    d = deal(GAME, 0, {})
    d["hands"] = [[c if c != "RJ" else "3H" for c in h] for h in d["hands"]]
    d["kitty"] = [c if c != "RJ" else "3H" for c in d["kitty"]]
    with pytest.raises(engine.IllegalAction) as refused:
        engine.new_match(GAME, seed=0, deal=d)
    assert refused.value.rule == "ALL-3"


# ----- F5-2 teams -----------------------------------------------------------------------


def test_f5_2_partners_win_tricks_for_their_team() -> None:
    """F5-2: seats 0 and 2 are a team: the partner's trick completes the taker's 10."""
    hands = {
        0: ["BJ", "RJ", "JS", "JC", "AS", "KS", "QS", "TS", "9S", "4H"],
        2: ["AH", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D"],
    }
    m = finish_hand(taking(hands, (10, "S"), kitty=NINE_IN_SPADES_KITTY))
    assert m.last_hand["tricks_taken"] == [10, 0]
    assert sum(1 for t in m.last_hand["deal"]["tricks"] if t["winner"] == 2) == 1
    assert m.scores == [440, 0]


def test_f5_2_seats_1_and_3_score_together() -> None:
    """F5-2: a contract made by seat 3 scores for the team 1+3."""
    m = finish_hand(taking({3: sure_hand("S")}, (8, "S"), dealer=2))
    assert m.scores == [0, 240]


# ----- F5-3 the deal --------------------------------------------------------------------


def test_f5_3_deal_is_3_each_3_kitty_2_each_3_each_3_kitty_2_each() -> None:
    """F5-3: from the top of the deck, starting left of the dealer, in the rule's packets."""
    m, order = shuffled(GAME, seed=5)
    pattern = [("each", 3), ("kitty", 3), ("each", 2), ("each", 3), ("kitty", 3), ("each", 2)]
    hands, kitty = packets(order, m.dealer, 4, pattern)
    for seat in range(4):
        assert hand_of(m, seat) == set(hands[seat])
    m = run(m, PASS, PASS, PASS, PASS)
    assert m.last_hand["deal"]["kitty"] == kitty


# ----- F5-4 trump order in a suit contract ---------------------------------------------


def _trick_of_two_trumps(suit: str, led: str, second: str) -> int:
    """Seat 0 (taker, trump ``suit``) leads ``led``, seat 1 plays ``second``; seats 2 and 3
    hold no trump. Returns the trick winner."""
    plain = [s for s in "SCDH" if s not in (suit, COMPERE[suit])]
    m = taking(
        {
            0: [led],
            1: [second],
            2: [r + plain[0] for r in "AKQJT98765"],
            3: [r + plain[1] for r in "AKQJT98765"],
        },
        (8, suit),
    )
    m = play_cards(m, f"{led} {second} A{plain[0]} A{plain[1]}")
    return int(engine.view(m, None)["tricks"][0]["winner"])


@pytest.mark.parametrize("suit", ["H", "S"])
@pytest.mark.parametrize("i", range(13))
def test_f5_4_trump_order_jokers_then_both_jacks_then_ace_down(suit: str, i: int) -> None:
    """F5-4: BJ > RJ > jack of trump > compere > A K Q T 9 8 7 6 5 4, whoever plays first."""
    higher, lower = trump_order(suit)[i], trump_order(suit)[i + 1]
    assert _trick_of_two_trumps(suit, lower, higher) == 1
    assert _trick_of_two_trumps(suit, higher, lower) == 0


def test_f5_4_the_compere_and_jokers_belong_to_trump() -> None:
    """F5-4 / ALL-5: with diamonds trump, JH, BJ and RJ must follow a diamond lead."""
    m = taking(
        {0: ["AD", "KD", "QD", "TD", "9D", "8D", "7D", "6D", "5D", "4D"], 1: ["JH", "BJ", "AH", "AS"]},
        (8, "D"),
        kitty=["AC", "KC", "QC", "JC", "TC", "9C"],
    )
    m = play_cards(m, "AD")
    assert legal_cards(m) == {"JH", "BJ"}
    assert_illegal(m, 1, play("AH"), "ALL-4")


# ----- F5-5 plain suits ----------------------------------------------------------------


def test_f5_5_plain_suit_lacks_its_compere() -> None:
    """F5-5: with hearts trump, JD is not a diamond: a holder of JD and TD must follow with TD."""
    m = taking({0: ["QD"], 1: ["JD", "TD", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"]}, (8, "H"))
    m = play_cards(m, "QD")
    assert legal_cards(m) == {"TD"}


def test_f5_5_plain_suits_rank_ace_to_four_jacks_included() -> None:
    """F5-5: in a plain suit that is not the compere's, J ranks between Q and T."""
    m = taking(
        {0: ["JC"], 1: ["TC", "AS"], 2: ["QC", "KS"], 3: ["4C", "QS"]},
        (8, "H"),
        kitty=["AH", "KH", "QH", "4H", "5H", "6H"],
    )
    m = play_cards(m, "JC TC QC 4C")
    assert engine.view(m, None)["tricks"][0]["winner"] == 2
    m2 = taking({0: ["JC"], 1: ["TC", "AS"], 2: ["4C", "KS"], 3: ["5C", "QS"]}, (8, "H"))
    m2 = play_cards(m2, "JC TC 4C 5C")
    assert engine.view(m2, None)["tricks"][0]["winner"] == 0


# ----- F5-6 no trump -------------------------------------------------------------------


def test_f5_6_at_no_trump_a_joker_beats_the_ace_led_and_black_beats_red() -> None:
    """F5-6: at NT the two jokers alone are trump, the black above the red."""
    spadeless = ["AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D"]
    m = taking(
        {0: ["AS"], 1: ["RJ", *spadeless], 2: ["BJ", "AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H"]},
        (8, "NT"),
        kitty=["AC", "KC", "QC", "JC", "TC", "9C"],
    )
    assert engine.view(m, 0)["trump"] == "NT"
    m = play_cards(m, "AS RJ")
    m = play_cards(m, "BJ")
    m = play_cards(m, sorted(legal_cards(m))[0])
    assert engine.view(m, None)["tricks"][0]["winner"] == 2


def test_f5_6_at_no_trump_the_jacks_stay_in_their_suits() -> None:
    """F5-6: at NT there are no bowers: JD follows diamonds and ranks between QD and TD."""
    m = taking({0: ["QD"], 1: ["JD", "AS", "KS"], 2: ["TD"], 3: ["4D"]}, (8, "NT"))
    m = play_cards(m, "QD")
    assert "JD" in legal_cards(m)
    assert "AS" not in legal_cards(m)
    m = play_cards(m, "JD TD 4D")
    assert engine.view(m, None)["tricks"][0]["winner"] == 0
    m2 = taking({0: ["TD"], 1: ["JD", "AS", "KS"], 2: ["5D"], 3: ["4D"]}, (8, "NT"))
    m2 = play_cards(m2, "TD JD 5D 4D")
    assert engine.view(m2, None)["tricks"][0]["winner"] == 1


# ----- F5-7 a joker led calls for trump -------------------------------------------------


@pytest.mark.parametrize("joker", ["BJ", "RJ"])
def test_f5_7_a_joker_led_calls_for_trump(joker: str) -> None:
    """F5-7: in a suit contract, every other player must play a trump if able."""
    other = {"BJ": "RJ", "RJ": "BJ"}[joker]
    m = taking(
        {
            0: [joker, "8H", "7H", "6H", "4H"],
            1: ["5H", "AS", "KS", "QS", "AC"],
            2: ["JD", "KC", "QC", "JC", "TC"],
            3: [other, "AD", "KD", "QD", "TD", "9D", "8D", "7D", "6D", "5D"],
        },
        (8, "H"),
        kitty=["AH", "KH", "QH", "JH", "TH", "9H"],
    )
    m = play_cards(m, joker)
    assert legal_cards(m) == {"5H"}
    refusal = assert_illegal(m, 1, play("AS"), "F5-7")
    assert "5H" in str(refusal)
    m = play_cards(m, "5H")
    assert legal_cards(m) == {"JD"}  # the compere is a trump
    assert_illegal(m, 2, play("KC"), "F5-7")
    m = play_cards(m, "JD")
    assert legal_cards(m) == {other}  # and so is the other joker
    assert_illegal(m, 3, play("AD"), "F5-7")


def test_f5_7_a_joker_led_at_no_trump_calls_for_the_other_joker() -> None:
    """F5-7: at NT, the holder of the other joker must play it; the others play anything."""
    m = taking(
        {0: ["RJ"], 1: ["5H", "AS", "KS", "QS", "AC"], 2: ["BJ", "KC", "QC", "JC", "TC"]},
        (8, "NT"),
    )
    m = play_cards(m, "RJ")
    assert legal_cards(m) == hand_of(m, 1)  # no joker: void in the trump suit
    m = play_cards(m, "AS")
    assert legal_cards(m) == {"BJ"}
    assert_illegal(m, 2, play("KC"), "F5-7")
    m = play_cards(m, "BJ")
    m = play_cards(m, sorted(legal_cards(m))[0])
    assert engine.view(m, None)["tricks"][0]["winner"] == 2


# ----- F5-8 bidding --------------------------------------------------------------------


def test_f5_8_a_bid_must_be_higher_in_tricks_then_denomination() -> None:
    """F5-8: S < C < D < H < NT; more tricks beat any denomination."""
    m = engine.new_match(GAME, seed=0, deal=deal(GAME, 3, {}))
    m = run(m, bid(8, "D"))
    assert_illegal(m, 1, bid(8, "D"), "F5-8")
    assert_illegal(m, 1, bid(8, "C"), "F5-8")
    assert_illegal(m, 1, bid(8, "S"), "F5-8")
    offered = engine.legal_actions(m, 1)
    assert bid(8, "H") in offered and bid(8, "NT") in offered and bid(9, "S") in offered
    assert bid(8, "C") not in offered
    m = run(m, bid(8, "NT"))
    assert_illegal(m, 2, bid(8, "NT"), "F5-8")
    m = run(m, bid(9, "S"))
    assert m.to_act == 3


def test_f5_8_a_bid_is_8_to_10_tricks_by_default() -> None:
    """F5-8: the default min_bid_level is 8; 7 and 11 are refused."""
    m = engine.new_match(GAME, seed=0, deal=deal(GAME, 3, {}))
    assert_illegal(m, 0, bid(7, "NT"), "F5-8")
    assert_illegal(m, 0, bid(11, "S"), "F5-8")
    bids = [a for a in engine.legal_actions(m, 0) if a["type"] == "bid"]
    assert len(bids) == 15
    assert {a["tricks"] for a in bids} == {8, 9, 10}


@pytest.mark.parametrize("level", [6, 7])
def test_f5_8_min_bid_level_option_allows_lower_bids(level: int) -> None:
    """F5-8 [option] min_bid_level: 6 or 7 tricks may be bid, and score by the table."""
    m = taking({0: sure_hand("S")}, (level, "S"), options={"min_bid_level": level})
    assert engine.view(m, 0)["contract"]["tricks"] == level
    m = finish_hand(m)
    assert m.scores == [40 + 100 * (level - 6), 0]
    m = engine.new_match(GAME, seed=0, options={"min_bid_level": level}, deal=deal(GAME, 3, {}))
    assert_illegal(m, 0, bid(level - 1, "NT"), "F5-8")


def test_f5_8_min_bid_level_only_takes_allowed_values() -> None:
    """F5-8 [option]: 6, 7 and 8 are the allowed values."""
    with pytest.raises(engine.IllegalAction) as refused:
        engine.new_match(GAME, seed=0, options={"min_bid_level": 5})
    assert refused.value.rule == "F5-8"


def test_f5_8_one_round_each_player_speaks_once() -> None:
    """F5-8: after the four have spoken, bidding is over (nobody bids again after a pass)."""
    m = engine.new_match(GAME, seed=0, deal=deal(GAME, 3, {}))
    m = run(m, PASS, bid(8, "S"), PASS, PASS)
    assert m.phase == "discard"
    assert m.to_act == 1


# ----- F5-9 the contract, or a void hand ----------------------------------------------


def test_f5_9_the_last_highest_bidder_wins_the_contract() -> None:
    """F5-9: the highest bid takes the contract even if an earlier bidder holds more cards."""
    m = engine.new_match(GAME, seed=0, deal=deal(GAME, 3, {}))
    m = run(m, bid(8, "S"), bid(8, "H"), bid(9, "C"), PASS)
    assert engine.view(m, 0)["contract"] == {"taker": 2, "tricks": 9, "suit": "C", "value": 360}
    assert m.to_act == 2


def test_f5_9_all_pass_voids_the_hand_and_the_deal_passes_left() -> None:
    """F5-9: four passes: nobody scores and the next dealer is the seat on the left."""
    m = engine.new_match(GAME, seed=0, deal=deal(GAME, 1, {}))
    m = run(m, PASS, PASS, PASS, PASS)
    assert m.last_hand["void"] is True
    assert m.scores == [0, 0]
    assert m.hand_number == 2
    assert m.dealer == 2
    assert m.to_act == 3
    assert m.phase == "bidding"


# ----- F5-10 the kitty ----------------------------------------------------------------


def test_f5_10_the_taker_picks_up_the_kitty_and_discards_six() -> None:
    """F5-10: 16 cards after the pickup, any 6 of them face down, 10 kept."""
    d = deal(GAME, 3, {})
    m = engine.new_match(GAME, seed=0, deal=d)
    m = run(m, PASS, bid(8, "S"), PASS, PASS)
    assert hand_of(m, 1) == set(d["hands"][1]) | set(d["kitty"])
    template = engine.legal_actions(m, 1)
    assert template == [{"type": "discard", "count": 6, "choices": sorted(hand_of(m, 1))}]
    chosen = d["hands"][1][:4] + d["kitty"][:2]
    m = run(m, discard(*chosen))
    assert hand_of(m, 1) == (set(d["hands"][1]) | set(d["kitty"])) - set(chosen)


def test_f5_10_exactly_six_cards_of_ones_hand_are_discarded() -> None:
    """F5-10: five or seven cards, or a card not held, are refused."""
    d = deal(GAME, 3, {})
    m = run(engine.new_match(GAME, seed=0, deal=d), bid(8, "S"), PASS, PASS, PASS)
    held = d["hands"][0] + d["kitty"]
    assert_illegal(m, 0, discard(*held[:5]), "F5-10")
    assert_illegal(m, 0, discard(*held[:7]), "F5-10")
    assert_illegal(m, 0, discard(*held[:5], d["hands"][1][0]), "F5-10")
    assert_illegal(m, 0, play(held[0]), "F5-10")


def test_f5_10_discards_count_for_nothing() -> None:
    """F5-10: discarding both jokers and three aces wins no trick and scores nothing."""
    aces = ["BJ", "RJ", "AC", "AD", "AH", "KH"]
    m = taking({0: [*sure_hand("NT")[2:], "KC", "KD"]}, (8, "NT"), kitty=aces)
    assert set(engine.view(m, 0)["my_discards"]) == set(aces)
    m = finish_hand(m)
    tricks = m.last_hand["deal"]["tricks"]
    assert len(tricks) == 10 and not {c for t in tricks for c in t["cards"]} & set(aces)
    assert sum(m.last_hand["tricks_taken"]) == 10


# ----- F5-11 the taker leads ----------------------------------------------------------


def test_f5_11_the_taker_leads_the_first_trick() -> None:
    """F5-11: not the player left of the dealer - the taker."""
    d = deal(GAME, 0, {})
    m = engine.new_match(GAME, seed=0, deal=d)
    m = run(m, PASS, PASS, bid(8, "S"), PASS)
    m = run(m, discard(*d["kitty"]))
    assert m.to_act == 3
    assert engine.view(m, 0)["phase"] == "play"


# ----- F5-12 the Avondale table -------------------------------------------------------

AVONDALE = {
    (8, "S"): 240, (8, "C"): 260, (8, "D"): 280, (8, "H"): 300, (8, "NT"): 320,
    (9, "S"): 340, (9, "C"): 360, (9, "D"): 380, (9, "H"): 400, (9, "NT"): 420,
    (10, "S"): 440, (10, "C"): 460, (10, "D"): 480, (10, "H"): 500, (10, "NT"): 520,
}  # fmt: skip


@pytest.mark.parametrize(("contract", "value"), sorted(AVONDALE.items()))
def test_f5_12_a_made_contract_scores_the_avondale_value(contract: tuple[int, str], value: int) -> None:
    """F5-12: 40 + 100 x (tricks - 6) + 20 x d, d = S0 C1 D2 H3 NT4."""
    m = taking({0: sure_hand(contract[1])}, contract)
    assert engine.view(m, 1)["contract"]["value"] == value
    m = finish_hand(m)
    assert m.last_hand["tricks_taken"] == [10, 0]
    assert m.last_hand["points"] == [value, 0]
    assert m.scores == [value, 0]


# ----- F5-13 made or set -------------------------------------------------------------


def test_f5_13_exactly_the_tricks_bid_makes_the_contract() -> None:
    """F5-13: nine tricks on a bid of nine: the taking team scores the bid's value."""
    m = finish_hand(taking(NINE_IN_HEARTS, (9, "H"), kitty=NINE_IN_HEARTS_KITTY))
    assert m.last_hand["tricks_taken"] == [9, 1]
    assert m.last_hand["made"] is True
    assert m.scores == [400, 0]


def test_f5_13_a_set_contract_scores_its_value_to_the_other_team() -> None:
    """F5-13: nine tricks on a bid of ten: the defenders score 500, the takers nothing."""
    m = finish_hand(taking(NINE_IN_HEARTS, (10, "H"), kitty=NINE_IN_HEARTS_KITTY))
    assert m.last_hand["made"] is False
    assert m.scores == [0, 500]


def test_f5_13_slam_bonus_is_off_by_default() -> None:
    """F5-13 [option] slam_bonus, default false: ten tricks on 8S score 240."""
    m = finish_hand(taking({0: sure_hand("S")}, (8, "S")))
    assert m.scores == [240, 0]


def test_f5_13_slam_bonus_raises_a_small_contract_to_250() -> None:
    """F5-13 [option] slam_bonus: all ten tricks on a contract worth under 250 score 250."""
    m = finish_hand(taking({0: sure_hand("S")}, (8, "S"), options={"slam_bonus": True}))
    assert m.scores == [250, 0]


def test_f5_13_slam_bonus_needs_all_ten_tricks() -> None:
    """F5-13 [option] slam_bonus: nine tricks on 8S still score 240."""
    m = finish_hand(
        taking(NINE_IN_SPADES, (8, "S"), kitty=NINE_IN_SPADES_KITTY, options={"slam_bonus": True})
    )
    assert m.last_hand["tricks_taken"] == [9, 1]
    assert m.scores == [240, 0]


def test_f5_13_slam_bonus_leaves_contracts_worth_250_or_more() -> None:
    """F5-13 [option] slam_bonus: ten tricks on 8C still score 260."""
    m = finish_hand(taking({0: sure_hand("C")}, (8, "C"), options={"slam_bonus": True}))
    assert m.scores == [260, 0]


# ----- F5-14 the end of the match -----------------------------------------------------


def test_f5_14_a_team_reaching_1000_wins_at_once() -> None:
    """F5-14: 900 + 240 = 1140: the match is over, seats 0 and 2 win, nobody acts."""
    m = finish_hand(taking({0: sure_hand("S")}, (8, "S"), scores=(900, 990)))
    assert m.scores == [1140, 990]
    assert m.winners == [0, 2]
    assert m.to_act is None
    assert engine.view(m, 1)["winners"] == [0, 2]
    assert engine.legal_actions(m, 0) == []
    assert_illegal(m, 0, PASS, "F5-14")


def test_f5_14_defenders_setting_a_contract_can_reach_1000() -> None:
    """F5-14: 600 + 500 for setting 10H: seats 1 and 3 win."""
    m = finish_hand(taking(NINE_IN_HEARTS, (10, "H"), kitty=NINE_IN_HEARTS_KITTY, scores=(950, 600)))
    assert m.scores == [950, 1100]
    assert m.winners == [1, 3]


def test_f5_14_below_the_target_the_match_goes_on() -> None:
    """F5-14: 700 + 240 = 940 < 1000: a new hand is dealt."""
    m = finish_hand(taking({0: sure_hand("S")}, (8, "S"), scores=(700, 0)))
    assert m.winners is None
    assert m.hand_number == 2
    assert m.to_act is not None


def test_f5_14_target_score_option() -> None:
    """F5-14 [option] target_score: with 500, 300 + 240 ends the match."""
    m = finish_hand(taking({0: sure_hand("S")}, (8, "S"), options={"target_score": 500}, scores=(300, 0)))
    assert m.winners == [0, 2]
