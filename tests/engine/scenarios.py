"""Scripting exact situations for the rules tests: explicit deals, action shorthands,
and the check that an illegal action is refused with its rule and changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

import engine
import engine.fair
from engine.cards import CODES, mask_of

JSON = dict[str, Any]

PASS: JSON = {"type": "pass"}
KEEP: JSON = {"type": "keep"}
ORDER_UP: JSON = {"type": "order_up"}
GO_ALONE: JSON = {"type": "go_alone"}


def bid(tricks: int, suit: str) -> JSON:
    """A Le 500 bid."""
    return {"type": "bid", "tricks": tricks, "suit": suit}


def points(p: int) -> JSON:
    """A Le Rough bid."""
    return {"type": "bid", "points": p}


def play(card: str, no_trump: bool = False) -> JSON:
    action: JSON = {"type": "play", "card": card}
    if no_trump:
        action["no_trump"] = True
    return action


def discard(*cards: str) -> JSON:
    return {"type": "discard", "cards": list(cards)}


def exchange(card: str) -> JSON:
    return {"type": "exchange", "discard": card}


def name(suit: str) -> JSON:
    return {"type": "name_trump", "suit": suit}


def call(card: str) -> JSON:
    return {"type": "call_partner", "card": card}


def deck(game: str) -> list[str]:
    return list(engine.games()[game]["deck"])


def deal(game: str, dealer: int, hands: dict[int, list[str]], kitty: list[str] | None = None) -> JSON:
    """An explicit deal: the hands and kitty given, every other seat (and the kitty if not
    given) filled with the cards left over, in deck order."""
    info = engine.games()[game]
    players = info["players"]
    size = {"five_hundred": 10, "rough": 8, "euchre5": 5}[game]
    used = {c for h in hands.values() for c in h} | set(kitty or [])
    rest = [c for c in info["deck"] if c not in used]
    full = []
    for seat in range(players):
        given = list(hands.get(seat, []))
        while len(given) < size:
            given.append(rest.pop(0))
        full.append(given)
    return {"dealer": dealer, "hands": full, "kitty": list(kitty) if kitty is not None else rest}


def new(
    game: str,
    dealer: int,
    hands: dict[int, list[str]],
    kitty: list[str] | None = None,
    options: JSON | None = None,
) -> engine.Match:
    return engine.new_match(game, seed=0, options=options, deal=deal(game, dealer, hands, kitty))


def run(m: engine.Match, *actions: JSON) -> engine.Match:
    """Each action taken in turn by the seat to act."""
    for action in actions:
        assert m.to_act is not None, f"the match is over before {action}"
        m = engine.apply(m, m.to_act, action)
    return m


def play_cards(m: engine.Match, cards: str) -> engine.Match:
    """Cards (space separated) played in turn by the seat to act."""
    return run(m, *(play(c) for c in cards.split()))


def first_legal(m: engine.Match) -> JSON:
    assert m.to_act is not None
    action: JSON = engine.legal_actions(m, m.to_act)[0]
    if action["type"] == "discard":
        return discard(*action["choices"][: action["count"]])
    return action


def finish_hand(m: engine.Match) -> engine.Match:
    """Play the rest of the hand with the first legal action at every step."""
    hand = m.hand_number
    while m.to_act is not None and m.hand_number == hand:
        m = engine.apply(m, m.to_act, first_legal(m))
    return m


def with_scores(m: engine.Match, scores: Iterable[int]) -> engine.Match:
    """The same match with the scores set, to reach late situations (box, near the target)."""
    state = json.loads(engine.to_json(m))
    state["scores"] = list(scores)
    return engine.from_json(json.dumps(state))


def assert_illegal(m: engine.Match, seat: int, action: object, rule: str) -> engine.IllegalAction:
    """``action`` is refused citing ``rule``, and neither ``apply`` nor ``push`` changes the match."""
    before = engine.to_json(m)
    with pytest.raises(engine.IllegalAction) as refused:
        engine.apply(m, seat, action)  # type: ignore[arg-type]
    assert refused.value.rule == rule, str(refused.value)
    assert engine.to_json(m) == before
    target = m.copy()
    with pytest.raises(engine.IllegalAction):
        engine.push(target, seat, action)  # type: ignore[arg-type]
    assert engine.to_json(target) == before
    return refused.value


def hand_of(m: engine.Match, seat: int) -> set[str]:
    return set(engine.view(m, seat)["hand"])


def legal_cards(m: engine.Match) -> set[str]:
    assert m.to_act is not None
    return {a["card"] for a in engine.legal_actions(m, m.to_act) if a["type"] == "play"}


def card_codes(obj: object) -> set[str]:
    """Every card code appearing as a string anywhere in a JSON value."""
    codes = set(deck("five_hundred"))
    found: set[str] = set()
    if isinstance(obj, str):
        if obj in codes:
            found.add(obj)
    elif isinstance(obj, dict):
        for value in obj.values():
            found |= card_codes(value)
    elif isinstance(obj, list):
        for value in obj:
            found |= card_codes(value)
    return found


def shuffled(game: str, seed: int = 0) -> tuple[engine.Match, list[str]]:
    """A seeded match and the order its first hand's seed shuffles the deck into (docs/fairness.md,
    re-derived here through the public ``engine.fair``): the deal must be the rule's packet pattern
    taken from the top of that order."""
    m = engine.new_match(game, seed=seed)
    hand_seed = engine.fair.hand_seed_of(m.key, 1, m.client_seeds)
    return m, [CODES[c] for c in engine.fair.shuffle(engine.game(game).deck, hand_seed)]


def packets(order: list[str], dealer: int, players: int, pattern: list[tuple[str, int]]):
    """The hands and kitty of dealing ``order`` from the top in ``pattern``, left of the dealer first."""
    hands: list[list[str]] = [[] for _ in range(players)]
    kitty: list[str] = []
    top = iter(order)
    for target, count in pattern:
        if target == "kitty":
            kitty += [next(top) for _ in range(count)]
        else:
            for k in range(1, players + 1):
                hands[(dealer + k) % players] += [next(top) for _ in range(count)]
    return hands, kitty


def places(m: engine.Match) -> list[int]:
    """Every place a card can be, as masks: each hand, the kitty, the discards, the tricks."""
    in_tricks = mask_of(c for _, cards, _ in m.tricks for c in cards) | mask_of(m.trick)
    return [*m.hands, m.kitty, m.discards, in_tricks]


def assert_each_card_in_one_place(m: engine.Match) -> None:
    seen = 0
    for mask in places(m):
        assert not seen & mask, "a card is in two places"
        seen |= mask
    assert seen == engine.game(m.game).deck_mask, "a card is missing"
