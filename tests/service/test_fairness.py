"""Deals nobody can predict, that anyone can verify (docs/fairness.md), through the service on a
real redis-server: who may choose a seed, the commitment before the deal, client seeds, the replay
log that verifies (engine.verify_log and ``atout verify``) and the rematch drawn afresh.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, atout_verify, auth

import engine
from engine import fair
from service.games.lobby import Lobby
from service.store import Store
from service.store.keys import events_key
from service.store.records import GameStart, StartChanged

CREATE = """mutation($input: CreateGameInput!) {
  createGame(input: $input) { game { gameId commitment seed } inviteCode }
}"""
JOIN = """mutation($id: ID!, $seat: Int, $seed: String!) {
  joinGame(input: {gameId: $id, seat: $seat, clientSeed: $seed}) { seat token started }
}"""


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    return body


def gql(client: TestClient, query: str, token: str | None = None, **variables: Any) -> dict[str, Any]:
    response = client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=auth(token) if token else {}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def new_game(client: TestClient, game: str = "rough", **body: Any) -> dict[str, Any]:
    headers = body.pop("headers", {})
    response = client.post("/v1/games", json={"kind": game, **body}, headers=headers)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()["game"]
    return created


def seat_all(client: TestClient, gid: str, seeds: list[str]) -> Table:
    table = Table(client, gid)
    for seat, seed in enumerate(seeds):
        response = client.post(f"/v1/games/{gid}/join", json={"seat": seat, "client_seed": seed})
        assert response.status_code == 201, response.text
        table.tokens[seat] = response.json()["token"]
    return table


def stream(redis_client: redis.Redis, gid: str) -> list[dict[str, Any]]:
    entries: Any = redis_client.xrange(events_key(gid))
    return [json.loads(fields["e"]) for _id, fields in entries]


def finished_log(client: TestClient, seeds: list[str], rng: random.Random) -> tuple[dict[str, Any], str]:
    """A Le Rough match played to its end through REST; its replay log and its creation commitment."""
    created = new_game(client, options=FAST_OPTIONS["rough"])
    table = seat_all(client, created["game_id"], seeds)
    assert table.play_random(rng)["status"] == "finished"
    response = client.get(f"/v1/games/{created['game_id']}/log")
    assert response.status_code == 200, response.text
    log: dict[str, Any] = response.json()
    return log, created["commitment"]


# ----- finding 2: nobody but the administrator chooses a seed or a deal ---------------------------


def test_the_administrators_seed_is_a_decimal_string_and_an_integer_is_refused_saying_where(
    client: TestClient, admin_token: str
) -> None:
    """v1 has one type for a seed (CHANGELOG, "Types"): the pre-release integer is refused, not read."""
    refused = problem(
        client.post("/v1/games", json={"kind": "rough", "seed": 12345}, headers=auth(admin_token)),
        422,
        "invalid_request",
    )
    assert [error["loc"] for error in refused["errors"]] == [["seed"]], refused
    created = client.post("/v1/games", json={"kind": "rough", "seed": "12345"}, headers=auth(admin_token))
    assert created.status_code == 201, created.text


def test_without_the_admin_token_no_seed_and_no_deal_can_be_chosen_over_rest(
    client: TestClient, admin_token: str
) -> None:
    problem(client.post("/v1/games", json={"kind": "rough", "seed": "12345"}), 403, "admin_required")
    player = client.post(f"/v1/games/{new_game(client)['game_id']}/join", json={}).json()["token"]
    refused = client.post("/v1/games", json={"kind": "rough", "seed": "12345"}, headers=auth(player))
    problem(refused, 401, "invalid_token")  # a seat token is no credential createGame takes
    ref = engine.new_match("rough", seed=1)
    deal = {
        "dealer": 0,
        "hands": [engine.cards.codes_of(h) for h in ref.dealt],
        "kitty": [engine.cards.CODES[c] for c in ref.kitty_dealt],
    }
    problem(client.post("/v1/games", json={"kind": "rough", "deal": deal}), 403, "admin_required")
    chosen = new_game(client, seed="12345", headers=auth(admin_token))
    assert client.get(f"/v1/games/{chosen['game_id']}", headers=auth(admin_token)).json()["seed"] == "12345"
    assert new_game(client, deal=deal, headers=auth(admin_token))["status"] == "waiting"


def test_without_the_admin_token_no_seed_and_no_deal_can_be_chosen_over_graphql(
    client: TestClient, admin_token: str
) -> None:
    for extra in ({"seed": "12345"}, {"deal": {"dealer": 0, "hands": [["AS"]] * 4, "kitty": []}}):
        body = gql(client, CREATE, input={"kind": "ROUGH", **extra})
        assert body["errors"][0]["extensions"]["code"] == "admin_required", body
    body = gql(client, CREATE, admin_token, input={"kind": "ROUGH", "seed": "12345"})
    assert "errors" not in body, body
    assert body["data"]["createGame"]["game"]["commitment"] == fair.match_commitment(fair.key_of_int(12345))


def test_a_game_created_without_a_seed_is_not_the_int_seed_deal(client: TestClient) -> None:
    """The attack of finding 2: engine.new_match("rough", seed=12345) must not predict the hands."""
    created = new_game(client)
    table = seat_all(client, created["game_id"], [""] * 4)
    viewed = client.get(f"/v1/games/{created['game_id']}/view", headers=auth(table.tokens[0]))
    mine = viewed.json()["view"]["hand"]
    guesses = {tuple(engine.view(engine.new_match("rough", seed=s), 0)["hand"]) for s in range(200)}
    assert tuple(mine) not in guesses


# ----- commit before the deal, client seeds, no hand while waiting ----------------------------------


def test_the_commitment_is_in_the_stream_before_any_deal(
    client: TestClient, redis_client: redis.Redis
) -> None:
    created = new_game(client)
    gid = created["game_id"]
    seeds = ["red", "", "blue", "green"]
    for seat in range(3):
        assert client.post(
            f"/v1/games/{gid}/join", json={"seat": seat, "client_seed": seeds[seat]}
        ).is_success
    events = stream(redis_client, gid)
    assert events[0] == {
        "type": "game_created",
        "kind": "rough",
        "seats": ["open"] * 4,
        "commitment": created["commitment"],
    }
    assert not [e for e in events if e["type"] in ("dealt", "hand_commitment", "hand_started")], (
        "nothing dealt yet"
    )
    assert client.post(f"/v1/games/{gid}/join", json={"seat": 3, "client_seed": seeds[3]}).json()["started"]
    kinds = [e["type"] for e in stream(redis_client, gid)]
    started = kinds.index("game_started")
    assert kinds[started + 1 : started + 3] == ["hand_commitment", "hand_started"]
    assert kinds.index("dealt") > kinds.index("hand_commitment")
    assert stream(redis_client, gid)[started] == {"type": "game_started", "client_seeds": seeds}


def test_no_seat_sees_a_hand_while_the_game_waits(client: TestClient) -> None:
    gid = new_game(client)["game_id"]
    tokens = [client.post(f"/v1/games/{gid}/join", json={"seat": s}).json()["token"] for s in range(3)]
    for token in tokens:
        view = client.get(f"/v1/games/{gid}/view", headers=auth(token)).json()["view"]
        assert view["hand"] == [] and view["hand_sizes"] == [0, 0, 0, 0] and view["phase"] == "waiting"


def test_client_seeds_change_the_deal(client: TestClient, admin_token: str) -> None:
    """Same key (an administrator's seed), other client seeds: another deal; same seeds: the same."""

    def hand(seeds: list[str]) -> list[str]:
        gid = new_game(client, seed="77", headers=auth(admin_token))["game_id"]
        token = seat_all(client, gid, seeds).tokens[0]
        cards: list[str] = client.get(f"/v1/games/{gid}/view", headers=auth(token)).json()["view"]["hand"]
        return cards

    assert hand(["", "", "", ""]) == hand(["", "", "", ""])
    assert hand(["", "", "", ""]) != hand(["", "", "", "mine"])


def test_a_client_seed_is_short_printable_ascii(client: TestClient) -> None:
    gid = new_game(client)["game_id"]
    for bad in ("x" * 65, "tab\there", "é"):
        problem(client.post(f"/v1/games/{gid}/join", json={"client_seed": bad}), 422, "invalid_request")
    body = gql(client, JOIN, id=gid, seat=0, seed="x" * 65)
    assert body["errors"][0]["extensions"]["code"] == "invalid_request"
    assert "errors" not in gql(client, JOIN, id=gid, seat=0, seed="ok " * 3)
    rematch = (
        "mutation($id: ID!, $seed: String!) { rematchGame(input: {gameId: $id, clientSeed: $seed}) { seat } }"
    )
    body = gql(client, rematch, id=gid, seed="\u0000")
    assert body["errors"][0]["extensions"]["code"] == "invalid_request"
    problem(client.post(f"/v1/games/{gid}/rematch", json={"client_seed": "x" * 65}), 422, "invalid_request")


def test_racing_last_joins_start_the_game_once_with_the_seeds_of_its_seats(
    client: TestClient, admin_token: str
) -> None:
    """The start is computed from the seeds read; the join script writes it only if they still hold."""
    gid = new_game(client, "euchre5")["game_id"]
    seeds = [f"s{n}" for n in range(12)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(
            pool.map(lambda s: client.post(f"/v1/games/{gid}/join", json={"client_seed": s}), seeds)
        )
    seated = {r.json()["seat"]: s for r, s in zip(results, seeds, strict=True) if r.status_code == 201}
    assert sorted(seated) == [0, 1, 2, 3, 4]
    assert sum(r.json()["started"] for r in results if r.status_code == 201) == 1
    log = client.get(f"/v1/games/{gid}/log", headers=auth(admin_token)).json()
    assert log["client_seeds"] == [seated[s] for s in range(5)]
    first = log["hands"][0]
    seed = fair.hand_seed_of(bytes.fromhex(log["key"]), 1, log["client_seeds"])
    assert first["commitment"] == fair.hand_commitment(seed) and first["seed"] is None


def test_the_join_script_refuses_a_start_computed_from_stale_seeds(
    redis_url: str, client: TestClient
) -> None:
    gid = new_game(client)["game_id"]
    for seat in range(3):
        assert client.post(f"/v1/games/{gid}/join", json={"seat": seat, "client_seed": f"c{seat}"}).is_success

    async def scenario() -> None:
        store = Store.from_url(redis_url, abandoned_ttl=600, finished_ttl=600, idempotency_ttl=60)
        try:
            for start in (None, GameStart("{}", ["c0", "STALE", "c2", "d"], ["{}"])):
                try:
                    await store.games.join(gid, 3, "h", "late", client_seed="d", start=start)
                except StartChanged:
                    continue
                raise AssertionError("a start from other seeds was written")
            record = await store.games.load(gid)
            assert record is not None and record.status == "waiting" and record.seats[3].is_open
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_join_whose_start_keeps_going_stale_gives_up_with_409(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bounded retries: a start that never matches the seats (here: always computed from a seed no
    seat sent) ends in 409 version_conflict after JOIN_ATTEMPTS reads, and nothing is written."""
    gid = new_game(client)["game_id"]
    for seat in range(3):
        assert client.post(f"/v1/games/{gid}/join", json={"seat": seat}).is_success

    def stale(self: Lobby, record: Any, seat: int | None, client_seed: str) -> GameStart:
        return GameStart("{}", ["never sent"] * 4, [])

    monkeypatch.setattr(Lobby, "_start_if_last", stale)
    body = problem(client.post(f"/v1/games/{gid}/join", json={"seat": 3}), 409, "version_conflict")
    assert "join again" in body["detail"]
    game = client.get(f"/v1/games/{gid}").json()
    assert game["status"] == "waiting" and not game["seats"][3]["filled"]


def test_atout_verify_names_an_unreadable_log(tmp_path: Path) -> None:
    missing = atout_verify(tmp_path / "nope.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    (tmp_path / "bad.json").write_text("[1, 2]")
    not_a_log = atout_verify(tmp_path / "bad.json")
    assert not_a_log.returncode == 1 and not_a_log.stdout.startswith("FAILED: ")


# ----- the replay log verifies; a tampered one does not -----------------------------------------------


def test_a_finished_match_log_verifies_and_a_tampered_copy_fails(
    client: TestClient, rng: random.Random, tmp_path: Path
) -> None:
    seeds = ["alice", "", "bob's seed", 'quote"and\\slash']
    log, commitment = finished_log(client, seeds, rng)
    assert log["commitment"] == commitment == hashlib.sha256(bytes.fromhex(log["key"])).hexdigest()
    assert log["client_seeds"] == seeds and log["seed"] == log["key"]
    assert len(log["hands"]) >= 1 and all(h["seeded"] and h["seed"] for h in log["hands"])
    assert engine.verify_log(log) == []
    options = {name: value for name, value in log["options"].items() if name != "kind"}  # the options' tag
    m = engine.new_match(
        "rough", seed=bytes.fromhex(log["key"]), options=options, client_seeds=log["client_seeds"]
    )
    for entry in log["actions"]:  # the key and the client seeds replay the match exactly
        m = engine.apply(m, entry["seat"], entry["action"])
    assert m.over and m.winners == log["winners"]

    honest = tmp_path / "log.json"
    honest.write_text(json.dumps(log))
    done = atout_verify(honest)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("verified: rough game ")

    moved = copy.deepcopy(log)
    hands = moved["hands"][0]["hands"]
    hands[2].append(hands[1].pop())
    reseeded = copy.deepcopy(log)
    reseeded["hands"][-1]["seed"] = hashlib.sha256(b"not the seed").hexdigest()
    recommitted = copy.deepcopy(log)
    recommitted["hands"][0]["commitment"] = "ab" * 32
    for name, tampered, words in (
        ("moved", moved, "hand 1: seat 1 was dealt"),
        ("reseeded", reseeded, "the seed is not SHA-256"),
        ("recommitted", recommitted, "commitment is not SHA-256"),
    ):
        assert engine.verify_log(tampered)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(tampered))
        done = atout_verify(path)
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        assert done.stdout.startswith("FAILED: ") and words in done.stdout, done.stdout


def test_the_key_and_the_log_stay_hidden_until_the_end(client: TestClient, admin_token: str) -> None:
    created = new_game(client)
    table = seat_all(client, created["game_id"], [""] * 4)
    log = client.get(f"/v1/games/{created['game_id']}/log", headers=auth(table.tokens[0]))
    problem(log, 409, "game_not_finished")
    assert client.get(f"/v1/games/{created['game_id']}").json()["seed"] is None
    early = client.get(f"/v1/games/{created['game_id']}/log", headers=auth(admin_token)).json()
    assert hashlib.sha256(bytes.fromhex(early["key"])).hexdigest() == created["commitment"]


# ----- finding 3: a rematch is drawn afresh -----------------------------------------------------------


def test_a_rematch_id_and_key_are_random_and_two_players_land_in_one_rematch(
    client: TestClient, rng: random.Random, admin_token: str
) -> None:
    created = new_game(client, options=FAST_OPTIONS["rough"])
    gid = created["game_id"]
    table = seat_all(client, gid, [""] * 4)
    finished = table.play_random(rng)
    old_seed = finished["seed"]
    # what finding 3 showed: the rematch's id and seed followed from this id and the revealed seed
    digest = hashlib.sha256(f"{gid}:{old_seed}:rematch".encode()).digest()
    derived_id = base64.b32encode(digest[:10]).decode().lower()
    derived_seed = int.from_bytes(digest[10:17], "big")

    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(
            pool.map(lambda s: client.post(f"/v1/games/{gid}/rematch", headers=auth(table.tokens[s])), (0, 1))
        )
    assert [a.status_code for a in answers] == [201, 201], [a.text for a in answers]
    rid = answers[0].json()["game"]["game_id"]
    assert answers[1].json()["game"]["game_id"] == rid, "both players are in the one rematch"
    assert rid not in (derived_id, gid) and sorted(a.json()["seat"] for a in answers) == [0, 1]
    assert client.get(f"/v1/games/{gid}").json()["rematch_id"] == rid
    for seat in (2, 3):
        body = {"client_seed": f"late {seat}"}
        assert client.post(f"/v1/games/{gid}/rematch", headers=auth(table.tokens[seat]), json=body).is_success
    rematch = client.get(f"/v1/games/{rid}", headers=auth(admin_token)).json()
    assert rematch["status"] == "active" and rematch["seed"] not in (derived_seed, old_seed)
    assert len(str(rematch["seed"])) == 64 and rematch["commitment"] != finished["commitment"]
    log = client.get(f"/v1/games/{rid}/log", headers=auth(admin_token)).json()
    assert log["client_seeds"] == ["", "", "late 2", "late 3"]
