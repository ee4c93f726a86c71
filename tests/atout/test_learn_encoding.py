"""The fixed action spaces and the observation vectors (atout.learn.spaces, atout.learn.encoding):
every id maps to one engine action and back, the mask is exactly the engine's legal actions (a
discard as picks), the fields tile the vector, and neither the package nor the action spaces pull
numpy into a program that does not ask for it."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import numpy as np
import pytest

import engine
from atout.learn.encoding import choose, describe, encode, layout, legal_mask, observation, size
from atout.learn.spaces import GAMES, action_space, discard_action
from atout.learn.table import Table


@pytest.mark.parametrize("game", GAMES)
def test_every_id_is_one_action_and_back(game: str) -> None:
    space = action_space(game)
    for i in range(space.size):
        assert space.index(space.action(i)) == i
    assert [b.start for b in space.blocks] == [0, *(b.stop for b in space.blocks[:-1])]
    assert space.blocks[-1].stop == space.size
    text = space.describe()
    assert all(b.name in text for b in space.blocks)
    with pytest.raises(ValueError):
        space.action(space.size)
    with pytest.raises(ValueError):
        space.index({"type": "play", "card": "2S"})


@pytest.mark.parametrize("game", GAMES)
def test_fields_tile_the_vector_and_are_described(game: str) -> None:
    fields = layout(game)
    assert fields[0].start == 0
    for before, after in itertools.pairwise(fields):
        assert after.start == before.start + before.size
    assert fields[-1].start + fields[-1].size == size(game)
    text = describe(game)
    assert all(f.name in text for f in fields)


@pytest.mark.parametrize("game", GAMES)
def test_the_mask_is_the_engines_legal_actions(game: str) -> None:
    """Over random matches: the legal ids decode to exactly the engine's legal actions (the discard:
    one pick per card of its template), the vector stays in its bounds, and ``choose`` answers an
    action the engine takes (a discard as one action of the picked cards)."""
    rng = random.Random(game)
    space = action_space(game)
    discards = 0
    for seed in range(3):
        m = engine.new_match(game, seed=seed)
        for _ in range(250):
            seat = m.to_act
            if seat is None:
                break
            legal = engine.legal_actions(m, seat)
            ids = np.flatnonzero(legal_mask(game, legal))
            decoded = [space.action(int(i)) for i in ids]
            template = next((a for a in legal if a["type"] == "discard"), None)
            if template is not None:
                assert sorted(a["card"] for a in decoded) == sorted(template["choices"])
                discards += 1
            else:
                assert sorted(map(str, decoded)) == sorted(map(str, legal))
            x = observation(engine.view(m, seat))
            assert x.dtype == np.float32 and x.shape == (size(game),)
            assert x.min() >= -1.0 and x.max() <= 1.0
            answer = {"view": engine.view(m, seat), "legal_actions": legal}
            action = choose(answer, lambda _x, mask: int(rng.choice(np.flatnonzero(mask))))
            engine.push(m, seat, action)
    assert discards > 0 or game == "euchre5"


def test_picks_show_in_the_observation_and_leave_the_mask() -> None:
    table = Table.new("rough", seed=5)
    while table.match.phase != "discard":
        seat = table.to_act
        assert seat is not None
        legal = table.legal_actions(seat)
        bids = [a for a in legal if a["type"] == "bid"]
        table.push(seat, bids[0] if bids else legal[0])
    taker = table.to_act
    assert taker is not None
    space = action_space("rough")
    hand = table.view(taker)["hand"]
    before, _ = table.observe(taker)
    table.step(space.pick(hand[0]))
    after, mask = table.observe(taker)
    picked = next(f for f in layout("rough") if f.name == "picked")
    card = space.cards.index(hand[0])
    assert before[picked.start + card] == 0 and after[picked.start + card] == 1
    assert mask[space.pick(hand[0])] == 0 and mask.sum() == len(hand) - 1
    other = (taker + 1) % 4
    assert not table.observe(other)[0][picked.start : picked.start + picked.size].any()  # hidden
    for code in hand[1:4]:
        table.step(space.pick(code))
    assert table.match.phase == "play" and sorted(table.view(taker)["my_discards"]) == sorted(hand[:4])
    assert discard_action(hand[:4]) == {"type": "discard", "cards": sorted(hand[:4])}
    with pytest.raises(ValueError):
        discard_action(["AS", "AS"])


def test_an_api_answer_and_its_view_encode_alike() -> None:
    m = engine.new_match("euchre5", seed=2)
    seat = m.to_act
    assert seat is not None
    view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
    obs, mask = encode({"game_id": "x", "version": 0, "seat": seat, "view": view, "legal_actions": legal})
    assert np.array_equal(obs, observation(view)) and np.array_equal(mask, legal_mask("euchre5", legal))
    with pytest.raises(ValueError, match="spectator"):
        observation(engine.view(m, None))


def test_atout_and_the_action_spaces_import_no_numpy() -> None:
    code = "import sys, atout, atout.learn, atout.learn.spaces; assert 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
