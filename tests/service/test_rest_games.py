"""REST: creating, listing and joining games; seat tokens; rules."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import auth, create, seated

from service.store.keys import game_key

PROBLEM = "application/problem+json"


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status
    assert body["title"] and body["detail"]
    return body


def test_rules_list_the_three_games_with_options(client: TestClient) -> None:
    games = client.get("/v1/rules").json()["games"]
    assert set(games) == {"five_hundred", "rough", "euchre5"}
    assert games["euchre5"]["players"] == 5
    assert games["rough"]["options"]["target_score"]["default_value"] == 350


def test_a_new_game_waits_for_players_and_is_listed(client: TestClient) -> None:
    created = create(client, "rough", seats=["open", "bot:random", "open", "open"])
    game = created["game"]
    assert game["status"] == "waiting" and game["version"] == 0 and game["to_act"] is None
    kinds = [(s["seat_kind"], s["bot_level"]) for s in game["seats"]]
    assert kinds == [("open", None), ("bot", "random"), ("open", None), ("open", None)]
    assert game["seed"] is None and created["invite_code"] is None
    listed = client.get("/v1/games").json()["games"]
    assert [g["game_id"] for g in listed] == [game["game_id"]]


def test_default_seats_are_all_open(client: TestClient) -> None:
    game = create(client, "euchre5")["game"]
    assert [s["seat_kind"] for s in game["seats"]] == ["open"] * 5


def test_joining_every_seat_starts_the_game_and_unlists_it(client: TestClient) -> None:
    table = seated(client, "five_hundred", seed="5")
    game = table.game()
    assert game["status"] == "active" and game["to_act"] in range(4)
    assert all(s["filled"] for s in game["seats"])
    assert client.get("/v1/games").json()["games"] == []


def test_join_without_a_seat_takes_the_first_open_one(client: TestClient) -> None:
    gid = create(client, "rough", seats=["bot:random", "open", "open", "open"])["game"]["game_id"]
    response = client.post(f"/v1/games/{gid}/join", json={})
    assert response.status_code == 201
    body = response.json()
    assert body["seat"] == 1 and body["started"] is False and len(body["token"]) >= 32


def test_seat_tokens_are_stored_only_hashed(client: TestClient, redis_client: redis.Redis) -> None:
    gid = create(client, "rough")["game"]["game_id"]
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 2}).json()["token"]
    stored = redis_client.hgetall(game_key(gid))
    assert all(token not in str(value) for value in stored.values())
    assert client.get(f"/v1/games/{gid}/view", headers=auth(token)).json()["seat"] == 2


def test_a_taken_seat_is_409_seat_taken(client: TestClient) -> None:
    gid = create(client, "rough")["game"]["game_id"]
    client.post(f"/v1/games/{gid}/join", json={"seat": 0})
    problem(client.post(f"/v1/games/{gid}/join", json={"seat": 0}), 409, "seat_taken")


def test_a_bot_seat_cannot_be_joined(client: TestClient) -> None:
    gid = create(client, "rough", seats=["bot:random", "open", "open", "open"])["game"]["game_id"]
    problem(client.post(f"/v1/games/{gid}/join", json={"seat": 0}), 409, "seat_taken")


def test_joining_a_full_game_is_409_game_full(client: TestClient) -> None:
    table = seated(client, "rough")
    problem(client.post(f"/v1/games/{table.game_id}/join", json={}), 409, "game_full")


def test_a_seat_beyond_the_table_is_422_invalid_seats(client: TestClient) -> None:
    gid = create(client, "rough")["game"]["game_id"]
    problem(client.post(f"/v1/games/{gid}/join", json={"seat": 4}), 422, "invalid_seats")


def test_joining_a_missing_game_is_404(client: TestClient) -> None:
    problem(client.post("/v1/games/nope/join", json={}), 404, "game_not_found")


def test_a_private_game_is_unlisted_and_needs_its_invite_code(client: TestClient) -> None:
    created = create(client, "rough", listed=False)
    gid, code = created["game"]["game_id"], created["invite_code"]
    assert code and client.get("/v1/games").json()["games"] == []
    problem(client.post(f"/v1/games/{gid}/join", json={}), 403, "invalid_invite")
    problem(client.post(f"/v1/games/{gid}/join", json={"invite_code": "guess"}), 403, "invalid_invite")
    assert client.post(f"/v1/games/{gid}/join", json={"invite_code": code}).status_code == 201


def test_the_wrong_number_of_seats_is_422_invalid_seats(client: TestClient) -> None:
    body = problem(
        client.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 5}), 422, "invalid_seats"
    )
    assert "4" in body["detail"]


def test_an_unknown_game_is_422_invalid_request(client: TestClient) -> None:
    body = problem(client.post("/v1/games", json={"game": "bridge"}), 422, "invalid_request")
    assert body["errors"][0]["loc"] == ["kind"]


def test_an_unknown_seat_kind_is_422_invalid_request(client: TestClient) -> None:
    problem(
        client.post("/v1/games", json={"kind": "rough", "seats": ["bot:genius"] * 4}), 422, "invalid_request"
    )


def test_bad_options_are_422_invalid_options_naming_the_rule(client: TestClient) -> None:
    body = problem(
        client.post("/v1/games", json={"kind": "rough", "options": {"target_score": 7}}),
        422,
        "invalid_options",
    )
    assert body["rule"]


def test_a_body_that_is_not_json_is_400_malformed_body(client: TestClient) -> None:
    response = client.post("/v1/games", content=b"{nope", headers={"content-type": "application/json"})
    problem(response, 400, "malformed_body")


def test_a_body_that_is_not_an_object_is_422(client: TestClient) -> None:
    problem(client.post("/v1/games", json=[1, 2]), 422, "invalid_request")


def test_an_explicit_deal_needs_the_admin_token(client: TestClient) -> None:
    deal = {"dealer": 0, "hands": [["AS"]] * 4, "kitty": []}
    problem(client.post("/v1/games", json={"kind": "rough", "deal": deal}), 403, "admin_required")


@pytest.mark.parametrize(
    "deal",
    [
        {"anything": "at all"},
        {"dealer": 0, "hands": [["AS"]] * 4, "kitty": [], "extra": 1},
        {"dealer": "0", "hands": [["AS"]] * 4},
        {"dealer": 9, "hands": [["AS"]] * 4},
        {"dealer": 0, "hands": [["ZZ"]] * 4},
        {"dealer": 0, "hands": [["AS"] * 14] * 4},
        {"dealer": 0, "hands": [["AS"]] * 6},
        {"dealer": 0, "hands": "AS KS"},
    ],
)
def test_an_explicit_deal_is_typed_a_malformed_one_is_422_naming_the_field(
    client: TestClient, admin_token: str, deal: dict[str, Any]
) -> None:
    """ALL-3: the contract says a deal's shape; a body of another shape never reaches the engine."""
    response = client.post("/v1/games", json={"kind": "rough", "deal": deal}, headers=auth(admin_token))
    body = problem(response, 422, "invalid_request")
    assert body["errors"][0]["loc"][:2] == ["body", "deal"] or "deal" in body["errors"][0]["loc"]


def test_a_bad_explicit_deal_is_422_invalid_deal(client: TestClient, admin_token: str) -> None:
    deal = {"dealer": 0, "hands": [["AS"]] * 4, "kitty": []}
    response = client.post("/v1/games", json={"kind": "rough", "deal": deal}, headers=auth(admin_token))
    problem(response, 422, "invalid_deal")


def test_the_admin_may_create_a_game_with_an_explicit_deal_and_see_the_seed(
    client: TestClient, admin_token: str
) -> None:
    import engine

    m = engine.new_match("euchre5", seed=3)
    hands = [e["cards"] for e in m.events if e["type"] == "dealt"]
    upcard = next(e["card"] for e in m.events if e["type"] == "upcard")
    deck = set(engine.games()["euchre5"]["deck"])
    kitty = [upcard, *sorted(deck - {c for h in hands for c in h} - {upcard})]
    deal = {"dealer": 4, "hands": hands, "kitty": kitty}
    response = client.post(
        "/v1/games", json={"kind": "euchre5", "deal": deal, "seed": "9"}, headers=auth(admin_token)
    )
    assert response.status_code == 201, response.text
    gid = response.json()["game"]["game_id"]
    assert client.get(f"/v1/games/{gid}", headers=auth(admin_token)).json()["seed"] == "9"  # a decimal string
    assert client.get(f"/v1/games/{gid}").json()["seed"] is None
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 1}).json()["token"]
    # nothing is dealt while the game waits for players (docs/fairness.md); the deal comes at the start
    assert client.get(f"/v1/games/{gid}/view", headers=auth(token)).json()["view"]["hand"] == []
    for seat in (0, 2, 3, 4):
        assert client.post(f"/v1/games/{gid}/join", json={"seat": seat}).status_code == 201
    assert set(client.get(f"/v1/games/{gid}/view", headers=auth(token)).json()["view"]["hand"]) == set(
        hands[1]
    )


def test_an_unknown_game_id_is_404_game_not_found(client: TestClient) -> None:
    for path in (
        "/v1/games/missing",
        "/v1/games/missing/view",
        "/v1/games/missing/log",
        "/v1/games/a%7Bb%7D",
    ):
        problem(client.get(path), 404, "game_not_found")


def test_list_limit_out_of_range_is_422(client: TestClient) -> None:
    problem(client.get("/v1/games?limit=0"), 422, "invalid_request")
    problem(client.get("/v1/games?limit=abc"), 422, "invalid_request")


def test_a_token_of_another_game_is_401_invalid_token(client: TestClient) -> None:
    one = seated(client, "rough")
    other = seated(client, "rough")
    problem(
        client.get(f"/v1/games/{one.game_id}/actions", headers=auth(other.tokens[0])), 401, "invalid_token"
    )


def test_a_non_bearer_authorization_is_401_invalid_token(client: TestClient) -> None:
    table = seated(client, "rough")
    response = client.get(f"/v1/games/{table.game_id}/view", headers={"Authorization": "Basic abc"})
    body = problem(response, 401, "invalid_token")
    assert "Bearer" in body["detail"] and response.headers["www-authenticate"] == "Bearer"
