"""The observation and the mask of a seat are the same from the engine's view and from the live
service's answer, and never depend on a card the seat cannot see (docs/rules.md ALL-7).

Random matches of each game are played through the REST API (a real redis-server, the app under
Starlette's TestClient, as tests/service/test_leaks.py drives them). At every step, for every seat:
its answer from ``GET /v1/games/{id}/view`` (view and legal actions) is encoded and compared with
the encoding of ``engine.view`` and ``engine.legal_actions`` on the match the service stored; the
taker in the middle of a discard is checked with a few cards already picked; and the seat's
observation is computed again on a match whose hidden cards were dealt anew
(``engine.sample_match``): it must not change.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, auth, fill, seated

import engine
from atout.learn.encoding import encode, legal_mask, observation
from atout.learn.spaces import discard_count
from service.api.app import create_app
from service.base.settings import Settings
from service.store.keys import game_key

STEPS = 120
"""Moves per game: several hands of each game (every phase, discards and euchre's exchange)."""


def stored_match(r: redis.Redis, game_id: str) -> engine.Match:
    state = r.hget(game_key(game_id), "state")
    assert isinstance(state, str)
    return engine.from_json(state)


def picks_for(answer: dict[str, object], rng: random.Random) -> list[str]:
    """Some cards of a discard in progress (none when the answer offers no discard)."""
    legal = answer.get("legal_actions") or []
    assert isinstance(legal, list)
    count = discard_count(legal)
    if not count:
        return []
    offered = next(a["choices"] for a in legal if a["type"] == "discard")
    return rng.sample(offered, rng.randrange(count))


@pytest.mark.parametrize("game", ["five_hundred", "rough", "euchre5"])
def test_live_and_engine_encodings_agree_and_ignore_hidden_cards(
    settings: Settings, redis_client: redis.Redis, game: str
) -> None:
    rng = random.Random(f"live:{game}")
    compared = picked_states = 0
    with TestClient(create_app(settings)) as client:
        moves = 0
        while moves < STEPS:  # matches one after the other (a random bid of 100 ends one at once)
            table = seated(client, game, seed=str(rng.randrange(10**9)), options=FAST_OPTIONS[game])
            while moves < STEPS and (m := stored_match(redis_client, table.game_id)).to_act is not None:
                for seat in range(m.players):
                    answer = client.get(
                        f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[seat])
                    ).json()
                    picked = picks_for(answer, rng)
                    live_obs, live_mask = encode(answer, picked)
                    view = engine.view(m, seat)
                    assert np.array_equal(live_obs, observation(view, picked))
                    assert np.array_equal(live_mask, legal_mask(game, engine.legal_actions(m, seat), picked))
                    assert live_mask.any() == (seat == m.to_act)
                    other = engine.sample_match(view, random.Random(rng.random()))
                    assert np.array_equal(observation(engine.view(other, seat), picked), live_obs)
                    assert np.array_equal(
                        legal_mask(game, engine.legal_actions(other, seat), picked), live_mask
                    )
                    compared += 1
                    picked_states += bool(picked)
                seat = m.to_act
                response = table.act(seat, fill(rng.choice(table.legal(seat)), rng))
                assert response.status_code == 200, response.text
                moves += 1
    assert compared >= 4 * STEPS
    if game != "euchre5":  # euchre's exchange is one card: no discard to pick
        assert picked_states > 0
