"""docs/rules.md E5-1..E5-12: five-handed euchre with a called partner."""

from __future__ import annotations

import pytest
from scenarios import (
    GO_ALONE,
    ORDER_UP,
    PASS,
    assert_illegal,
    call,
    card_codes,
    deal,
    deck,
    exchange,
    finish_hand,
    hand_of,
    name,
    new,
    packets,
    play,
    play_cards,
    run,
    shuffled,
    with_scores,
)

import engine

GAME = "euchre5"
ALL_PASS = (PASS,) * 5


def named(hands: list[list[str]], kitty: list[str], trump: str, *calling: dict[str, object]) -> engine.Match:
    """Dealer 0; all five pass the upcard, seat 1 names ``trump`` and calls (or goes alone)."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": hands, "kitty": kitty})
    return run(m, *ALL_PASS, name(trump), *calling)


SURE = [
    ["8S", "9C", "8C", "8D", "TH"],
    ["JH", "JD", "AH", "KH", "QH"],
    ["AS", "KS", "QS", "JS", "TS"],
    ["AC", "KC", "QC", "JC", "TC"],
    ["AD", "KD", "QD", "TD", "9D"],
]
"""Seat 1 holds the five top hearts: with hearts trump he wins every trick."""
SURE_KITTY = ["9S", "9H", "8H"]
SURE_UP = [["8S", "9C", "8C", "8D", "9H"], *SURE[1:]]
"""The same, with the TH turned up instead (round 1 can order hearts)."""
UP_KITTY = ["TH", "9S", "8H"]

THREE = [
    ["TS", "TC", "AC", "AD", "KD"],
    ["JH", "JD", "AH", "8S", "8C"],
    ["KH", "QD", "TD", "9D", "8D"],
    ["QH", "TH", "KS", "QS", "JS"],
    ["AS", "9C", "KC", "QC", "JC"],
]
THREE_PLAY = "JH KH QH KC KD  JD 8D TH QC TC  AH 9D JS JC AD  8S TD QS AS TS  9C AC 8C QD KS"
"""Hearts trump, seat 1 leads: seat 1 wins tricks 1-3, seat 4 the fourth, seat 0 the last."""

TWO = [
    ["JS", "TS", "JC", "TC", "9C"],
    ["JH", "JD", "8S", "8C", "8D"],
    ["QH", "TH", "AS", "KS", "QS"],
    ["AH", "KH", "AC", "KC", "QC"],
    ["AD", "KD", "QD", "TD", "9D"],
]
TWO_PLAY = "JH QH KH AD JS  JD TH AH KD TS  8S AS AC QD JC  KS KC TD TC 8C  QS QC 9D 9C 8D"
"""Hearts trump, seat 1 leads: seat 1 wins the first two tricks, seat 2 the last three."""

NONE = [
    ["AD", "KD", "QD", "TD", "TH"],
    ["8S", "8C", "8D", "9D", "9C"],
    ["JH", "JD", "AH", "KH", "QH"],
    ["AS", "KS", "QS", "JS", "TS"],
    ["AC", "KC", "QC", "JC", "TC"],
]
"""Seat 1 holds the lowest card of three suits and no trump: he cannot win a trick."""


def tricks_by_seat(m: engine.Match) -> list[int]:
    won = [0] * 5
    for t in m.last_hand["deal"]["tricks"]:
        won[t["winner"]] += 1
    return won


# ----- E5-1 the deck ---------------------------------------------------------------------


def test_e5_1_the_deck_is_28_cards_ace_to_eight() -> None:
    """E5-1: A K Q J T 9 8 in each suit."""
    assert set(deck(GAME)) == {r + s for r in "AKQJT98" for s in "SCDH"}
    assert len(deck(GAME)) == 28


def test_e5_1_a_card_outside_the_deck_is_refused() -> None:
    """E5-1: a seven is not a euchre card: not in a deal, not as a called card."""
    d = deal(GAME, 0, {})
    d["kitty"] = ["7H", *d["kitty"][1:]]
    with pytest.raises(engine.IllegalAction):
        engine.new_match(GAME, seed=0, deal=d)
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY})
    m = run(m, *ALL_PASS, name("H"))
    assert_illegal(m, 1, call("7H"), "E5-1")


# ----- E5-2 five players for themselves --------------------------------------------------


def test_e5_2_five_players_each_with_a_score() -> None:
    """E5-2: five seats, no fixed teams, one score per seat."""
    info = engine.games()[GAME]
    assert info["players"] == 5 and info["teams"] is False
    m = finish_hand(named(NONE, SURE_KITTY, "H", GO_ALONE))
    assert m.scores == [4, 0, 4, 4, 4]


# ----- E5-3 the deal ---------------------------------------------------------------------


def test_e5_3_deal_is_2_each_3_each_then_the_upcard() -> None:
    """E5-3: from the top, left of the dealer first; of the three left the top one is turned up."""
    m, order = shuffled(GAME, seed=3)
    hands, kitty = packets(order, m.dealer, 5, [("each", 2), ("each", 3), ("kitty", 3)])
    for seat in range(5):
        assert hand_of(m, seat) == set(hands[seat])
    for seat in (*range(5), None):
        v = engine.view(m, seat)
        assert v["upcard"] == kitty[0]
        assert not card_codes(v) & set(kitty[1:])
    m = finish_hand(m)
    assert m.last_hand["deal"]["kitty"] == kitty


# ----- E5-4 ranks ------------------------------------------------------------------------

TRUMP_ORDER = ["JH", "JD", "AH", "KH", "QH", "TH", "9H", "8H"]
PLAIN_ORDER = ["AC", "KC", "QC", "JC", "TC", "9C", "8C"]


def _euchre_trick(led: str, second: str) -> int:
    """Hearts trump; seat 1 leads ``led`` and seat 2 plays ``second``; seats 3, 4 and 0 hold
    none of the led suit and play no trump. Returns the trick winner."""
    suit = "H" if led in TRUMP_ORDER else "C"
    order = TRUMP_ORDER if suit == "H" else PLAIN_ORDER
    rest = [c for c in order if c not in (led, second)]
    if suit == "H":
        third = ["AC", "KC", "QC", "JC", "TC"]
        rest += ["9C", "8C", "8D"]
        kitty = ["9S", "8S", rest.pop()]
    else:
        third = ["9S", "8S", "8D", "9H", "8H"]
        rest += ["JH", "JD", "AH", "KH", "QH", "TH"]
        kitty = [rest.pop(0), rest.pop(), rest.pop()]
    hands = [
        third,
        [led, *rest[:4]],
        [second, *rest[4:8]],
        ["AS", "KS", "QS", "JS", "TS"],
        ["AD", "KD", "QD", "TD", "9D"],
    ]
    m = named(hands, kitty, "H", GO_ALONE)
    m = play_cards(m, f"{led} {second} AS AD {third[0]}")
    return int(engine.view(m, None)["tricks"][0]["winner"])


@pytest.mark.parametrize("i", range(len(TRUMP_ORDER) - 1))
def test_e5_4_trump_order_right_bower_jick_then_ace_down(i: int) -> None:
    """E5-4: JH > JD (the jick) > AH > KH > QH > TH > 9H > 8H with hearts trump."""
    higher, lower = TRUMP_ORDER[i], TRUMP_ORDER[i + 1]
    assert _euchre_trick(lower, higher) == 2
    assert _euchre_trick(higher, lower) == 1


@pytest.mark.parametrize("i", range(len(PLAIN_ORDER) - 1))
def test_e5_4_plain_suits_rank_a_k_q_j_t_9_8(i: int) -> None:
    """E5-4: clubs (not of trump's colour) keep their jack between queen and ten."""
    higher, lower = PLAIN_ORDER[i], PLAIN_ORDER[i + 1]
    assert _euchre_trick(lower, higher) == 2
    assert _euchre_trick(higher, lower) == 1


def test_e5_4_every_trump_beats_every_other_card() -> None:
    """E5-4: the 8H played on an ace led wins the trick."""
    m = named(NONE, SURE_KITTY, "H", GO_ALONE)
    m = play_cards(m, "8S")
    m = play_cards(m, "JD")  # seat 2, void in spades, trumps with the jick
    m = play_cards(m, "AS AC AD")
    assert engine.view(m, None)["tricks"][0]["winner"] == 2


# ----- E5-5 round 1 and the dealer's exchange -------------------------------------------


def test_e5_5_round_1_accepts_the_upcards_suit_in_turn() -> None:
    """E5-5: from left of the dealer, each may order the upcard's suit up or pass."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE_UP, "kitty": UP_KITTY})
    order = []
    for _ in range(3):
        order.append(m.to_act)
        assert engine.legal_actions(m, m.to_act) == [PASS, ORDER_UP]
        m = run(m, PASS)
    assert order == [1, 2, 3]
    m = run(m, ORDER_UP)
    assert engine.view(m, 0)["contract"]["trump"] == "H"
    assert engine.view(m, 0)["contract"]["maker"] == 4
    assert m.to_act == 0  # the dealer decides on the exchange


def test_e5_5_the_dealer_may_exchange_a_card_for_the_upcard_face_down() -> None:
    """E5-5: the dealer takes the upcard; his discard is hidden from the others."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE_UP, "kitty": UP_KITTY})
    m = run(m, ORDER_UP)
    offered = engine.legal_actions(m, 0)
    assert PASS in offered and exchange("8C") in offered and len(offered) == 6
    assert_illegal(m, 0, exchange("AS"), "E5-5")
    assert_illegal(m, 0, exchange("TH"), "E5-5")
    m = run(m, exchange("8C"))
    assert hand_of(m, 0) == {"8S", "9C", "8D", "9H", "TH"}
    assert engine.view(m, 0)["my_discards"] == ["8C"]
    for seat in (1, 2, 3, 4, None):
        assert "8C" not in card_codes(engine.view(m, seat))


def test_e5_5_the_dealer_may_decline_the_exchange() -> None:
    """E5-5: passing keeps the dealer's hand; the upcard stays out of play."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE_UP, "kitty": UP_KITTY})
    m = run(m, ORDER_UP, PASS)
    assert hand_of(m, 0) == set(SURE_UP[0])
    assert m.to_act == 1  # the maker calls


# ----- E5-6 the turned-down suit and stick the dealer ------------------------------------


def test_e5_6_all_pass_turns_the_upcard_down_and_its_suit_may_not_be_trump() -> None:
    """E5-6: after five passes, the upcard's suit is out for this hand."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY})
    m = run(m, *ALL_PASS)
    assert m.to_act == 1
    assert engine.view(m, 2)["upcard"] is None
    assert engine.view(m, 2)["turned_down"] == "9S"
    assert engine.legal_actions(m, 1) == [PASS, name("C"), name("D"), name("H")]
    assert_illegal(m, 1, name("S"), "E5-6")
    assert_illegal(m, 1, ORDER_UP, "E5-6")


def test_e5_6_round_2_goes_round_from_left_of_the_dealer() -> None:
    """E5-6: each in turn may name a suit or pass."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY})
    m = run(m, *ALL_PASS, PASS, PASS)
    assert m.to_act == 3
    m = run(m, name("D"))
    assert engine.view(m, 0)["contract"]["maker"] == 3
    assert engine.view(m, 0)["trump"] == "D"


def test_e5_6_stick_the_dealer() -> None:
    """E5-6: the four others passed again: the dealer must name a suit."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY})
    m = run(m, *ALL_PASS, PASS, PASS, PASS, PASS)
    assert m.to_act == 0
    assert engine.legal_actions(m, 0) == [name("C"), name("D"), name("H")]
    assert_illegal(m, 0, PASS, "E5-6")
    assert_illegal(m, 0, name("S"), "E5-6")
    m = run(m, name("C"))
    assert engine.view(m, 1)["contract"]["maker"] == 0


# ----- E5-7 the call --------------------------------------------------------------------


def test_e5_7_the_maker_calls_a_card_not_in_his_hand_or_goes_alone() -> None:
    """E5-7: every card but his own five can be called; or he plays alone."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY})
    m = run(m, *ALL_PASS, name("H"))
    offered = engine.legal_actions(m, 1)
    assert GO_ALONE in offered
    called = {a["card"] for a in offered if a["type"] == "call_partner"}
    assert called == set(deck(GAME)) - set(SURE[1])


def test_e5_7_calling_a_card_in_ones_own_hand_is_an_error() -> None:
    """E5-7: naming a card one holds is refused, the match unchanged."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY})
    m = run(m, *ALL_PASS, name("H"))
    assert_illegal(m, 1, call("JH"), "E5-7")
    assert_illegal(m, 1, PASS, "E5-7")


# ----- E5-8 the secret partner ----------------------------------------------------------


def test_e5_8_the_called_card_is_public_its_holder_is_not() -> None:
    """E5-8: everybody sees the called card; only its holder knows he is the partner."""
    m = named(SURE, SURE_KITTY, "H", call("AS"))
    for seat in (*range(5), None):
        contract = engine.view(m, seat)["contract"]
        assert contract["called_card"] == "AS"
        assert contract["partner"] == (2 if seat == 2 else None)


def test_e5_8_the_partnership_becomes_public_when_the_card_is_played() -> None:
    """E5-8: seat 2 plays the AS: from then on every view names the partner."""
    m = named(SURE, SURE_KITTY, "H", call("AS"))
    m = play_cards(m, "JH")
    assert engine.view(m, 1)["contract"]["partner"] is None
    m = play_cards(m, "AS")
    for seat in (*range(5), None):
        assert engine.view(m, seat)["contract"]["partner"] == 2


def test_e5_8_an_undealt_called_card_leaves_the_maker_alone_unknowingly() -> None:
    """E5-8: 9H is in the kitty: nobody is the partner, no view tells the maker, and the
    end-of-hand record makes it public."""
    m = named(SURE, SURE_KITTY, "H", call("9H"))
    buried_view = engine.view(m, 1)["contract"]
    m_real = named(SURE, SURE_KITTY, "H", call("AS"))
    assert buried_view == engine.view(m_real, 1)["contract"] | {"called_card": "9H"}
    for seat in (*range(5), None):
        assert engine.view(m, seat)["contract"]["partner"] is None
    m = finish_hand(m)
    assert m.last_hand["partner"] is None
    assert m.last_hand["attackers"] == [1]
    assert "9H" in m.last_hand["deal"]["kitty"]


def test_e5_8_the_dealers_exchange_discard_called_is_buried() -> None:
    """E5-8: the dealer discarded 8C for the upcard; the maker calls 8C and plays alone."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE_UP, "kitty": UP_KITTY})
    m = run(m, ORDER_UP, exchange("8C"), call("8C"))
    for seat in (1, 2, 3, 4, None):
        assert engine.view(m, seat)["contract"]["partner"] is None
    m = finish_hand(m)
    assert m.last_hand["partner"] is None
    assert m.last_hand["attackers"] == [1]
    assert m.last_hand["deal"]["discards"] == ["8C"]
    assert m.scores == [0, 2, 0, 0, 0]


# ----- E5-9 the first lead --------------------------------------------------------------


def test_e5_9_left_of_the_dealer_leads_not_the_maker() -> None:
    """E5-9: seat 3 makes trump; seat 1, left of the dealer, leads."""
    m = engine.new_match(GAME, seed=0, deal={"dealer": 0, "hands": SURE_UP, "kitty": UP_KITTY})
    m = run(m, PASS, PASS, ORDER_UP, PASS, GO_ALONE)
    assert engine.view(m, 0)["contract"]["maker"] == 3
    assert m.phase == "play" and m.to_act == 1
    assert_illegal(m, 3, play("AC"), "ALL-1")


# ----- E5-10 scoring --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("called", "expected"),
    [
        ("KH", [0, 1, 1, 0, 0]),  # seats 1+2 take 3 tricks
        ("AS", [0, 1, 0, 0, 1]),  # seats 1+4 take 4 tricks
        ("AD", [1, 1, 0, 0, 0]),  # seats 1+0 take 4 tricks
    ],
)
def test_e5_10_attackers_with_3_or_4_tricks_score_1_each(called: str, expected: list[int]) -> None:
    """E5-10: each attacker scores 1, whoever of them won the tricks; defenders nothing."""
    m = named(THREE, SURE_KITTY, "H", call(called))
    m = play_cards(m, THREE_PLAY)
    assert tricks_by_seat(m) == [1, 3, 0, 0, 1]
    assert m.scores == expected


def test_e5_10_attackers_with_all_5_score_2_each() -> None:
    """E5-10: the maker takes every trick; his partner (AS, seat 2) scores 2 too."""
    m = finish_hand(named(SURE, SURE_KITTY, "H", call("AS")))
    assert tricks_by_seat(m) == [0, 5, 0, 0, 0]
    assert m.scores == [0, 2, 2, 0, 0]


def test_e5_10_all_five_between_maker_and_partner_score_2_each() -> None:
    """E5-10: seat 2 (holding the called AS) wins three, the maker two: 5 for the attackers."""
    m = play_cards(named(TWO, SURE_KITTY, "H", call("AS")), TWO_PLAY)
    assert tricks_by_seat(m) == [0, 2, 3, 0, 0]
    assert m.scores == [0, 2, 2, 0, 0]


def test_e5_10_defenders_with_3_or_more_score_2_each() -> None:
    """E5-10: the maker and his partner (AC, seat 3) take only 2: the three others score 2."""
    m = play_cards(named(TWO, SURE_KITTY, "H", call("AC")), TWO_PLAY)
    assert m.last_hand["attackers"] == [1, 3]
    assert m.scores == [2, 0, 2, 0, 2]


def test_e5_10_defenders_with_all_5_score_4_each() -> None:
    """E5-10: the maker alone takes nothing: each of the four defenders scores 4."""
    m = finish_hand(named(NONE, SURE_KITTY, "H", GO_ALONE))
    assert tricks_by_seat(m)[1] == 0
    assert m.scores == [4, 0, 4, 4, 4]


# ----- E5-11 playing alone --------------------------------------------------------------


def test_e5_11_a_lone_maker_with_3_tricks_scores_1() -> None:
    """E5-11: alone by choice, he scores as an attacker."""
    m = play_cards(named(THREE, SURE_KITTY, "H", GO_ALONE), THREE_PLAY)
    assert m.scores == [0, 1, 0, 0, 0]


def test_e5_11_a_lone_march_scores_lone_march_points_default_2() -> None:
    """E5-11 [option] lone_march_points, default 2."""
    m = finish_hand(named(SURE, SURE_KITTY, "H", GO_ALONE))
    assert m.scores == [0, 2, 0, 0, 0]


def test_e5_11_lone_march_points_option() -> None:
    """E5-11 [option]: with 4, a maker who chose to go alone and took all five scores 4."""
    m = engine.new_match(
        GAME, seed=0, options={"lone_march_points": 4}, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY}
    )
    m = finish_hand(run(m, *ALL_PASS, name("H"), GO_ALONE))
    assert m.last_hand["alone"] is True
    assert m.scores == [0, 4, 0, 0, 0]


def test_e5_11_a_buried_card_is_not_a_lone_march() -> None:
    """E5-11: alone because the called card was buried, five tricks score 2, not the bonus."""
    m = engine.new_match(
        GAME, seed=0, options={"lone_march_points": 4}, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY}
    )
    m = finish_hand(run(m, *ALL_PASS, name("H"), call("8H")))
    assert m.scores == [0, 2, 0, 0, 0]


def test_e5_11_a_buried_card_maker_is_set_like_any_attacker() -> None:
    """E5-11: the buried-card maker taking 0 tricks: the four others score 4."""
    m = finish_hand(named(NONE, SURE_KITTY, "H", call("9H")))
    assert m.scores == [4, 0, 4, 4, 4]


# ----- E5-12 the end of the match -------------------------------------------------------


def _scored(scores: list[int], called: str = "AS", options: dict[str, object] | None = None) -> engine.Match:
    m = engine.new_match(
        GAME, seed=0, options=options, deal={"dealer": 0, "hands": SURE, "kitty": SURE_KITTY}
    )
    m = with_scores(m, scores)
    return finish_hand(run(m, *ALL_PASS, name("H"), call(called)))


def test_e5_12_a_player_reaching_10_ends_the_match_and_the_highest_wins() -> None:
    """E5-12: 8 + 2 = 10 for seat 1, 9 + 2 = 11 for seat 2: seat 2 alone wins."""
    m = _scored([9, 8, 9, 0, 0])
    assert m.scores == [9, 10, 11, 0, 0]
    assert m.winners == [2]
    assert m.to_act is None
    assert engine.view(m, 4)["winners"] == [2]


def test_e5_12_players_tied_on_the_highest_score_share_the_win() -> None:
    """E5-12: seats 1 and 2 both reach 10: both win."""
    m = _scored([0, 8, 8, 0, 0])
    assert m.winners == [1, 2]


def test_e5_12_the_highest_score_wins_even_if_it_did_not_just_score() -> None:
    """E5-12: the match ends when one reaches 10; the winner is the highest score, whoever."""
    m = _scored([0, 8, 0, 0, 0], called="9H")
    assert m.scores == [0, 10, 0, 0, 0]
    assert m.winners == [1]


def test_e5_12_below_10_the_match_goes_on() -> None:
    """E5-12: 7 + 2 = 9: a new hand, dealt by seat 1."""
    m = _scored([0, 7, 0, 0, 0])
    assert m.winners is None
    assert (m.hand_number, m.dealer) == (2, 1)


def test_e5_12_target_score_option() -> None:
    """E5-12 [option] target_score: at 5, 3 + 2 ends the match."""
    m = _scored([0, 3, 0, 0, 0], options={"target_score": 5})
    assert m.scores == [0, 5, 2, 0, 0]
    assert m.winners == [1]


def test_e5_8_the_events_do_not_tell_a_buried_card_from_a_held_one() -> None:
    """E5-8: whether the called card was dealt or is buried stays hidden from everyone but its
    holder, down to the number and kinds of the events a seat is not shown (a streaming client
    sees event ids, so a missing private event would leave a telling gap)."""
    maker = ["JH", "JD", "AS", "KS", "QS"]
    held = new(GAME, 4, {0: maker, 2: ["AD", "8C", "9C", "TC", "JC"]}, kitty=["AH", "KH", "QH"])
    buried = new(GAME, 4, {0: maker, 2: ["QD", "8C", "9C", "TC", "JC"]}, kitty=["AH", "KH", "AD"])
    shapes = []
    for m, partner in ((held, 2), (buried, None)):
        m = engine.apply(run(m, ORDER_UP, PASS), 0, call("AD"))
        assert m.partner == partner
        shapes.append(
            {s: [(e["type"], engine.event_for(e, s) is not None) for e in m.events] for s in (0, 1, 3, 4)}
        )
    assert shapes[0] == shapes[1]
