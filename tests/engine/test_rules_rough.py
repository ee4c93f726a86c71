"""docs/rules.md RG-1..RG-16: Le Rough."""

from __future__ import annotations

import pytest
from scenarios import (
    KEEP,
    PASS,
    assert_illegal,
    deal,
    deck,
    discard,
    finish_hand,
    hand_of,
    legal_cards,
    packets,
    play,
    play_cards,
    points,
    run,
    shuffled,
    with_scores,
)

import engine

GAME = "rough"
RANKS = "AKQJT9875"
ACES = ["AS", "AC", "AD", "AH"]


def split_deal(high_suits: str) -> dict[str, object]:
    """Dealer 3. In ``high_suits`` seats 0 and 2 hold K J / Q T and seats 1 and 3 hold 9 7 / 8 5;
    in the other suits the reverse. The kitty is the four aces.

    Everybody holds two cards of every suit, so every trick is of one suit and goes to the
    K-J-Q-T side. With the aces discarded by seat 0, team 0+2 takes 40 + 15 per high suit
    (its ten, and the five it captures) and team 1+3 takes 15 per other suit.
    """
    hands: list[list[str]] = [[], [], [], []]
    for s in "SCDH":
        high, low = (0, 1) if s in high_suits else (1, 0)
        hands[high] += ["K" + s, "J" + s]
        hands[high + 2] += ["Q" + s, "T" + s]
        hands[low] += ["9" + s, "7" + s]
        hands[low + 2] += ["8" + s, "5" + s]
    return {"dealer": 3, "hands": hands, "kitty": list(ACES)}


def seat0_takes(
    high_suits: str, bid: int, scores: tuple[int, int] | None = None, options: dict[str, object] | None = None
) -> engine.Match:
    """Seat 0 bids ``bid``, everybody else passes, seat 0 discards the aces: at the first lead."""
    m = engine.new_match(GAME, seed=0, options=options, deal=split_deal(high_suits))
    if scores is not None:
        m = with_scores(m, scores)
    return run(m, points(bid), PASS, PASS, PASS, discard(*ACES))


def two_card_trick(led: str, second: str, no_trump: bool) -> int:
    """Seat 0 takes and leads ``led`` (declaring no trump or not), seat 1 follows with
    ``second``; seats 2 and 3 hold none of that suit. Returns the trick winner."""
    suit = led[1]
    others = [s for s in "SCDH" if s != suit]
    m = engine.new_match(
        GAME,
        seed=0,
        deal=deal(
            GAME,
            3,
            {
                0: [led],
                1: [second],
                2: [r + others[0] for r in RANKS[:8]],
                3: [r + others[1] for r in RANKS[:8]],
            },
        ),
    )
    m = run(m, points(70), PASS, PASS, PASS)
    m = run(m, discard(*sorted(hand_of(m, 0) - {led})[:4]))
    m = run(m, play(led, no_trump=no_trump), play(second))
    m = play_cards(m, f"{RANKS[0]}{others[0]} {RANKS[0]}{others[1]}")
    return int(engine.view(m, None)["tricks"][0]["winner"])


# ----- RG-1 the deck ---------------------------------------------------------------------


def test_rg1_the_deck_is_36_cards_without_six_and_jokers() -> None:
    """RG-1: A K Q J T 9 8 7 5 in each suit; no 2, 3, 4, 6, no jokers."""
    assert set(deck(GAME)) == {r + s for r in RANKS for s in "SCDH"}
    assert len(deck(GAME)) == 36


@pytest.mark.parametrize("stranger", ["6S", "4H", "BJ"])
def test_rg1_a_deal_with_a_card_outside_the_deck_is_refused(stranger: str) -> None:
    """RG-1: a six, a four or a joker is not a Le Rough card."""
    d = split_deal("SCDH")
    d["kitty"] = [stranger, "AC", "AD", "AH"]
    d["hands"][0] = [*d["hands"][0][:-1], "AS"]  # type: ignore[index]
    with pytest.raises(engine.IllegalAction) as refused:
        engine.new_match(GAME, seed=0, deal=d)
    assert refused.value.rule == "ALL-3"


# ----- RG-2 teams -------------------------------------------------------------------------


def test_rg2_seats_0_2_and_1_3_score_as_teams() -> None:
    """RG-2: the scores are per team [0+2, 1+3]; both seats of the winning team win."""
    assert engine.games()[GAME]["teams"] is True
    m = finish_hand(seat0_takes("SCD", 80))
    assert m.scores == [85, 15]
    m = finish_hand(seat0_takes("SCDH", 100))
    assert m.winners == [0, 2]


# ----- RG-3 ranks, no bowers ---------------------------------------------------------------

PAIRS = [(RANKS[i], RANKS[i + 1]) for i in range(len(RANKS) - 1)]


@pytest.mark.parametrize(("higher", "lower"), PAIRS)
@pytest.mark.parametrize("no_trump", [False, True])
def test_rg3_every_suit_ranks_a_k_q_j_t_9_8_7_5(higher: str, lower: str, no_trump: bool) -> None:
    """RG-3: the same order in trump (spades, set by the lead) and at no trump."""
    assert two_card_trick(lower + "S", higher + "S", no_trump) == 1
    assert two_card_trick(higher + "S", lower + "S", no_trump) == 0


def test_rg3_no_bowers_the_jack_of_the_same_colour_stays_in_its_suit() -> None:
    """RG-3: with spades trump, JC is a club: it must follow clubs and loses to the QC."""
    m = seat0_takes("SCD", 70)
    m = play_cards(m, "KS 9S QS 8S")  # spades trump, seat 0 wins
    m = play_cards(m, "KC")
    assert legal_cards(m) == {"9C", "7C"}
    m = play_cards(m, "9C QC 8C")
    assert m.to_act == 0
    m = play_cards(m, "JC 7C")
    assert legal_cards(m) == {"TC"}


# ----- RG-4 card points --------------------------------------------------------------------


def test_rg4_aces_and_tens_count_ten_fives_five_nothing_else() -> None:
    """RG-4: team 0+2 holds only its four discarded aces (40); team 1+3 wins every trick,
    so the four tens and four fives (60) but kings, queens and jacks count nothing."""
    m = finish_hand(seat0_takes("", 70))
    assert m.last_hand["card_points"] == [40, 60]


@pytest.mark.parametrize("seed", range(6))
def test_rg4_there_are_100_card_points_in_every_hand(seed: int) -> None:
    """RG-4: 100 in the deck, whoever takes them."""
    m = engine.new_match(GAME, seed=seed)
    m = run(m, points(70))
    m = finish_hand(m)
    assert sum(m.last_hand["card_points"]) == 100


# ----- RG-5 the deal -----------------------------------------------------------------------


def test_rg5_deal_is_4_each_4_kitty_4_each() -> None:
    """RG-5: from the top of the deck, starting left of the dealer."""
    m, order = shuffled(GAME, seed=2)
    hands, kitty = packets(order, m.dealer, 4, [("each", 4), ("kitty", 4), ("each", 4)])
    for seat in range(4):
        assert hand_of(m, seat) == set(hands[seat])
    m = run(m, PASS, PASS, PASS, PASS)
    assert m.last_hand["deal"]["kitty"] == kitty


# ----- RG-6 bidding ------------------------------------------------------------------------


def test_rg6_bids_are_70_to_100_by_fives() -> None:
    """RG-6: 70, 75, ... 100; anything else is refused."""
    m = engine.new_match(GAME, seed=0, deal=split_deal(""))
    offered = [a["points"] for a in engine.legal_actions(m, 0) if a["type"] == "bid"]
    assert offered == [70, 75, 80, 85, 90, 95, 100]
    for bad in (65, 72, 105, 0):
        assert_illegal(m, 0, points(bad), "RG-6")


def test_rg6_a_bid_must_be_higher_than_the_highest_so_far() -> None:
    """RG-6: one round, each bid higher than the current highest; passing is allowed."""
    m = engine.new_match(GAME, seed=0, deal=split_deal(""))
    m = run(m, points(80))
    assert_illegal(m, 1, points(80), "RG-6")
    assert_illegal(m, 1, points(75), "RG-6")
    assert [a["points"] for a in engine.legal_actions(m, 1) if a["type"] == "bid"] == [85, 90, 95, 100]
    m = run(m, PASS, points(85), KEEP)
    assert m.phase == "discard"
    assert engine.view(m, 0)["contract"] == {"taker": 3, "points": 85}


# ----- RG-7 the dealer speaks last and keeps ----------------------------------------------


def test_rg7_dealer_may_keep_but_not_raise() -> None:
    """RG-7: after a bid, the dealer may only pass or keep at the same value."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("")), PASS, points(75), PASS)
    assert m.to_act == 3
    assert engine.legal_actions(m, 3) == [PASS, KEEP]
    assert_illegal(m, 3, points(80), "RG-7")
    m = run(m, KEEP)
    assert engine.view(m, 1)["contract"] == {"taker": 3, "points": 75}
    assert m.to_act == 3 and m.phase == "discard"


def test_rg7_dealer_may_keep_even_over_his_partner() -> None:
    """RG-7: seat 1 (the dealer's partner) bid 90; the dealer keeps and takes it at 90."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("")), points(70), points(90), PASS)
    assert KEEP in engine.legal_actions(m, 3)
    m = run(m, KEEP)
    assert engine.view(m, 0)["contract"] == {"taker": 3, "points": 90}


def test_rg7_only_the_dealer_keeps() -> None:
    """RG-7: keeping is the dealer's privilege."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("")), points(70))
    assert KEEP not in engine.legal_actions(m, 1)
    assert_illegal(m, 1, KEEP, "RG-7")


def test_rg7_dealer_cannot_keep_when_nobody_bid() -> None:
    """RG-7: with three passes there is nothing to keep."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("")), PASS, PASS, PASS)
    assert_illegal(m, 3, KEEP, "RG-7")


def test_rg7_dealer_may_open_when_the_others_passed_by_default() -> None:
    """RG-7 [option] dealer_may_open, default true: the dealer bids any legal value."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("")), PASS, PASS, PASS)
    offered = engine.legal_actions(m, 3)
    assert PASS in offered and points(70) in offered and points(100) in offered
    m = run(m, points(85))
    assert engine.view(m, 0)["contract"] == {"taker": 3, "points": 85}


def test_rg7_with_dealer_may_open_false_the_hand_is_void() -> None:
    """RG-7 [option] dealer_may_open false: the dealer may only pass after three passes."""
    m = engine.new_match(GAME, seed=0, options={"dealer_may_open": False}, deal=split_deal(""))
    m = run(m, PASS, PASS, PASS)
    assert engine.legal_actions(m, 3) == [PASS]
    assert_illegal(m, 3, points(70), "RG-7")
    m = run(m, PASS)
    assert m.last_hand["void"] is True
    assert m.dealer == 0


def test_rg7_dealer_may_open_false_still_lets_the_dealer_keep() -> None:
    """RG-7 [option] dealer_may_open false changes only the all-passed case."""
    m = engine.new_match(GAME, seed=0, options={"dealer_may_open": False}, deal=split_deal(""))
    m = run(m, PASS, points(70), PASS, KEEP)
    assert engine.view(m, 0)["contract"]["taker"] == 3


# ----- RG-8 void hands ---------------------------------------------------------------------


def test_rg8_nobody_takes_the_hand_is_void_and_the_deal_passes_left() -> None:
    """RG-8: four passes: no score, hand 2 dealt by the seat left of the dealer."""
    m = with_scores(engine.new_match(GAME, seed=0, deal=split_deal("")), (120, -30))
    m = run(m, PASS, PASS, PASS, PASS)
    assert m.last_hand["void"] is True
    assert m.scores == [120, -30]
    assert (m.hand_number, m.dealer, m.to_act, m.phase) == (2, 0, 1, "bidding")


# ----- RG-9 the game bid and the box -------------------------------------------------------


def test_rg9_a_team_in_the_box_may_not_bid_100() -> None:
    """RG-9: seat 0's team is below zero: 95 is its highest bid; seat 1's team may bid 100."""
    m = with_scores(engine.new_match(GAME, seed=0, deal=split_deal("")), (-5, 40))
    offered = [a["points"] for a in engine.legal_actions(m, 0) if a["type"] == "bid"]
    assert offered[-1] == 95
    assert_illegal(m, 0, points(100), "RG-9")
    m = run(m, PASS)
    assert points(100) in engine.legal_actions(m, 1)
    m = run(m, points(100), PASS, PASS)
    assert engine.view(m, 0)["contract"] == {"taker": 1, "points": 100}


def test_rg9_zero_is_not_in_the_box() -> None:
    """RG-9: only a score below zero is in the box."""
    m = with_scores(engine.new_match(GAME, seed=0, deal=split_deal("")), (0, -10))
    assert points(100) in engine.legal_actions(m, 0)


def test_rg9_a_dealer_in_the_box_may_not_keep_a_bid_of_100() -> None:
    """RG-9: the dealer (team 1+3, below zero) may not keep 100, but may keep 95."""
    m = with_scores(engine.new_match(GAME, seed=0, deal=split_deal("")), (50, -20))
    at_100 = run(m, points(100), PASS, PASS)
    assert engine.legal_actions(at_100, 3) == [PASS]
    assert_illegal(at_100, 3, KEEP, "RG-9")
    at_95 = run(m, points(95), PASS, PASS)
    assert KEEP in engine.legal_actions(at_95, 3)


def test_rg9_a_dealer_out_of_the_box_may_keep_100() -> None:
    """RG-9: not in the box, the dealer may keep a bid of 100 and puts the game at stake."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("")), points(100), PASS, PASS, KEEP)
    assert engine.view(m, 0)["contract"] == {"taker": 3, "points": 100}


# ----- RG-10 the kitty and the discards ----------------------------------------------------


def test_rg10_the_taker_picks_up_the_kitty_and_discards_four() -> None:
    """RG-10: twelve cards after the pickup, four put down; other counts are refused."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("SC")), points(70), PASS, PASS, PASS)
    assert len(hand_of(m, 0)) == 12 and set(ACES) <= hand_of(m, 0)
    assert engine.legal_actions(m, 0)[0]["count"] == 4
    assert_illegal(m, 0, discard("AS", "AC", "AD"), "RG-10")
    assert_illegal(m, 0, discard("AS", "AC", "AD", "AH", "KS"), "RG-10")
    assert_illegal(m, 0, discard("AS", "AC", "AD", "QS"), "RG-10")  # QS is seat 2's


def test_rg10_the_discards_count_for_the_takers_team() -> None:
    """RG-10: 45 points in tricks + 40 in the discarded aces = 85: a bid of 80 is made."""
    m = finish_hand(seat0_takes("SCD", 80))
    assert m.last_hand["card_points"] == [85, 15]
    assert m.last_hand["made"] is True


def test_rg10_discards_count_for_the_taker_of_team_1_3() -> None:
    """RG-10: the dealer (seat 3) keeps and discards four tens: they are his team's."""
    d = deal(GAME, 3, {}, kitty=["TS", "TC", "TD", "TH"])
    m = run(engine.new_match(GAME, seed=0, deal=d), points(70), PASS, PASS, KEEP)
    m = run(m, discard("TS", "TC", "TD", "TH"))
    m = finish_hand(m)
    won_by_0 = sum(
        {"A": 10, "T": 10, "5": 5}.get(c[0], 0)
        for t in m.last_hand["deal"]["tricks"]
        if t["winner"] % 2 == 0
        for c in t["cards"]
    )
    assert m.last_hand["card_points"] == [won_by_0, 100 - won_by_0]
    assert m.last_hand["card_points"][1] >= 40


# ----- RG-11 trump by the first lead -------------------------------------------------------


def test_rg11_the_taker_leads_and_the_first_card_fixes_trump() -> None:
    """RG-11: the taker (not left of the dealer) leads; the suit he leads is trump."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("SCD")), PASS, points(70), PASS, PASS)
    m = run(m, discard(*sorted(hand_of(m, 1) - {"KH", "JH", "9S", "7S"})[:4]))
    assert m.to_act == 1
    assert engine.view(m, 0)["trump"] is None
    m = play_cards(m, "KH")
    assert engine.view(m, 0)["trump"] == "H"


def seat0_leads_spades() -> engine.Match:
    """Seat 0 takes at 70 and is to lead; seat 1 holds the spade ace, seat 0 no diamond."""
    m = engine.new_match(
        GAME,
        seed=0,
        deal={
            "dealer": 3,
            "hands": [
                ["9S", "8S", "KC", "QC", "JC", "TC", "9C", "8C"],
                ["AS", "KS", "QS", "AD", "KD", "QD", "JD", "TD"],
                ["JS", "TS", "7S", "5S", "9D", "8D", "7D", "5D"],
                ["AC", "7C", "5C", "AH", "KH", "QH", "JH", "TH"],
            ],
            "kitty": ["9H", "8H", "7H", "5H"],
        },
    )
    return run(m, points(70), PASS, PASS, PASS, discard("9H", "8H", "7H", "5H"))


def test_rg11_a_trump_fixed_by_the_lead_beats_an_ace_led_later() -> None:
    """RG-11 with ALL-4: leading 9S makes spades trump for the whole hand."""
    m = seat0_leads_spades()
    m = play_cards(m, "9S AS 5S AH")  # seat 1 wins with the trump ace
    m = play_cards(m, "AD")
    assert_illegal(m, 2, play("7S"), "ALL-4")  # seat 2 must follow diamonds
    m = play_cards(m, "5D AC 8S")  # seat 0 has no diamond and trumps
    assert engine.view(m, None)["tricks"][1]["winner"] == 0


def test_rg11_no_trump_is_declared_with_the_first_lead() -> None:
    """RG-11: the taker's first card may carry no_trump: the hand is played without trump."""
    m = seat0_takes("SCD", 70)
    offered = engine.legal_actions(m, 0)
    assert play("KS", no_trump=True) in offered and play("KS") in offered
    m = run(m, play("KS", no_trump=True))
    assert engine.view(m, 2)["trump"] == "NT"


def test_rg11_no_trump_only_on_the_first_lead() -> None:
    """RG-11: the flag is refused on any later card, by the taker or anybody else."""
    m = play_cards(seat0_takes("SCD", 70), "KS")
    assert all("no_trump" not in a for a in engine.legal_actions(m, 1))
    assert_illegal(m, 1, play("9S", no_trump=True), "RG-11")
    m = play_cards(m, "9S QS 8S")
    assert m.to_act == 0
    assert_illegal(m, 0, play("KC", no_trump=True), "RG-11")


def test_rg11_at_no_trump_the_led_suit_wins() -> None:
    """RG-11: declaring no trump, a spade led is not trump: off-suit cards never win."""
    m = seat0_leads_spades()
    m = run(m, play("9S", no_trump=True))
    m = play_cards(m, "AS 5S AH AD 5D AC 8S")
    assert engine.view(m, None)["tricks"][1]["winner"] == 1  # the 8S is no trump


# ----- RG-12 counting ----------------------------------------------------------------------


def test_rg12_teams_count_card_points_in_tricks_plus_discards_no_last_trick_bonus() -> None:
    """RG-12: 100 points in all, whoever wins the last trick."""
    for high in ("", "S", "SC", "SCD", "SCDH"):
        m = finish_hand(seat0_takes(high, 70))
        assert m.last_hand["card_points"] == [40 + 15 * len(high), 60 - 15 * len(high)]


# ----- RG-13 scoring -----------------------------------------------------------------------


def test_rg13_a_made_contract_scores_the_points_taken() -> None:
    """RG-13: bid 80, took 85: +85 (not +80); the other team scores its 15."""
    m = finish_hand(seat0_takes("SCD", 80, scores=(10, 20)))
    assert m.last_hand["points"] == [85, 15]
    assert m.scores == [95, 35]


def test_rg13_a_failed_contract_scores_minus_the_bid() -> None:
    """RG-13: bid 90, took 85: -90; the other team still scores its 15."""
    m = finish_hand(seat0_takes("SCD", 90))
    assert m.last_hand["made"] is False
    assert m.scores == [-90, 15]


def test_rg13_exactly_the_bid_is_made() -> None:
    """RG-13: bid 85, took 85: made."""
    m = finish_hand(seat0_takes("SCD", 85))
    assert m.scores == [85, 15]


# ----- RG-14 the contract of 100 -----------------------------------------------------------


def test_rg14_a_made_100_wins_the_match_at_once() -> None:
    """RG-14: seats 0+2 take all 100 on a bid of 100: they win, whatever the scores."""
    m = finish_hand(seat0_takes("SCDH", 100, scores=(0, 340)))
    assert m.winners == [0, 2]
    assert m.to_act is None
    assert engine.legal_actions(m, 1) == []


def test_rg14_a_failed_100_gives_the_match_to_the_other_team() -> None:
    """RG-14: 85 on a bid of 100: seats 1+3 win at once, even far behind."""
    m = finish_hand(seat0_takes("SCD", 100, scores=(300, -200)))
    assert m.winners == [1, 3]
    assert m.to_act is None


def test_rg14_a_kept_100_puts_the_dealers_team_at_stake() -> None:
    """RG-14: the dealer keeps 100 and fails: seats 0+2 win."""
    m = run(engine.new_match(GAME, seed=0, deal=split_deal("SCDH")), points(100), PASS, PASS, KEEP)
    m = run(m, discard(*sorted(hand_of(m, 3))[:4]))
    m = finish_hand(m)
    assert m.last_hand["made"] is False
    assert m.winners == [0, 2]


# ----- RG-15 the end of the match ----------------------------------------------------------


def test_rg15_a_team_reaching_350_wins() -> None:
    """RG-15: 270 + 85 = 355."""
    m = finish_hand(seat0_takes("SCD", 80, scores=(270, 0)))
    assert m.winners == [0, 2]
    assert m.to_act is None


def test_rg15_the_defenders_can_reach_350() -> None:
    """RG-15: the other team always scores its points, and may win with them."""
    m = finish_hand(seat0_takes("SCD", 90, scores=(0, 340)))
    assert m.scores == [-90, 355]
    assert m.winners == [1, 3]


def test_rg15_below_350_the_match_goes_on() -> None:
    """RG-15: 260 + 85 = 345: a new hand."""
    m = finish_hand(seat0_takes("SCD", 80, scores=(260, 330)))
    assert m.scores == [345, 345]
    assert m.winners is None
    assert m.hand_number == 2


def test_rg15_both_teams_over_the_taking_team_wins() -> None:
    """RG-15: 270 + 85 = 355 and 345 + 15 = 360: the taking team wins though behind."""
    m = finish_hand(seat0_takes("SCD", 80, scores=(270, 345)))
    assert m.scores == [355, 360]
    assert m.winners == [0, 2]


def test_rg15_target_score_option() -> None:
    """RG-15 [option] target_score: at 200, 120 + 85 wins."""
    m = finish_hand(seat0_takes("SCD", 80, scores=(120, 0), options={"target_score": 200}))
    assert m.winners == [0, 2]


def test_rg16_a_team_at_minus_the_target_loses() -> None:
    """RG-16 [decision]: -270 - 90 = -360 <= -350, so the other team wins and every
    match ends."""
    m = finish_hand(seat0_takes("SCD", 90, scores=(-270, 0)))
    assert m.scores == [-360, 15]
    assert m.winners == [1, 3]
    assert m.to_act is None


def test_rg16_floor_loses_option_off_plays_on() -> None:
    """RG-16 [option] floor_loses=false: the traditional rules, no lower bound."""
    m = finish_hand(seat0_takes("SCD", 90, scores=(-270, 0), options={"floor_loses": False}))
    assert m.scores == [-360, 15]
    assert m.winners is None
    assert m.hand_number == 2
