"""docs/rules.md ALL-1..ALL-7: what the three games share."""

from __future__ import annotations

import random
import re

import pytest
from scenarios import (
    GO_ALONE,
    ORDER_UP,
    PASS,
    assert_illegal,
    bid,
    card_codes,
    deal,
    deck,
    discard,
    finish_hand,
    hand_of,
    legal_cards,
    new,
    play,
    play_cards,
    points,
    run,
)

import engine

GAMES = ["five_hundred", "rough", "euchre5"]
PLAYERS = {"five_hundred": 4, "rough": 4, "euchre5": 5}


def random_states(game: str, seed: int, steps: int) -> list[str]:
    """The JSON form after each of ``steps`` random legal actions (chosen by a fixed RNG)."""
    rng = random.Random(99)
    m = engine.new_match(game, seed=seed)
    states = [engine.to_json(m)]
    for _ in range(steps):
        if m.to_act is None:
            break
        action = rng.choice(engine.legal_actions(m, m.to_act))
        if action["type"] == "discard":
            action = discard(*rng.sample(action["choices"], action["count"]))
        m = engine.apply(m, m.to_act, action)
        states.append(engine.to_json(m))
    return states


def rough_trick_deal() -> engine.Match:
    """Le Rough, dealer 3: seat 0 takes at 70 and discards the kitty, then leads.

    Seat 0 is void in diamonds and seat 3 in clubs.
    """
    m = engine.new_match(
        "rough",
        seed=0,
        deal={
            "dealer": 3,
            "hands": [
                ["9S", "QS", "KC", "JC", "TC", "AH", "KH", "QH"],
                ["8S", "QC", "9C", "8C", "TD", "JD", "7D", "JH"],
                ["AS", "AC", "7C", "KD", "QD", "9D", "TH", "9H"],
                ["KS", "7S", "5S", "AD", "8D", "5D", "8H", "7H"],
            ],
            "kitty": ["JS", "TS", "5C", "5H"],
        },
    )
    return run(m, points(70), PASS, PASS, PASS, discard("JS", "TS", "5C", "5H"))


def euchre_hearts(hands: dict[int, list[str]]) -> engine.Match:
    """Five-handed euchre, dealer 0, upcard 9H ordered up by seat 1 who goes alone; seat 1 leads."""
    m = new("euchre5", 0, hands, kitty=["9H", "8S", "8C"])
    return run(m, ORDER_UP, PASS, GO_ALONE)


# ----- ALL-1 seats and turn order ------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("dealer", [0, 2, 3])
def test_all1_bidding_starts_left_of_dealer_and_goes_clockwise(game: str, dealer: int) -> None:
    """ALL-1: "left of X" is seat (X+1) mod n, and bidding goes clockwise."""
    n = PLAYERS[game]
    m = engine.new_match(game, seed=0, deal=deal(game, dealer, {}))
    order = [m.to_act]
    for _ in range(n - 1):
        m = run(m, PASS)
        order.append(m.to_act)
    assert order == [(dealer + k) % n for k in range(1, n + 1)]


def test_all1_play_goes_clockwise_from_the_leader() -> None:
    """ALL-1: after the leader, each card of the trick comes from the next seat clockwise."""
    m = play_cards(rough_trick_deal(), "9S 8S AS 5S AC 7S")
    assert [p["seat"] for p in engine.view(m, None)["current_trick"]] == [2, 3]
    m = play_cards(m, "KC")
    assert [p["seat"] for p in engine.view(m, None)["current_trick"]] == [2, 3, 0]
    assert m.to_act == 1


@pytest.mark.parametrize("game", GAMES)
def test_all1_a_seat_acting_out_of_turn_is_refused(game: str) -> None:
    """ALL-1: only the seat to act may act; the match is unchanged."""
    m = engine.new_match(game, seed=4)
    other = (m.to_act + 1) % PLAYERS[game]
    assert engine.legal_actions(m, other) == []
    assert_illegal(m, other, PASS, "ALL-1")


# ----- ALL-2 the first dealer and the passing of the deal -------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_all2_first_dealer_is_drawn_from_the_seed(game: str) -> None:
    """ALL-2: the same seed always draws the same first dealer, and seeds vary the dealer."""
    dealers = [engine.new_match(game, seed=s).dealer for s in range(40)]
    assert dealers == [engine.new_match(game, seed=s).dealer for s in range(40)]
    assert set(dealers) == set(range(PLAYERS[game]))


@pytest.mark.parametrize("game", GAMES)
def test_all2_the_deal_passes_one_seat_left_every_hand(game: str) -> None:
    """ALL-2: each new hand is dealt by the seat left of the previous dealer."""
    m = engine.new_match(game, seed=11)
    n = PLAYERS[game]
    first = m.dealer
    for k in range(1, 4):
        m = finish_hand(m)
        assert m.hand_number == k + 1
        assert m.dealer == (first + k) % n
        assert m.to_act == (m.dealer + 1) % n


# ----- ALL-3 seeded shuffles, determinism, explicit deals -------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_all3_same_seed_and_actions_replay_identically(game: str) -> None:
    """ALL-3: a match created with the same seed and the same actions replays identically."""
    assert random_states(game, 5, 150) == random_states(game, 5, 150)


@pytest.mark.parametrize("game", GAMES)
def test_all3_a_saved_match_plays_on_identically(game: str) -> None:
    """ALL-3: the JSON form restores a match that replays the same actions identically."""
    rng = random.Random(7)
    m = engine.new_match(game, seed=21)
    for _ in range(120):
        if m.to_act is None:
            break
        action = rng.choice(engine.legal_actions(m, m.to_act))
        if action["type"] == "discard":
            action = discard(*rng.sample(action["choices"], action["count"]))
        restored = engine.from_json(engine.to_json(m))
        m = engine.apply(m, m.to_act, action)
        assert engine.to_json(engine.apply(restored, restored.to_act, action)) == engine.to_json(m)


@pytest.mark.parametrize("game", GAMES)
def test_all3_each_hand_is_shuffled_from_the_seed(game: str) -> None:
    """ALL-3: different seeds deal different hands; the same seed the same hands."""
    hands = {tuple(engine.view(engine.new_match(game, seed=s), 1)["hand"]) for s in range(5)}
    assert len(hands) == 5
    a, b = engine.new_match(game, seed=3), engine.new_match(game, seed=3)
    assert engine.to_json(a) == engine.to_json(b)


@pytest.mark.parametrize("game", GAMES)
def test_all3_later_hands_are_shuffled_too(game: str) -> None:
    """ALL-3: each hand has its own shuffle (the second deal differs from the first)."""
    m = engine.new_match(game, seed=8)
    first = [engine.view(m, s)["hand"] for s in range(PLAYERS[game])]
    m = finish_hand(m)
    assert [engine.view(m, s)["hand"] for s in range(PLAYERS[game])] != first


@pytest.mark.parametrize("game", GAMES)
def test_all3_an_explicit_deal_is_used_as_given(game: str) -> None:
    """ALL-3: a game may be created with an explicit deal (hands + kitty)."""
    d = deal(game, 2, {})
    m = engine.new_match(game, seed=0, deal=d)
    assert m.dealer == 2
    for seat, cards in enumerate(d["hands"]):
        assert hand_of(m, seat) == set(cards)


def _broken_deals(game: str) -> list[dict[str, object]]:
    good = deal(game, 0, {})
    hands, kitty = good["hands"], good["kitty"]
    stranger = {"five_hundred": "3S", "rough": "6S", "euchre5": "7H"}[game]
    return [
        {**good, "hands": [[hands[1][0], *hands[0][1:]], *hands[1:]]},  # a card twice, one missing
        {**good, "kitty": [stranger, *kitty[1:]]},  # a card not in this deck
        {**good, "hands": [hands[0][:-1], *hands[1:]], "kitty": [*kitty, hands[0][-1]]},  # sizes
        {**good, "kitty": kitty[1:]},  # a card missing
        {**good, "hands": hands[:-1]},  # a hand missing
        {**good, "dealer": PLAYERS[game]},  # no such seat
        {**good, "hands": [["XX", *hands[0][1:]], *hands[1:]]},  # not a card code
        {"hands": hands, "kitty": kitty},  # no dealer
    ]


@pytest.mark.parametrize("game", GAMES)
def test_all3_an_explicit_deal_must_partition_the_deck(game: str) -> None:
    """ALL-3: the engine checks that an explicit deal is exactly a partition of the deck."""
    for broken in _broken_deals(game):
        with pytest.raises(engine.IllegalAction) as refused:
            engine.new_match(game, seed=0, deal=broken)
        assert refused.value.rule == "ALL-3", broken


# ----- ALL-4 trick play -----------------------------------------------------------------


def test_all4_must_follow_the_led_suit_if_able() -> None:
    """ALL-4: holding the led suit, a player must play it."""
    m = play_cards(rough_trick_deal(), "9S 8S AS 5S AC 7S KC QC 8D AH")
    assert legal_cards(m) == {"TD", "JD", "7D"}
    assert_illegal(m, 1, play("8C"), "ALL-4")


def test_all4_a_player_void_in_the_led_suit_may_play_anything() -> None:
    """ALL-4: void in the led suit, any card may be played - nobody is forced to trump."""
    m = play_cards(rough_trick_deal(), "9S 8S AS 5S")  # spades are trump
    m = play_cards(m, "AC")
    assert legal_cards(m) == hand_of(m, 3)  # seat 3 has no club
    m = play_cards(m, "7S KC QC 8D")
    assert "QS" in legal_cards(m)  # seat 0 holds a trump but no diamond ...
    assert legal_cards(m) == hand_of(m, 0)  # ... and need not trump


def test_all4_nobody_is_forced_to_overtake() -> None:
    """ALL-4: following suit, a player may play under the cards already played."""
    m = play_cards(rough_trick_deal(), "9S 8S AS 5S AC 7S KC QC 8D AH TD")
    assert legal_cards(m) == {"KD", "QD", "9D"}


def test_all4_highest_trump_wins_and_winner_leads() -> None:
    """ALL-4: the highest trump wins the trick; the trick winner leads next."""
    m = play_cards(rough_trick_deal(), "9S 8S AS 5S")
    assert engine.view(m, None)["tricks"][0]["winner"] == 2
    assert m.to_act == 2
    m = play_cards(m, "AC 7S KC QC")  # a small trump beats the ace led
    assert engine.view(m, None)["tricks"][1]["winner"] == 3
    assert m.to_act == 3


def test_all4_without_trump_the_highest_card_of_the_led_suit_wins() -> None:
    """ALL-4: with no trump in the trick, an off-suit ace does not win it."""
    m = play_cards(rough_trick_deal(), "9S 8S AS 5S AC 7S KC QC 8D AH TD 9D")
    assert engine.view(m, None)["tricks"][2]["winner"] == 1
    assert m.to_act == 1


def test_all4_a_card_not_in_hand_is_refused() -> None:
    """ALL-4: a player plays only cards of his own hand."""
    m = rough_trick_deal()
    assert_illegal(m, 0, play("AS"), "ALL-4")


# ----- ALL-5 effective suits ------------------------------------------------------------


def test_all5_left_bower_must_follow_trump() -> None:
    """ALL-5: the left bower belongs to trump, so it must be played to a trump lead."""
    m = euchre_hearts({1: ["AH", "KH", "QH", "TH", "AC"], 2: ["JD", "AD", "KD", "AS", "KS"]})
    m = play_cards(m, "AH")
    assert legal_cards(m) == {"JD"}
    assert_illegal(m, 2, play("AD"), "ALL-4")


def test_all5_left_bower_does_not_follow_its_natural_suit() -> None:
    """ALL-5: with hearts trump, JD is not a diamond: its holder is void in diamonds."""
    m = euchre_hearts({1: ["AD", "KH", "QH", "TH", "AC"], 2: ["JD", "AS", "KS", "QS", "KC"]})
    m = play_cards(m, "AD")
    assert legal_cards(m) == {"JD", "AS", "KS", "QS", "KC"}


def test_all5_a_joker_belongs_to_the_trump_suit() -> None:
    """ALL-5: in Le 500 the jokers are trumps; a joker is the only trump, it must follow."""
    m = new(
        "five_hundred",
        3,
        {0: ["AH", "KH", "QH", "TH", "9H", "8H", "7H", "6H", "AS", "KS"], 1: ["RJ", "AC", "KC", "QC"]},
        kitty=["4S", "5S", "6S", "7S", "8S", "9S"],
    )
    m = run(m, bid(8, "H"), PASS, PASS, PASS, discard("4S", "5S", "6S", "7S", "8S", "9S"))
    m = play_cards(m, "AH")
    assert legal_cards(m) == {"RJ"}
    assert_illegal(m, 1, play("AC"), "ALL-4")


# ----- ALL-6 card codes -----------------------------------------------------------------

CODE = re.compile(r"^(?:[AKQJT987654][SCDH]|BJ|RJ)$")


@pytest.mark.parametrize(("game", "size"), [("five_hundred", 46), ("rough", 36), ("euchre5", 28)])
def test_all6_decks_use_the_card_codes(game: str, size: int) -> None:
    """ALL-6: rank A K Q J T 9 8 7 6 5 4 + suit S C D H; jokers BJ and RJ."""
    cards = deck(game)
    assert len(set(cards)) == size
    assert all(CODE.match(c) for c in cards)
    m = engine.new_match(game, seed=1)
    assert all(CODE.match(c) for c in engine.view(m, 0)["hand"])


@pytest.mark.parametrize("bad", ["10S", "TS ", "S", "ZZ", "JK", 7, None, ["TS"]])
def test_all6_a_malformed_card_code_is_refused(bad: object) -> None:
    """ALL-6: anything but a card code is refused (not a KeyError), the match unchanged."""
    m = rough_trick_deal()
    assert_illegal(m, 0, {"type": "play", "card": bad}, "ALL-6")


def test_all6_colours_pair_spades_with_clubs_and_diamonds_with_hearts() -> None:
    """ALL-6: S and C are black, D and H red - so the left bower of clubs is JS."""
    m = new(
        "euchre5",
        0,
        {1: ["AC", "KC", "QC", "TC", "9C"], 2: ["JS", "AS", "KS", "QS", "AD"]},
        kitty=["8C", "8S", "8D"],
    )
    m = run(m, ORDER_UP, PASS, GO_ALONE)
    m = play_cards(m, "AC")
    assert legal_cards(m) == {"JS"}


# ----- ALL-7 hidden information ---------------------------------------------------------


def test_all7_a_seat_sees_its_own_hand_and_nothing_of_the_others() -> None:
    """ALL-7: before any card is played, a view shows only the seat's own cards."""
    for game in GAMES:
        m = engine.new_match(game, seed=2)
        visible_upcard = {engine.view(m, None).get("upcard")} - {None}
        for seat in range(PLAYERS[game]):
            v = engine.view(m, seat)
            assert card_codes(v) == set(v["hand"]) | visible_upcard
            assert len(v["hand"]) == {"five_hundred": 10, "rough": 8, "euchre5": 5}[game]
        assert card_codes(engine.view(m, None)) == visible_upcard


def test_all7_kitty_and_discards_are_seen_by_the_taker_only() -> None:
    """ALL-7: the taker sees the kitty he picks up and what he discarded; others see neither."""
    m = engine.new_match("rough", seed=0, deal=deal("rough", 3, {}, kitty=["AS", "TS", "5S", "5C"]))
    m = run(m, points(70), PASS, PASS, PASS)
    assert {"AS", "TS", "5S", "5C"} <= hand_of(m, 0)
    for seat in (1, 2, 3, None):
        assert not card_codes(engine.view(m, seat)) & {"AS", "TS", "5S", "5C"}
    m = run(m, discard("AS", "TS", "5S", "5C"))
    assert set(engine.view(m, 0)["my_discards"]) == {"AS", "TS", "5S", "5C"}
    for seat in (1, 2, 3, None):
        v = engine.view(m, seat)
        assert "my_discards" not in v
        assert not card_codes(v) & {"AS", "TS", "5S", "5C"}


def test_all7_played_cards_are_seen_by_everybody() -> None:
    """ALL-7: everything played face up is visible to every seat and spectators."""
    m = play_cards(rough_trick_deal(), "9S 8S AS 5S AC")
    for seat in (0, 1, 2, 3, None):
        assert {"9S", "8S", "AS", "5S", "AC"} <= card_codes(engine.view(m, seat))


@pytest.mark.parametrize("game", GAMES)
def test_all7_the_full_deal_record_is_public_when_the_hand_is_over(game: str) -> None:
    """ALL-7: once a hand is over, its hands as dealt, kitty and discards are public."""
    d = deal(game, 0, {})
    m = engine.new_match(game, seed=0, deal=d)
    m = finish_hand(m)
    for seat in [*range(PLAYERS[game]), None]:
        record = engine.view(m, seat)["last_hand"]["deal"]
        assert [set(h) for h in record["hands"]] == [set(h) for h in d["hands"]]
        assert record["kitty"] == d["kitty"]
        assert record["dealer"] == 0


def test_all7_the_takers_discards_become_public_when_the_hand_is_over() -> None:
    """ALL-7: the discards, hidden during the hand, are in the public record afterwards."""
    m = finish_hand(rough_trick_deal())
    for seat in (1, 2, 3, None):
        record = engine.view(m, seat)["last_hand"]["deal"]
        assert set(record["discards"]) == {"JS", "TS", "5C", "5H"}
        assert record["kitty"] == ["JS", "TS", "5C", "5H"]
