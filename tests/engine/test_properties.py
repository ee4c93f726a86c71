"""Properties over many random matches of each game (issue 2, "What it must show").

Every match is played to its end by uniformly random legal actions drawn from a seed that
hypothesis chooses. The invariants are checked at every step:

- every card is in exactly one place (a hand, the kitty, the discards, the tricks);
- the seat to act has at least one legal action, and every legal action applies;
- random illegal actions are refused with ``IllegalAction`` and change nothing;
- Rough card points total 100 per hand (RG-4); scores move exactly as the rules say
  from the hand's result (F5-12/13, RG-12..14, E5-10/11), recomputed here independently;
- a match always ends, with winners per F5-14, RG-14/15, E5-12;
- ``from_json(to_json(m))`` plays on identically, and ``push`` agrees with ``apply``;
- a view or event never holds a card the seat may not see (ALL-7).
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenarios import assert_each_card_in_one_place

import engine
from engine.cards import CARD_OF, CODES, cards_of, mask_of

GAMES = ("five_hundred", "rough", "euchre5")
MATCHES = int(os.environ.get("ATOUT_PROPERTY_MATCHES", "1000"))
"""Random matches per game for the cheap invariants (thousands in all)."""
VIEW_MATCHES = int(os.environ.get("ATOUT_VIEW_MATCHES", "150"))
"""Random matches per game for the leak check, which views every seat at every step."""
MAX_ACTIONS = 20_000

seeds = st.integers(min_value=0, max_value=2**63)
many = settings(max_examples=MATCHES, deadline=None, suppress_health_check=list(HealthCheck))
some = settings(max_examples=VIEW_MATCHES, deadline=None, suppress_health_check=list(HealthCheck))


# ----- independent score oracles (from the hand's public record) ---------------------------------
AVONDALE = {d: i for i, d in enumerate(("S", "C", "D", "H", "NT"))}
ROUGH_POINTS = {"A": 10, "T": 10, "5": 5}


def expected_points(game: str, record: dict[str, Any], options: dict[str, Any]) -> list[int] | None:
    """The score change of a hand per docs/rules.md, or None for a Rough 100 (decides the match)."""
    if record.get("void"):
        return [0] * (5 if game == "euchre5" else 2)
    deal = record["deal"]
    tricks = deal["tricks"]
    if game == "five_hundred":
        team = record["taker"] % 2
        level, suit = record["contract"]["tricks"], record["contract"]["suit"]
        value = 40 + 100 * (level - 6) + 20 * AVONDALE[suit]  # F5-12
        taken = sum(1 for t in tricks if t["winner"] % 2 == team)
        if taken == 10 and options["slam_bonus"] and value < 250:
            value = 250
        out = [0, 0]
        out[team if taken >= level else 1 - team] = value  # F5-13
        return out
    if game == "rough":
        team = record["taker"] % 2
        bid = record["contract"]["points"]
        taken = [0, 0]
        for t in tricks:
            taken[t["winner"] % 2] += sum(ROUGH_POINTS.get(c[0], 0) for c in t["cards"])
        taken[team] += sum(ROUGH_POINTS.get(c[0], 0) for c in deal["discards"])  # RG-10
        assert sum(taken) == 100  # RG-4
        if bid == 100:
            return None  # RG-14
        out = [0, 0]
        out[team] = taken[team] if taken[team] >= bid else -bid  # RG-13
        out[1 - team] = taken[1 - team]
        return out
    maker = record["maker"]
    holder = None
    if record["called"] is not None:
        hands = deal["hands"]
        for seat, h in enumerate(hands):
            if record["called"] in h:
                holder = seat
        # The dealer's exchange moved cards: the holder is whoever held it after the exchange.
        if deal["discarder"] is not None:
            dealer = deal["dealer"]
            if record["called"] in deal["discards"]:
                holder = None  # buried in the dealer's discard (E5-8)
            elif record["called"] == deal["kitty"][0]:
                holder = dealer
    attackers = {maker} if holder is None else {maker, holder}
    taken = sum(1 for t in tricks if t["winner"] in attackers)
    out = [0] * 5
    if taken >= 3:  # E5-10, E5-11
        each = 2 if taken == 5 else 1
        if taken == 5 and record["alone"]:
            each = options["lone_march_points"]
        for s in attackers:
            out[s] = each
    else:
        for s in set(range(5)) - attackers:
            out[s] = 4 if taken == 0 else 2
    return out


def expected_winners(game: str, m: engine.Match, record: dict[str, Any]) -> list[int] | None:
    scores = m.scores
    if game == "five_hundred":
        over = [t for t in (0, 1) if scores[t] >= m.options["target_score"]]
        return [over[0], over[0] + 2] if over else None
    if game == "rough":
        if record.get("void"):
            return None
        team = record["taker"] % 2
        if record["contract"]["points"] == 100:
            win = team if record["made"] else 1 - team
            return [win, win + 2]
        over = [t for t in (0, 1) if scores[t] >= m.options["target_score"]]
        if over:
            win = team if team in over else over[0]
            return [win, win + 2]
        if m.options["floor_loses"] and scores[team] <= -m.options["target_score"]:
            return [1 - team, 3 - team]  # RG-16 [decision]
        return None
    best = max(scores)
    return [s for s in range(5) if scores[s] == best] if best >= m.options["target_score"] else None


# ----- random illegal actions --------------------------------------------------------------------
def junk_action(rng: random.Random, m: engine.Match) -> dict[str, Any]:
    kinds = [
        "pass",
        "bid",
        "keep",
        "discard",
        "play",
        "order_up",
        "exchange",
        "name_trump",
        "call_partner",
        "go_alone",
        "fly",
        None,
    ]
    kind = rng.choice(kinds)
    code = rng.choice([*CODES, "ZZ", "", "10H", 7])
    a: dict[str, Any] = {"type": kind}
    if kind == "bid":
        if rng.random() < 0.5:
            a.update(points=rng.choice([0, 65, 70, 72, 85, 100, 105, "80"]))
        else:
            a.update(
                tricks=rng.choice([5, 6, 7, 8, 9, 10, 11]), suit=rng.choice(["S", "C", "D", "H", "NT", "X"])
            )
    elif kind == "discard":
        a["cards"] = rng.sample(CODES, rng.randint(0, 7))
    elif kind == "play":
        a["card"] = code
        if rng.random() < 0.3:
            a["no_trump"] = rng.choice([True, False, "yes"])
    elif kind == "exchange":
        a["discard"] = code
    elif kind == "name_trump":
        a["suit"] = rng.choice(["S", "C", "D", "H", "NT", 3])
    elif kind == "call_partner":
        a["card"] = code
    return a


def is_legal(m: engine.Match, seat: int, action: dict[str, Any]) -> bool:
    legal = engine.legal_actions(m, seat)
    try:
        normal = engine.parse(action).to_json()  # {"no_trump": false} is a plain play
    except engine.IllegalAction:
        return False
    if normal in legal:
        return True
    if action.get("type") == "discard" and seat == m.to_act:
        for t in legal:
            if t["type"] == "discard":
                cards = action.get("cards")
                return (
                    isinstance(cards, list)
                    and len(cards) == t["count"]
                    and len(set(cards)) == len(cards)
                    and set(cards) <= set(t["choices"])
                )
    return False


def assert_refused_unchanged(m: engine.Match, seat: int, action: dict[str, Any]) -> None:
    before = engine.to_json(m)
    with pytest.raises(engine.IllegalAction) as refused:
        engine.push(m, seat, action)
    assert refused.value.rule, "an IllegalAction names its rule"
    assert refused.value.code in {"malformed_action", "not_your_turn", "illegal_action", "match_over"}
    assert engine.to_json(m) == before


# ----- the cheap invariants, over thousands of matches -----------------------------------------
def play_match_checking(game: str, seed: int) -> engine.Match:
    rng = random.Random(seed)
    options = random_options(game, rng)
    m = engine.new_match(game, seed=seed, options=options)
    hands = 1
    for _ in range(MAX_ACTIONS):
        assert_each_card_in_one_place(m)
        if m.to_act is None:
            break
        seat = m.to_act
        moves = engine.legal_moves(m)
        assert moves, "the seat to act always has a legal action"
        if rng.random() < 0.05:
            junk = junk_action(rng, m)
            who = rng.choice([seat, (seat + 1) % m.players])
            if not is_legal(m, who, junk):
                assert_refused_unchanged(m, who, junk)
        scores_before = m.scores[:]
        m = engine.apply(m, seat, engine.random_move(m, rng))
        scored = [e for e in m.events if e["type"] == "hand_scored"]
        if scored:
            hands += 1
            record = scored[0]
            points = expected_points(game, record, m.options)
            delta = [a - b for a, b in zip(m.scores, scores_before, strict=True)]
            assert delta == (points if points is not None else [0, 0]), record
            assert m.winners == expected_winners(game, m, record)
    assert m.over, "a match always ends"
    assert m.to_act is None and engine.legal_moves(m) == []
    return m


def random_options(game: str, rng: random.Random) -> dict[str, Any]:
    specs = engine.games()[game]["options"]
    if rng.random() < 0.5:
        return {}
    options = {name: rng.choice(spec["allowed"]) for name, spec in specs.items()}
    options.pop("floor_loses", None)  # without RG-16 random Rough play need never end
    return options


@pytest.mark.parametrize("game", GAMES)
def test_random_matches_keep_every_invariant(game: str) -> None:
    @many
    @given(seed=seeds)
    def run(seed: int) -> None:
        play_match_checking(game, seed)

    run()


# ----- every legal action applies; push agrees with apply; JSON round trip ------------------------
@pytest.mark.parametrize("game", GAMES)
def test_every_legal_action_applies_and_round_trips(game: str) -> None:
    @settings(max_examples=max(50, MATCHES // 10), deadline=None, suppress_health_check=list(HealthCheck))
    @given(seed=seeds)
    def run(seed: int) -> None:
        rng = random.Random(seed)
        m = engine.new_match(game, seed=seed)
        for _ in range(MAX_ACTIONS):
            if m.to_act is None:
                break
            seat = m.to_act
            for action in engine.legal_actions(m, seat):
                if action["type"] == "discard":
                    action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
                engine.apply(m, seat, action)  # never raises
            text = engine.to_json(m)
            clone = engine.from_json(text)
            assert engine.to_json(clone) == text
            assert len(text.encode()) < 4096, "a mid-match state's JSON stays under 4 KB"
            action = engine.random_move(m, rng)
            pure = engine.apply(m, seat, action)
            assert engine.to_json(m) == text, "apply leaves its input unchanged"
            engine.push(clone, seat, action)
            assert engine.to_json(clone) == engine.to_json(pure), "push agrees with apply"
            assert clone.events == pure.events
            m = pure
        assert m.over

    run()


# ----- hidden information (ALL-7) ----------------------------------------------------------------
CODE_SET = set(CODES)


def card_codes(obj: Any) -> set[str]:
    """Every card code appearing as a string (key or value) anywhere in a JSON value."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x in CODE_SET:
                found.add(x)
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return found


def visible_to(m: engine.Match, seat: int | None) -> set[str]:
    """What ALL-7 lets ``seat`` see of the current hand: its own hand and discards, every card
    played face up, the euchre upcard (dealt face up, E5-3) and the called card (named aloud)."""
    mask = m.played
    if seat is not None:
        mask |= m.hands[seat]
        if m.discarder == seat:
            mask |= m.discards
        if seat == m.taker and m.game != "euchre5":
            mask |= mask_of(m.kitty_dealt)  # the taker picked the kitty up (F5-10, RG-10)
    if m.game == "euchre5":
        mask |= 1 << m.kitty_dealt[0]
        if m.called is not None:
            mask |= 1 << m.called
    return {CODES[c] for c in cards_of(mask)}


def check_view(m: engine.Match, seat: int | None, previous_deal: dict[str, Any] | None) -> None:
    v = engine.view(m, seat)
    assert json.loads(json.dumps(v)) == v, "a view is plain JSON"
    current = {k: val for k, val in v.items() if k != "last_hand"}
    leaked = card_codes(current) - visible_to(m, seat)
    assert not leaked, f"seat {seat} sees hidden cards {sorted(leaked)} in phase {m.phase}"
    if previous_deal is not None:  # ALL-7: the finished hand's record is public, and right
        assert v["last_hand"]["deal"] == previous_deal
    if m.game == "euchre5" and v["contract"] is not None and v["contract"]["partner"] is not None:
        assert m.revealed or seat == m.partner, "E5-8: who holds the called card stays secret"


@pytest.mark.parametrize("game", GAMES)
def test_no_view_or_event_shows_a_hidden_card(game: str) -> None:
    @some
    @given(seed=seeds)
    def run(seed: int) -> None:
        rng = random.Random(seed)
        m = engine.new_match(game, seed=seed)
        seats: list[int | None] = [*range(m.players), None]
        previous_deal = None
        for _ in range(MAX_ACTIONS):
            for seat in seats:
                check_view(m, seat, previous_deal)
            if m.to_act is None:
                break
            allowed_before = {s: visible_to(m, s) for s in seats}
            m = engine.apply(m, m.to_act, engine.random_move(m, rng))
            scored = [e for e in m.events if e["type"] == "hand_scored"]
            if scored:
                previous_deal = scored[0]["deal"]
                assert m.last_hand is not None and scored[0] == {"type": "hand_scored", **m.last_hand}
            for seat in seats:
                allowed = allowed_before[seat] | visible_to(m, seat)
                for event in m.events:
                    seen = engine.event_for(event, seat)
                    if seen is None or seen["type"] == "hand_scored":
                        continue
                    if seen["type"] == "dealt":
                        assert seen["seat"] == seat, "a seat's dealt cards reach only that seat"
                    if seen["type"] in ("trick", "play"):
                        continue  # cards played face up, public by ALL-7
                    leaked = card_codes(seen) - allowed
                    assert not leaked, f"event {seen['type']} shows seat {seat} {sorted(leaked)}"
        assert m.over

    run()


def test_views_of_a_finished_match_name_the_winners() -> None:
    m = play_match_checking("euchre5", 12345)
    for seat in [*range(5), None]:
        assert engine.view(m, seat)["winners"] == m.winners


def test_card_codes_helper_finds_codes_in_keys_and_values() -> None:
    assert card_codes({"AS": [{"x": "TD"}], "y": ("BJ", "nope")}) == {"AS", "TD", "BJ"}
    assert CARD_OF["BJ"] == 44
