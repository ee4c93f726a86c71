"""``engine.determinize.sample_match``: a full match consistent with one seat's view (ALL-7).

Property over random matches of each game and random seats at every step: the sample shows
the seat exactly what the true match shows it, every card is in exactly one place, no seat
holds a card of an effective suit it failed to follow (ALL-4, ALL-5, F5-7), the euchre
called card is not in the maker's hand (E5-7), and the sample plays on legally to the end.
"""

from __future__ import annotations

import os
import random

import pytest
from scenarios import assert_each_card_in_one_place

import engine
from engine.determinize import sample_match
from engine.euchre5 import euchre_table
from engine.five_hundred import five_hundred_table
from engine.rough import rough_table
from engine.tricks import TrumpTable

GAMES = ("five_hundred", "rough", "euchre5")
MATCHES = int(os.environ.get("ATOUT_DETERMINIZE_MATCHES", "40"))


def table_of(m: engine.Match) -> TrumpTable | None:
    if m.table is None:
        return None
    if m.game == "five_hundred":
        return five_hundred_table(m.trump)
    if m.game == "rough":
        return rough_table(m.trump)
    assert m.trump is not None
    return euchre_table(m.trump)


def assert_voids_respected(m: engine.Match) -> None:
    """ALL-4: a seat that did not follow the led effective suit holds none of it."""
    table = table_of(m)
    if table is None:
        return
    tricks = [(ld, list(cs)) for ld, cs, _ in m.tricks]
    if m.trick:
        tricks.append((m.leader, m.trick))
    for leader, cards in tricks:
        led = table.suit[cards[0]]
        for i in range(1, len(cards)):
            if table.suit[cards[i]] != led:
                holder = (leader + i) % m.players
                assert not m.hands[holder] & table.follow[led], f"seat {holder} showed a void it breaks"


def play_to_end_of_hand(m: engine.Match, rng: random.Random) -> None:
    hand = m.hand_number
    while m.to_act is not None and m.hand_number == hand:
        engine.push(m, m.to_act, engine.random_move(m, rng))


def play_to_end_of_match(m: engine.Match, rng: random.Random) -> None:
    steps = 0
    while m.to_act is not None:
        engine.push(m, m.to_act, engine.random_move(m, rng))
        steps += 1
        assert steps < 50_000
    assert m.winners


def positions(game: str, seed: int) -> list[engine.Match]:
    """Every position of a random match (its first hands), to sample from."""
    rng = random.Random(seed)
    m = engine.new_match(game, seed=seed)
    out = []
    while m.to_act is not None and m.hand_number <= 3:
        out.append(m)
        m = engine.apply(m, m.to_act, engine.random_move(m, rng))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_sample_agrees_with_the_view_and_is_a_legal_match(game: str) -> None:
    for seed in range(MATCHES):
        rng = random.Random(seed)
        for step, true in enumerate(positions(game, seed)):
            seat = rng.randrange(true.players)
            view = engine.view(true, seat)
            sample = sample_match(view, random.Random(step))
            seen = engine.view(sample, seat)
            assert {k: v for k, v in seen.items() if k != "last_hand"} == {
                k: v for k, v in view.items() if k != "last_hand"
            }
            assert_each_card_in_one_place(sample)
            assert_voids_respected(sample)
            if game == "euchre5" and sample.called is not None and sample.taker is not None:
                assert sample.partner != sample.taker  # E5-7
            if step % 7 == 0:
                play_to_end_of_hand(sample, rng)
                assert_each_card_in_one_place(sample)
            if step % 61 == 0:
                play_to_end_of_match(sample, rng)


@pytest.mark.parametrize("game", GAMES)
def test_sample_is_fixed_by_the_rng_and_varies_with_it(game: str) -> None:
    true = positions(game, 3)[0]
    view = engine.view(true, 0)
    one = engine.to_json(sample_match(view, random.Random(5)))
    assert one == engine.to_json(sample_match(view, random.Random(5)))
    others = {tuple(sample_match(view, random.Random(k)).hands) for k in range(10)}
    assert len(others) > 1


def test_sample_never_changes_the_view() -> None:
    true = positions("rough", 1)[-1]
    view = engine.view(true, 2)
    before = repr(view)
    sample_match(view, random.Random(0))
    assert repr(view) == before


def test_spectator_view_is_refused() -> None:
    true = positions("euchre5", 1)[0]
    with pytest.raises(ValueError):
        sample_match(engine.view(true, None), random.Random(0))


def test_euchre_called_card_goes_to_a_seat_that_may_hold_it() -> None:
    """E5-7, E5-8: over many samples the called card is never in the maker's hand."""
    checked = 0
    for seed in range(40):
        for true in positions("euchre5", seed):
            if true.phase != "play" or true.called is None or true.revealed:
                continue
            seat = (true.taker + 1) % 5 if true.taker is not None else 0
            if seat == true.partner:
                continue
            view = engine.view(true, seat)
            for k in range(5):
                sample = sample_match(view, random.Random(k))
                assert not sample.hands[sample.taker or 0] & (1 << true.called)
                checked += 1
            break
    assert checked > 50
