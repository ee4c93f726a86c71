"""Engine states pickle and copy in both builds (issue 36, "A bot lab").

A vectorized trainer ships its environments to subprocesses and a checkpoint pickles them: a match,
and every record it holds (its hands' records, tricks, actions, the trump table, the last hand
scored), must come back from ``pickle`` and ``copy.deepcopy`` equal and play on exactly as the
original would. The mypyc-compiled build is the one that used to fail (a compiled frozen dataclass
refuses the field-by-field ``__setstate__``, a compiled class's ``__new__`` wants its
``__init__``'s arguments), so these tests check first that it is the build they run; ``make unit``
runs them again with ``ATOUT_PURE_ENGINE=1``.
"""

from __future__ import annotations

import copy
import os
import pickle
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_build import _match_fields

import engine
import engine.match
from engine import actions as act
from engine.match import LastHand

GAMES = ("five_hundred", "rough", "euchre5")
ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
MAX_ACTIONS = 20_000

ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "deepcopy": copy.deepcopy,
}


FIELDS = _match_fields()


def fields(m: engine.Match) -> dict[str, Any]:
    return {name: getattr(m, name) for name in FIELDS}


def test_the_build_under_test_is_the_one_named() -> None:
    """Unless ``ATOUT_PURE_ENGINE=1``, the compiled extensions are what runs (``make compile`` first):
    the failures of issue 36 were the compiled build's alone."""
    compiled = str(engine.match.__file__).endswith(".so")
    if os.environ.get("ATOUT_PURE_ENGINE") == "1":
        assert not compiled and engine.BUILD == "pure"
    elif any(ENGINE.glob("match.*.so")):
        assert compiled and engine.BUILD == "compiled", "stale extensions: run `make compile`"


def assert_same_future(original: engine.Match, other: engine.Match, seed: int) -> None:
    """Both play on under the same random choices to the end of the match (or ``MAX_ACTIONS``): the
    same legal actions, views and events at every step, and the same state after it. A list shared
    between the two would show: each step is pushed on the copy first."""
    rng_a, rng_b = random.Random(seed), random.Random(seed)
    for _ in range(MAX_ACTIONS):
        assert fields(other) == fields(original)
        seat = original.to_act
        if seat is None:
            return
        assert engine.legal_actions(other, seat) == engine.legal_actions(original, seat)
        assert engine.view(other, seat) == engine.view(original, seat)
        engine.push(other, seat, engine.random_move(other, rng_b))
        engine.push(original, seat, engine.random_move(original, rng_a))
        assert other.events == original.events
    raise AssertionError(f"no end after {MAX_ACTIONS} actions")


def step(m: engine.Match, rng: random.Random) -> None:
    """The seat to act takes a random legal action."""
    seat = m.to_act
    assert seat is not None
    engine.push(m, seat, engine.random_move(m, rng))


def played(game: str, seed: int, stop: int) -> engine.Match:
    """A match of ``game`` after ``stop`` random actions drawn from ``seed`` (fewer if it ends first)."""
    m, rng = engine.new_match(game, seed=seed), random.Random(seed)
    for _ in range(stop):
        if m.over:
            break
        step(m, rng)
    return m


def length(game: str, seed: int) -> int:
    m, rng, n = engine.new_match(game, seed=seed), random.Random(seed), 0
    while not m.over and n < MAX_ACTIONS:
        step(m, rng)
        n += 1
    return n


@pytest.mark.parametrize("how", ROUND_TRIPS)
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**63), at=st.floats(min_value=0.0, max_value=1.0))
def test_a_match_at_a_random_point_round_trips_and_plays_on_identically(
    game: str, how: str, seed: int, at: float
) -> None:
    """A random match stopped at a random point of its length (any phase: bidding, discard, play, a
    later hand after a scored one, the end) comes back equal, field by field, and plays on as the
    original does; the original is unchanged by the round trip."""
    m = played(game, seed, round(at * length(game, seed)))
    before = fields(m)
    other = ROUND_TRIPS[how](m)
    assert type(other) is engine.Match and other is not m
    assert fields(other) == before and fields(m) == before
    assert engine.to_json(other) == engine.to_json(m)
    assert_same_future(m, other, seed + 1)


def test_a_match_waiting_for_its_seats_round_trips() -> None:
    """ALL-2: a match made to wait for its client seeds is a state too; it starts alike afterwards."""
    m = engine.new_match("rough", seed=5, wait=True)
    seeds = ["a", "b", "c", "d"]
    for how, round_trip in ROUND_TRIPS.items():
        other = round_trip(m)
        assert fields(other) == fields(m), how
        started, expected = engine.start(other, seeds), engine.start(m, seeds)
        assert started.phase == "bidding" and fields(started) == fields(expected), how


RECORDS: list[act.Move] = [
    act.PASS,
    act.TrickBid(8, 4),
    act.PointBid(85),
    act.KEEP,
    act.Discard(0b1011),
    act.Play(12),
    act.Play(3, True),
    act.ORDER_UP,
    act.Exchange(7),
    act.NameTrump(2),
    act.CallPartner(40),
    act.GO_ALONE,
    act.DiscardTemplate(2, 0b111100),
]


@pytest.mark.parametrize("how", ROUND_TRIPS)
@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_every_action_record_round_trips(record: act.Move, how: str) -> None:
    """Every kind of action (the legal moves a bot is given, the bids a match keeps) comes back as an
    equal record of its class, its JSON form unchanged."""
    other = ROUND_TRIPS[how](record)
    assert type(other) is type(record) and other == record
    assert other.to_json() == record.to_json()


@pytest.mark.parametrize("how", ROUND_TRIPS)
def test_a_scored_hand_and_the_games_options_round_trip(how: str) -> None:
    """ALL-7's public record of a scored hand (``Match.prev``) and the games' option specs."""
    m, rng = engine.new_match("five_hundred", seed=11), random.Random(11)
    while m.prev is None:
        step(m, rng)
    prev = ROUND_TRIPS[how](m.prev)
    assert type(prev) is LastHand and prev == m.prev and prev.to_json() == m.prev.to_json()
    for game in GAMES:
        specs = engine.game(game).option_specs
        assert ROUND_TRIPS[how](specs) == specs


@pytest.mark.parametrize("how", ROUND_TRIPS)
def test_a_refusal_round_trips_with_its_rule_and_template(how: str) -> None:
    """A refused action crossing a process (a bot's answer) keeps its rule id, code, template and
    params: here a seat speaking out of turn (ALL-1)."""
    m = engine.new_match("rough", seed=2)
    assert m.to_act is not None
    with pytest.raises(engine.IllegalAction) as refused:
        engine.push(m, (m.to_act + 1) % 4, {"type": "pass"})
    assert (refused.value.rule, refused.value.code) == ("ALL-1", "not_your_turn")
    other = ROUND_TRIPS[how](refused.value)
    assert (other.rule, other.code, other.template, other.params, str(other)) == (
        refused.value.rule,
        refused.value.code,
        refused.value.template,
        refused.value.params,
        str(refused.value),
    )


CHILD = """
import pickle, random, sys
import engine
game, seed, stop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
m, rng = engine.new_match(game, seed=seed), random.Random(seed)
for _ in range(stop):
    if m.over:
        break
    engine.push(m, m.to_act, engine.random_move(m, rng))
sys.stdout.buffer.write(engine.BUILD.encode() + b"\\n" + pickle.dumps(m))
"""


@pytest.mark.parametrize("game", GAMES)
def test_a_pickle_of_the_other_build_loads_in_this_one(game: str) -> None:
    """A checkpoint written by the compiled build loads in the plain one and the other way round (a
    trainer on a machine without a C compiler, a debugging session with ``ATOUT_PURE_ENGINE=1``)."""
    other_build = "" if engine.BUILD == "pure" else "1"
    child = subprocess.run(
        [sys.executable, "-c", CHILD, game, "17", "120"],
        cwd=ROOT,
        env={**os.environ, "ATOUT_PURE_ENGINE": other_build, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=120,
        check=True,
    )
    build, data = child.stdout.split(b"\n", 1)
    if other_build == "1" or any(ENGINE.glob("match.*.so")):
        assert build.decode() != engine.BUILD, "the child ran the same build"
    m = played(game, 17, 120)
    loaded = pickle.loads(data)
    assert fields(loaded) == fields(m)
    assert_same_future(m, loaded, 18)
