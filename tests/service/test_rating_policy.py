"""The rating-farming policy (issue 32; docs/apps.md "Ratings", docs/operations.md): an established
account that beats provisional accounts moves by ``rating_newcomer_weight`` of its change, the
provisional accounts in full; with ``ATOUT_RATED_IDENTITIES=identified`` a guest player cannot sit at a
rated table, while a player signed in with a trusted issuer's JWT and a bot account can. Checked against
openskill computed here. Real Redis, real HTTP, a real JWKS server on loopback."""

from __future__ import annotations

import random

import pytest
from starlette.testclient import TestClient
from svc_helpers import auth
from test_jwt_identity import AUDIENCE, ISSUER, JwksServer, Keys, keys, sign
from test_player_identity import jwks_server
from test_ratings import START, _final_scores, bot_account, expected, guest, rated_table, rating

from service.api.app import create_app
from service.base.issuers import JwtIssuer
from service.base.settings import Settings
from service.games.ratings import Placing, newcomer_weights

__all__ = ["jwks_server", "keys"]  # the fixtures of the identity tests, shared


def test_only_an_established_account_facing_a_provisional_opponent_is_weighted() -> None:
    places = [
        Placing("player:a", 0, 1, False),
        Placing("player:b", 1, 2, False),
        Placing("player:c", 0, 1, False),
    ]
    stored = [{"matches": "5"}, {"matches": "0"}, {}]
    assert newcomer_weights(places, stored, 5, 0.1) == [0.1, 1.0, 1.0]
    # a provisional partner is no opponent: ``a`` moves in full, its opponents (facing ``c``) do not
    four = [*places, Placing("player:d", 1, 2, False)]
    assert newcomer_weights(four, [{"matches": "5"}, {"matches": "9"}, {}, {"matches": "7"}], 5, 0.1) == [
        1.0,
        0.1,
        1.0,
        0.1,
    ]


@pytest.fixture
def farm_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"rating_provisional_matches": 1, "rating_repeat_full": 100, "rating_repeat_max": 100}
    )


def test_farming_fresh_guests_moves_an_established_rating_by_the_newcomer_weight_only(
    farm_settings: Settings, rng: random.Random
) -> None:
    """Five established euchre accounts, then two of them meet three fresh guests (ranked by final
    score, E5-12): the two move by 0.1 of openskill's change, the guests in full."""
    with TestClient(create_app(farm_settings)) as client:
        regulars = [guest(client, f"r{i}") for i in range(5)]
        rated_table(client, "euchre5", [p["token"] for p in regulars]).play_random(rng)
        states = {
            f"player:{p['player_id']}": (
                rating(client, "euchre5", f"player:{p['player_id']}")["rating"]["mu"],
                rating(client, "euchre5", f"player:{p['player_id']}")["rating"]["sigma"],
            )
            for p in regulars[:2]
        }
        puppets = [guest(client, f"puppet{i}") for i in range(3)]
        seats = [regulars[0], puppets[0], regulars[1], puppets[1], puppets[2]]
        final = rated_table(client, "euchre5", [p["token"] for p in seats]).play_random(rng)
        log = client.get(f"/v1/games/{final['game_id']}/log").json()
        scores = _final_scores(client, final["game_id"], log)
        ranks = [1 + sum(1 for t in scores if t > s) for s in scores]
        accounts = [f"player:{p['player_id']}" for p in seats]
        before = [states.get(a, START) for a in accounts]
        full = expected([[b] for b in before], ranks)
        for seat, account in enumerate(accounts):
            weight = 0.1 if account in states else 1.0
            mu0, sigma0 = before[seat]
            got = rating(client, "euchre5", account)
            assert got["history"][0]["weight"] == pytest.approx(weight)
            assert got["rating"]["mu"] == pytest.approx(mu0 + weight * (full[seat][0][0] - mu0))
            assert got["rating"]["sigma"] == pytest.approx(sigma0 + weight * (full[seat][0][1] - sigma0))


def test_an_identified_only_server_seats_no_guest_at_a_rated_table(
    settings: Settings, jwks_server: JwksServer, keys: Keys
) -> None:
    trusted = JwtIssuer.model_validate({"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": jwks_server.url})
    strict = settings.model_copy(update={"jwt_issuers": [trusted], "rated_identities": "identified"})
    with TestClient(create_app(strict)) as client:
        table = rated_table(client, "rough", [])
        refused = client.post(
            f"/v1/games/{table.game_id}/join", json={"seat": 0}, headers=auth(guest(client, "g")["token"])
        )
        assert refused.status_code == 403 and refused.json()["code"] == "rated_needs_identity"
        assert "identity provider" in refused.json()["detail"]
        signed_in = client.post(
            f"/v1/games/{table.game_id}/join", json={"seat": 0}, headers=auth(sign(keys.rsa, sub="ada"))
        )
        assert signed_in.status_code == 201, signed_in.text
        bot = client.post(
            f"/v1/games/{table.game_id}/join",
            json={"seat": 1},
            headers=auth(bot_account(client, "b")["api_key"]),
        )
        assert bot.status_code == 201, bot.text
    with TestClient(create_app(settings)) as client:  # the default, `any`: a guest sits
        table = rated_table(client, "rough", [guest(client, "g")["token"]])
        assert 0 in table.tokens
