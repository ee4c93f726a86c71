"""The observation vector and the action ids at engine speed (workers.bots.observe, action_ids).

The vector read from a match equals the one read from the seat's view, over random matches of
each game, and neither changes when the cards the seat cannot see are dealt anew (docs/rules.md
ALL-7); it is still, value for value, the vector atout.learn.encoding gave before it moved here
(fingerprints of the golden hands). The legal ids from the engine's records are those of the JSON
legal actions, an id applied is the action the engine takes, and a bot plays a pure-Python policy
from a plain view, without numpy.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from workers.bots import observe
from workers.bots.action_ids import PICK, action_space, apply_id, discard_count, legal_ids, legal_ids_of_match

GAMES = ("five_hundred", "rough", "euchre5")
VECTORS = Path(__file__).resolve().parent.parent / "data" / "vectors"
MATCHES = int(os.environ.get("ATOUT_OBSERVE_MATCHES", "12"))
"""Random matches per game for the property below (each views every seat at every step)."""

GOLDEN = {
    "five_hundred": (8908, "2c98f88d8a3b23fde496b5d24cc05f6443321dabd53fb262b4d224c4a45da0e5"),
    "rough": (7404, "a53517f4a5819c9e2899d007b77b5b9636f50e4699ecd66665688a2664a6865e"),
    "euchre5": (9345, "0fdec45182b71b3f6c133b053aef1e94ac4c366a45de54fa5668384425389de8"),
}
"""(vectors, SHA-256 of them as float32) over the golden hands (tests/data/vectors), every seat after
every action, as atout.learn.encoding computed them from ``engine.view`` before this module: a policy
trained then reads the same numbers now. A deliberate change of the layout changes these."""


def fingerprint(game: str) -> tuple[int, str]:
    digest, count = hashlib.sha256(), 0
    for line in (VECTORS / f"{game}.jsonl").read_text().splitlines():
        record = json.loads(line)
        m = engine.new_match(game, seed=0, deal=record["deal"])
        for seat_to_act, action in [*record["actions"], [None, None]]:
            for seat in range(m.players):
                vector = observe.observation_of_match(m, seat)
                digest.update(struct.pack(f"<{len(vector)}f", *vector))
                count += 1
            if seat_to_act is not None:
                engine.push(m, seat_to_act, action)
    return count, digest.hexdigest()


@pytest.mark.parametrize("game", GAMES)
def test_the_vector_is_the_one_the_learning_toolkit_encoded_before(game: str) -> None:
    assert fingerprint(game) == GOLDEN[game]


def random_picks(legal: list[dict[str, object]], rng: random.Random) -> list[str]:
    """Some cards of a discard in progress (none when no discard is offered)."""
    count = discard_count(legal)
    if not count:
        return []
    offered = next(a["choices"] for a in legal if a["type"] == "discard")
    assert isinstance(offered, list)
    return rng.sample(offered, rng.randrange(count))


def check_seat(m: engine.Match, seat: int, rng: random.Random) -> None:
    legal = engine.legal_actions(m, seat)
    picked = random_picks(legal, rng)
    view = engine.view(m, seat)
    from_view = observe.observation(view, picked)
    assert observe.observation_of_match(m, seat, picked) == from_view
    assert observe.observation({"view": view, "legal_actions": legal}, picked) == from_view
    assert len(from_view) == observe.size(m.game) and all(-1.0 <= x <= 1.0 for x in from_view)
    ones, values = observe.sparse_observation_of_match(m, seat, picked)
    assert (ones, values) == observe.sparse_observation(view, picked)
    columns = observe.count_columns(m.game)
    assert set(ones) == {i for i, x in enumerate(from_view) if x == 1.0 and i not in columns}
    assert values == [from_view[i] for i in columns]
    ids = legal_ids_of_match(m, seat, picked)
    assert ids == legal_ids(m.game, legal, picked) and bool(ids) == (seat == m.to_act)
    if m.over:
        return  # every card is shown: nothing hidden left to deal anew
    other = engine.sample_match(view, random.Random(rng.random()))  # ALL-7: the hidden cards anew
    assert observe.observation_of_match(other, seat, picked) == from_view
    assert legal_ids_of_match(other, seat, picked) == ids


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=MATCHES, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**62))
def test_match_and_view_encode_alike_and_hidden_cards_change_nothing(game: str, seed: int) -> None:
    """ALL-7: whatever a seat cannot see leaves its vector and its legal ids as they are."""
    rng = random.Random(seed)
    m = engine.new_match(game, seed=seed)
    for _ in range(300):  # several hands; a whole match when it ends sooner
        for seat in range(m.players):
            check_seat(m, seat, rng)
        if m.to_act is None:
            return
        engine.push(m, m.to_act, engine.random_move(m, rng))


@pytest.mark.parametrize("game", GAMES)
def test_an_id_applied_is_the_action_the_engine_takes(game: str) -> None:
    """Random ids through ``apply_id`` (a discard as picks) and their JSON actions through
    ``engine.push`` play the same match; a pick of a card not in the hand is refused, unchanged."""
    rng = random.Random(f"apply:{game}")
    space = action_space(game)
    by_ids, by_json = engine.new_match(game, seed=9), engine.new_match(game, seed=9)
    picked: list[str] = []
    refused = 0
    while by_ids.to_act is not None and by_ids.hand_number <= 6:
        seat = by_ids.to_act
        ids = legal_ids_of_match(by_ids, seat, picked)
        index = rng.choice(ids)
        action = space.action(index)
        if action["type"] == PICK:
            stranger = next(c for c in space.cards if space.pick(c) not in ids and c not in picked)
            before = engine.to_json(by_ids)
            with pytest.raises(ValueError):
                apply_id(by_ids, seat, space.pick(stranger), picked)
            assert engine.to_json(by_ids) == before
            refused += 1
            action = {"type": "discard", "cards": sorted([*picked, action["card"]])}
        took = apply_id(by_ids, seat, index, picked)
        assert took == (len(action.get("cards", ())) in (0, engine.game(game).kitty_size))
        if took:
            engine.push(by_json, seat, action)
            assert engine.to_json(by_ids) == engine.to_json(by_json) and not picked
    assert refused > 0 or game == "euchre5"


def first_legal(x: list[float], ids: list[int]) -> int:
    """A pure-Python policy: the lowest legal id (reads the observation's length only)."""
    assert len(x) > 0
    return ids[0]


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_plays_a_pure_python_policy_from_a_plain_view(game: str) -> None:
    """``choose(view, policy, legal)``: one id, or one pick per card of a discard (each pick seen in
    the next observation and gone from the ids), answered as an action the engine takes."""
    rng = random.Random(f"choose:{game}")
    m = engine.new_match(game, seed=4)
    asked: list[tuple[list[float], list[int]]] = []

    def policy(x: list[float], ids: list[int]) -> int:
        asked.append((x, ids))
        return rng.choice(ids)

    picked = next(f for f in observe.layout(game) if f.name == "picked")
    while m.to_act is not None and m.hand_number <= 4:
        seat, asked[:] = m.to_act, []
        view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
        action = observe.choose(view, policy, legal)
        count = discard_count(legal)
        assert len(asked) == max(1, count)
        if count:
            assert action["type"] == "discard" and len(action["cards"]) == count
            assert [sum(x[picked.start : picked.start + picked.size]) for x, _ in asked] == list(range(count))
            assert [len(ids) for _, ids in asked] == [len(view["hand"]) - i for i in range(count)]
        engine.push(m, seat, action)
    m = engine.new_match(game, seed=5)
    seat = m.to_act
    assert seat is not None
    with pytest.raises(ValueError, match="not legal"):
        observe.choose(engine.view(m, seat), lambda x, ids: -1, engine.legal_actions(m, seat))
    with pytest.raises(ValueError, match="not this seat's turn"):
        observe.choose(engine.view(m, (seat + 1) % m.players), first_legal, [])
    with pytest.raises(ValueError, match="spectator"):
        observe.choose(engine.view(m, None), first_legal, [])


def test_an_api_answer_holds_the_view_and_the_legal_actions() -> None:
    m = engine.new_match("rough", seed=3)
    seat = m.to_act
    assert seat is not None
    answer = {
        "game_id": "x",
        "version": 0,
        "view": engine.view(m, seat),
        "legal_actions": engine.legal_actions(m, seat),
    }
    assert observe.choose(answer, first_legal) == {"type": "pass"}
    assert observe.observation(answer) == observe.observation_of_match(m, seat)


def test_observe_imports_no_numpy() -> None:
    """A bot plays a policy with the standard library: numpy stays out of the process."""
    code = "import sys, workers.bots.observe, workers.bots.action_ids; assert 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.parametrize("game", GAMES)
def test_an_action_space_pickles_to_the_one_of_its_game(game: str) -> None:
    space = action_space(game)
    assert pickle.loads(pickle.dumps(space)) is space
