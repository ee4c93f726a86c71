"""A player named by the app's identity provider (issue 23), through the API: a JWT of a trusted issuer
is a player's credential on every player operation and every seat its player holds; each refusal of
the verifier (tests/service/test_jwt_identity.py checks them one by one) is answered with its own code;
a guest links to an identity and the two credentials are one player. Real JWKS server on loopback,
real keys, real Redis."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, auth, create, fill
from test_jwt_identity import AUDIENCE, ISSUER, JwksServer, Keys, handmade, jwks, keys, pem, sign

from service.api.app import create_app
from service.base.issuers import JwtIssuer
from service.base.settings import Settings

__all__ = ["keys"]  # the module-scoped keys fixture, shared with the verifier's tests


@pytest.fixture
def jwks_server(keys: Keys) -> Iterator[JwksServer]:
    server = JwksServer()
    server.document = jwks(keys.rsa, keys.ec, keys.ed)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def app_client(settings: Settings, jwks_server: JwksServer) -> Iterator[TestClient]:
    trusted = {"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": jwks_server.url}
    with TestClient(
        create_app(settings.model_copy(update={"jwt_issuers": [JwtIssuer.model_validate(trusted)]}))
    ) as client:
        yield client


def test_each_algorithm_names_one_player_who_lasts(app_client: TestClient, keys: Keys) -> None:
    ids = set()
    for alg in ("RS256", "ES256", "EdDSA"):
        token = sign(keys.signer(alg), alg, sub="ada", name="Ada L.")
        me = app_client.get("/v1/me", headers=auth(token))
        assert me.status_code == 200, me.text
        body = me.json()
        assert body["guest"] is False and body["identity"] == {"issuer": ISSUER, "subject": "ada"}
        assert body["name"] == "Ada L."
        ids.add(body["player_id"])
    assert len(ids) == 1  # three tokens, one identity, one player
    other = app_client.get("/v1/me", headers=auth(sign(keys.rsa, sub="grace"))).json()
    assert other["player_id"] not in ids and other["name"] == "Player"


@pytest.mark.parametrize(
    ("claims", "code"),
    [
        ({"exp": int(time.time()) - 3600}, "token_expired"),
        ({"nbf": int(time.time()) + 3600}, "token_not_yet_valid"),
        ({"aud": "someone-else"}, "token_wrong_audience"),
        ({"iss": "https://stranger.example"}, "token_unknown_issuer"),
    ],
)
def test_a_refused_jwt_is_answered_with_its_own_code(
    app_client: TestClient, keys: Keys, claims: dict[str, Any], code: str
) -> None:
    refused = app_client.get("/v1/me", headers=auth(sign(keys.rsa, **claims)))
    assert refused.status_code == 401 and refused.json()["code"] == code, refused.text
    assert refused.headers["WWW-Authenticate"].startswith("Bearer")


def test_confused_and_forged_jwts_are_refused_on_seats_too(app_client: TestClient, keys: Keys) -> None:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "ada", "iat": now, "exp": now + 300}
    none = handmade({"alg": "none"}, claims, None)
    confused = handmade({"alg": "HS256", "kid": "rsa-1"}, claims, pem(keys.rsa).encode())
    forged = sign(keys.rsa_forger, sub="ada")
    unknown = sign(keys.rsa, kid="rsa-unknown", sub="ada")
    gid = create(app_client, "rough")["game"]["game_id"]
    for token, code in [
        (none, "token_algorithm_refused"),
        (confused, "token_algorithm_refused"),
        (forged, "token_bad_signature"),
        (unknown, "token_unknown_key"),
    ]:
        me = app_client.get("/v1/me", headers=auth(token))
        assert me.status_code == 401 and me.json()["code"] == code, (code, me.text)
        join = app_client.post(f"/v1/games/{gid}/join", json={}, headers=auth(token))
        assert join.status_code == 401 and join.json()["code"] == code, (code, join.text)
        view = app_client.get(f"/v1/games/{gid}/view", headers=auth(token))
        assert view.status_code == 401 and view.json()["code"] == code, (code, view.text)


def test_an_identity_provider_down_before_any_key_is_a_503_with_retry_after(
    settings: Settings, keys: Keys
) -> None:
    down = JwksServer()
    down.start()
    url = down.url
    down.stop()  # nothing listens there any more
    trusted = {"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": url}
    with TestClient(
        create_app(settings.model_copy(update={"jwt_issuers": [JwtIssuer.model_validate(trusted)]}))
    ) as client:
        answer = client.get("/v1/me", headers=auth(sign(keys.rsa)))
    assert answer.status_code == 503 and answer.json()["code"] == "identity_provider_unavailable"
    assert int(answer.headers["Retry-After"]) > 0


def test_one_identity_plays_one_game_from_two_devices(
    app_client: TestClient, keys: Keys, rng: random.Random
) -> None:
    """Each device holds its own JWT of the same identity (issued at another time): one seat."""
    phone = sign(keys.rsa, sub="ada", iat=int(time.time()) - 5)
    tablet = sign(keys.ec, "ES256", sub="ada")
    assert phone != tablet
    created = create(app_client, "rough", options=FAST_OPTIONS["rough"])
    gid = created["game"]["game_id"]
    tokens: dict[int, str] = {}
    for seat in range(4):
        joined = app_client.post(
            f"/v1/games/{gid}/join", json={"seat": seat}, headers=auth(phone) if seat == 1 else {}
        )
        assert joined.status_code == 201, joined.text
        tokens[seat] = joined.json()["token"]
    devices = [phone, tablet]
    used = [0, 0]
    for _ in range(3000):
        game = app_client.get(f"/v1/games/{gid}").json()
        if game["status"] == "finished":
            break
        seat = game["to_act"]
        if seat == 1:
            device = rng.randrange(2)
            token = devices[device]
            used[device] += 1
        else:
            token = tokens[seat]
        legal = app_client.get(f"/v1/games/{gid}/view", headers=auth(token)).json()["legal_actions"]
        moved = app_client.post(
            f"/v1/games/{gid}/actions",
            json={"action": fill(rng.choice(legal), rng), "expected_version": game["version"]},
            headers=auth(token),
        )
        assert moved.status_code == 200, moved.text
    assert app_client.get(f"/v1/games/{gid}").json()["status"] == "finished" and min(used) > 0
    mine = app_client.get("/v1/me/games", headers=auth(tablet)).json()["games"]
    assert [(g["game_id"], g["seat"], g["status"]) for g in mine] == [(gid, 1, "finished")]


def test_a_guest_links_to_an_identity_and_both_are_one_player(app_client: TestClient, keys: Keys) -> None:
    guest = app_client.post("/v1/players", json={"name": "Guest"}).json()
    gid = create(app_client, "rough")["game"]["game_id"]
    assert app_client.post(f"/v1/games/{gid}/join", json={}, headers=auth(guest["token"])).status_code == 201
    jwt = sign(keys.rsa, sub="linked-one")
    linked = app_client.post("/v1/me/identity", json={"identity_token": jwt}, headers=auth(guest["token"]))
    assert linked.status_code == 200, linked.text
    assert linked.json()["guest"] is False and linked.json()["player_id"] == guest["player_id"]
    assert app_client.get("/v1/me", headers=auth(jwt)).json()["player_id"] == guest["player_id"]
    seat = app_client.get(f"/v1/games/{gid}/view", headers=auth(jwt))
    assert seat.status_code == 200 and seat.json()["seat"] == 0  # the identity holds the guest's seat
    # an identity with a player of its own cannot be linked to another guest, nor a linked one again
    taken = sign(keys.rsa, sub="someone")
    assert app_client.get("/v1/me", headers=auth(taken)).status_code == 200
    other = app_client.post("/v1/players", json={}).json()
    refused = app_client.post("/v1/me/identity", json={"identity_token": taken}, headers=auth(other["token"]))
    assert refused.status_code == 409 and refused.json()["code"] == "identity_taken"
    again = app_client.post("/v1/me/identity", json={"identity_token": taken}, headers=auth(guest["token"]))
    assert again.status_code == 409 and again.json()["code"] == "identity_taken"
    not_jwt = app_client.post("/v1/me/identity", json={"identity_token": "abc"}, headers=auth(other["token"]))
    assert not_jwt.status_code == 401 and not_jwt.json()["code"] == "invalid_token"
    bad = app_client.post("/v1/me/identity", json={}, headers=auth(other["token"]))
    assert bad.status_code == 422 and bad.json()["errors"][0]["loc"][-1] == "identity_token"
