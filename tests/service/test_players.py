"""Players who last beyond one table (issue 23): guests, seats bound to a player and played from any
client, the player's list of games, the player's stream, invitations, turn reminders, and deleting an
account. Real Redis, real HTTP (TestClient on the app, and uvicorn where two clients must differ)."""

from __future__ import annotations

import json
import random
import time
from datetime import datetime
from typing import Any

import httpx
import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, auth, create, fill

from service.api.app import create_app
from service.base.settings import Settings


def guest(client: TestClient, name: str = "Ada") -> dict[str, Any]:
    response = client.post("/v1/players", json={"name": name, "locale": "fr-CA"})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    assert body["token"].startswith("atp_") and body["name"] == name
    return body


def frames(text: str) -> list[tuple[str, dict[str, Any]]]:
    found, eid = [], ""
    for line in text.splitlines():
        if line.startswith("id: "):
            eid = line[4:]
        elif line.startswith("data: "):
            found.append((eid, json.loads(line[6:])))
    return found


def notices(client: TestClient, token: str, after: str = "") -> list[tuple[str, dict[str, Any]]]:
    headers = {**auth(token), **({"Last-Event-ID": after} if after else {})}
    response = client.get("/v1/me/events?follow=false", headers=headers)
    assert response.status_code == 200, response.text
    return frames(response.text)


def table_with(client: TestClient, game: str, player_token: str, player_seat: int = 0, **body: Any) -> Table:
    """A started game: ``player_seat`` joined with the player's credential, the others with seat tokens."""
    created = create(client, game, options=FAST_OPTIONS[game], **body)
    table = Table(client, created["game"]["game_id"])
    for seat in range(created["game"]["players"]):
        headers = auth(player_token) if seat == player_seat else {}
        extra = {"invite_code": created["invite_code"]} if created.get("invite_code") else {}
        joined = client.post(f"/v1/games/{table.game_id}/join", json={"seat": seat, **extra}, headers=headers)
        assert joined.status_code == 201, joined.text
        table.tokens[seat] = player_token if seat == player_seat else joined.json()["token"]
    return table


def test_a_guest_is_created_read_and_changed(client: TestClient) -> None:
    ada = guest(client)
    me = client.get("/v1/me", headers=auth(ada["token"]))
    assert me.status_code == 200
    assert me.json() | {"created_at": 0} == {
        "player_id": ada["player_id"],
        "name": "Ada",
        "locale": "fr-CA",
        "guest": True,
        "identity": None,
        "created_at": 0,
        "invitations": "everyone",
    }
    changed = client.patch("/v1/me", json={"name": "Ada L.", "locale": "en"}, headers=auth(ada["token"]))
    assert (
        changed.status_code == 200 and changed.json()["name"] == "Ada L." and changed.json()["locale"] == "en"
    )
    assert client.post("/v1/players", json={}).json()["name"] == "Player"


@pytest.mark.parametrize(
    ("body", "field"),
    [({"locale": "not a locale"}, "locale"), ({"name": "a\u202eb"}, "name"), ({"name": "x" * 41}, "name")],
)
def test_a_bad_guest_or_change_is_refused_with_the_field(
    client: TestClient, body: dict[str, Any], field: str
) -> None:
    created = client.post("/v1/players", json=body)
    assert created.status_code == 422 and created.json()["code"] == "invalid_request"
    assert created.json()["errors"][0]["loc"][-1] == field
    token = guest(client)["token"]
    changed = client.patch("/v1/me", json=body, headers=auth(token))
    assert changed.status_code == 422 and changed.json()["errors"][0]["loc"][-1] == field


def test_me_needs_a_player_credential(client: TestClient) -> None:
    assert client.get("/v1/me").json()["code"] == "missing_token"
    table = table_with(client, "rough", guest(client)["token"])
    seat_token = table.tokens[1]
    refused = client.get("/v1/me", headers=auth(seat_token))
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_token"
    forged = client.get("/v1/me", headers=auth("atp_nobody_" + "x" * 43))
    assert forged.status_code == 401 and forged.json()["code"] == "invalid_token"
    for method, path in [
        ("PATCH", "/v1/me"),
        ("DELETE", "/v1/me"),
        ("GET", "/v1/me/games"),
        ("GET", "/v1/me/events"),
        ("GET", "/v1/me/invitations"),
    ]:
        answer = client.request(
            method, path, headers=auth(seat_token), json={} if method == "PATCH" else None
        )
        assert answer.status_code == 401 and answer.json()["code"] == "invalid_token", (method, path)


def test_one_player_holds_one_seat_of_a_table(client: TestClient) -> None:
    token = guest(client)["token"]
    gid = create(client, "rough")["game"]["game_id"]
    assert client.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=auth(token)).status_code == 201
    again = client.post(f"/v1/games/{gid}/join", json={"seat": 2}, headers=auth(token))
    assert again.status_code == 409 and again.json()["code"] == "already_seated" and again.json()["seat"] == 0
    game = client.get(f"/v1/games/{gid}").json()
    assert [s["filled"] for s in game["seats"]] == [True, False, False, False]
    assert game["seats"][0]["name"] == "Ada"  # the player's name, given by nobody in the join's body


def test_a_player_plays_one_game_from_two_clients_with_one_credential(
    live_server: str, rng: random.Random
) -> None:
    """Two devices: two HTTP clients with connections of their own, one player token."""
    with (
        httpx.Client(base_url=live_server, timeout=30) as phone,
        httpx.Client(base_url=live_server, timeout=30) as tablet,
    ):
        token = guest(phone)["token"]  # type: ignore[arg-type]
        table = table_with(phone, "rough", token, player_seat=2)  # type: ignore[arg-type]
        devices = [phone, tablet]
        moves_by_device = [0, 0]
        for _ in range(3000):
            game = table.game()
            if game["status"] == "finished":
                break
            seat = game["to_act"]
            if seat == 2:
                device = rng.randrange(2)
                view = devices[device].get(f"/v1/games/{table.game_id}/view", headers=auth(token)).json()
                assert view["seat"] == 2 and view["legal_actions"]
                action = fill(rng.choice(view["legal_actions"]), rng)
                moved = devices[device].post(
                    f"/v1/games/{table.game_id}/actions",
                    json={"action": action, "expected_version": game["version"]},
                    headers=auth(token),
                )
                assert moved.status_code == 200, moved.text
                moves_by_device[device] += 1
            else:
                action = fill(rng.choice(table.legal(seat)), rng)
                assert table.act(seat, action, expected_version=game["version"]).status_code == 200
        assert table.game()["status"] == "finished"
        assert min(moves_by_device) > 0, moves_by_device
        # the player's credential is the seat's: another seat's number is refused
        wrong = phone.get(f"/v1/games/{table.game_id}/view?seat=1", headers=auth(token))
        assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_seat"


def test_my_games_page_through_250_games_in_order(settings: Settings) -> None:
    settings = settings.model_copy(update={"max_open_games_per_creator": 1000})  # one test address
    with TestClient(create_app(settings)) as client:
        token = guest(client)["token"]
        waiting = []
        for _ in range(246):
            gid = create(client, "rough")["game"]["game_id"]
            assert client.post(f"/v1/games/{gid}/join", json={}, headers=auth(token)).status_code == 201
            waiting.append(gid)
        started = [table_with(client, "rough", token, player_seat=s) for s in range(4)]
        mine = {
            t.game_id
            for t in started
            if t.game()["to_act"] == next(s for s, k in t.tokens.items() if k == token)
        }
        seen: list[dict[str, Any]] = []
        cursor = None
        for _ in range(20):
            query = "?limit=37" + (f"&cursor={cursor}" if cursor else "")
            page = client.get(f"/v1/me/games{query}", headers=auth(token))
            assert page.status_code == 200, page.text
            seen += page.json()["games"]
            cursor = page.json()["next_cursor"]
            if cursor is None:
                break
        ids = [g["game_id"] for g in seen]
        assert len(ids) == 250 and len(set(ids)) == 250
        assert set(ids) == set(waiting) | {t.game_id for t in started}
        assert {g["game_id"] for g in seen if g["your_turn"]} == mine
        ranks = [0 if g["your_turn"] else 1 if g["status"] != "finished" else 2 for g in seen]
        assert ranks == sorted(ranks)  # your turn first
        for rank in set(ranks):
            times = [
                datetime.fromisoformat(g["updated_at"]) for g, r in zip(seen, ranks, strict=True) if r == rank
            ]
            assert times == sorted(times, reverse=True)  # then the most recently changed
        only = client.get("/v1/me/games?status=active&limit=100", headers=auth(token)).json()["games"]
        assert {g["game_id"] for g in only} == {t.game_id for t in started}
        bad = client.get("/v1/me/games?status=over", headers=auth(token))
        assert bad.status_code == 422 and bad.json()["errors"][0]["loc"] == ["query", "status"]
        forged = client.get("/v1/me/games?cursor=m1.xyz", headers=auth(token))
        assert forged.status_code == 422 and forged.json()["code"] == "invalid_request"


def test_the_player_stream_tells_turns_with_legal_actions_and_resumes_without_gap(
    client: TestClient, rng: random.Random
) -> None:
    token = guest(client)["token"]
    table = table_with(client, "rough", token, player_seat=1)
    kinds = [n["type"] for _, n in notices(client, token)]
    assert kinds[0] == "game_started"
    delivered: list[tuple[str, dict[str, Any]]] = []
    last = ""
    turns = 0
    for step in range(400):
        game = table.game()
        if game["status"] == "finished":
            break
        seat = game["to_act"]
        if seat == 1 or step % 7 == 0:  # the client (re)connects with its last id
            got = notices(client, token, last)
            delivered += got
            last = got[-1][0] if got else last
        if seat == 1:  # its turn came on the stream, with what it may play
            turn = [n for _, n in got if n["type"] == "your_turn"]
            assert turn and turn[-1]["version"] == game["version"], got
            action = fill(rng.choice(turn[-1]["legal_actions"]), rng)
            turns += 1
        else:
            action = fill(rng.choice(table.legal(seat)), rng)
        assert table.act(seat, action, expected_version=game["version"]).status_code == 200
    delivered += notices(client, token, last)
    ids = [eid for eid, _ in delivered]
    assert len(ids) == len(set(ids)), "a notice came twice"
    whole = notices(client, token)
    assert ids == sorted(ids, key=lambda eid: tuple(int(p) for p in eid.split("-")))  # in order
    # no gap: every notice still deliverable from the start was delivered across the resumes (a
    # your_turn is left out once its game moved on, so one read late may hold fewer of them)
    assert {eid for eid, _ in whole} <= set(ids)
    assert any(n["type"] == "game_finished" for _, n in whole)
    for _, notice in delivered:
        assert notice["game_id"] == table.game_id
        if notice["type"] == "your_turn":  # delivered while current: with the seat's own view
            assert notice["seat"] == 1 and notice["legal_actions"] and notice["view"]["seat"] == 1
    assert turns > 0 and any(n["type"] == "your_turn" for _, n in delivered)


def test_invitations_to_a_private_table(settings: Settings) -> None:
    settings = settings.model_copy(update={"invitations_per_player": 2})
    with TestClient(create_app(settings)) as client:
        host, friend = guest(client, "Host"), guest(client, "Friend")
        created = create(client, "rough", listed=False)
        gid = created["game"]["game_id"]
        joined = client.post(
            f"/v1/games/{gid}/join", json={"invite_code": created["invite_code"]}, headers=auth(host["token"])
        )
        assert joined.status_code == 201
        sent = client.post(
            f"/v1/games/{gid}/invitations",
            json={"player_id": friend["player_id"]},
            headers=auth(host["token"]),
        )
        assert sent.status_code == 201, sent.text
        invitation = sent.json()
        assert invitation["from_player_id"] == host["player_id"] and invitation["from_name"] == "Host"
        listed = client.get("/v1/me/invitations", headers=auth(friend["token"])).json()["invitations"]
        assert [i["invitation_id"] for i in listed] == [invitation["invitation_id"]]
        streamed = [n for _, n in notices(client, friend["token"]) if n["type"] == "invitation"]
        assert streamed[0]["from_name"] == "Host" and streamed[0]["game_id"] == gid
        accepted = client.post(
            f"/v1/me/invitations/{invitation['invitation_id']}/accept", json={}, headers=auth(friend["token"])
        )
        assert accepted.status_code == 201, accepted.text  # a private table, joined without its code
        assert client.get("/v1/me/invitations", headers=auth(friend["token"])).json()["invitations"] == []
        again = client.post(
            f"/v1/me/invitations/{invitation['invitation_id']}/accept", json={}, headers=auth(friend["token"])
        )
        assert again.status_code == 404 and again.json()["code"] == "invitation_not_found"

        # the refusals
        def invite(pid: str, game: str = gid) -> httpx.Response:
            return client.post(
                f"/v1/games/{game}/invitations", json={"player_id": pid}, headers=auth(host["token"])
            )

        assert invite(friend["player_id"]).json()["code"] == "already_seated"
        assert invite("nobody").json()["code"] == "player_not_found"
        bad = invite("not an id!")
        assert bad.status_code == 422 and bad.json()["errors"][0]["loc"][-1] == "player_id"
        third = guest(client, "Third")
        first = invite(third["player_id"])
        assert first.status_code == 201
        again = invite(third["player_id"])  # the same table again: the one invitation, refreshed
        assert again.status_code == 201 and again.json()["invitation_id"] == first.json()["invitation_id"]

        def invite_from_another_table(pid: str) -> httpx.Response:
            other = guest(client, "Other")
            table = create(client, "rough")["game"]["game_id"]
            assert (
                client.post(f"/v1/games/{table}/join", json={}, headers=auth(other["token"])).status_code
                == 201
            )
            return client.post(
                f"/v1/games/{table}/invitations", json={"player_id": pid}, headers=auth(other["token"])
            )

        assert invite_from_another_table(third["player_id"]).status_code == 201
        full = invite_from_another_table(third["player_id"])  # two inviters, two invitations: the cap
        assert full.status_code == 429 and full.json()["code"] == "too_many_invitations"
        assert full.headers["Retry-After"]
        held = client.get("/v1/me/invitations", headers=auth(third["token"])).json()["invitations"]
        declined = client.post(
            f"/v1/me/invitations/{held[0]['invitation_id']}/decline", headers=auth(third["token"])
        )
        assert declined.status_code == 204
        stranger = client.post(
            f"/v1/games/{gid}/invitations",
            json={"player_id": third["player_id"]},
            headers=auth(third["token"]),
        )
        assert stranger.status_code == 403 and stranger.json()["code"] == "seat_not_held"  # a good token
        started = table_with(client, "rough", guest(client)["token"])
        late = client.post(
            f"/v1/games/{started.game_id}/invitations",
            json={"player_id": third["player_id"]},
            headers=auth(started.tokens[0]),  # the player's seat (an anonymous one does not invite)
        )
        assert late.status_code == 409 and late.json()["code"] == "game_not_waiting"


def test_an_invitation_expires(client: TestClient) -> None:
    friend = guest(client)
    store = client.app.state.store  # type: ignore[attr-defined]
    past = {
        "invitation_id": "old",
        "game_id": "g",
        "kind": "rough",
        "from_player": "",
        "expires_at": time.time() - 1,
    }
    assert client.portal.call(store.players.put_invitation, friend["player_id"], "old", past, 10, 3) == (
        "new",
        "old",
    )
    assert client.get("/v1/me/invitations", headers=auth(friend["token"])).json()["invitations"] == []
    late = client.post("/v1/me/invitations/old/accept", json={}, headers=auth(friend["token"]))
    assert late.status_code == 404 and late.json()["code"] == "invitation_not_found"


def all_redis_bytes(r: redis.Redis) -> bytes:
    """Every key and every value of every key: hashes, strings, lists, sets, sorted sets and streams."""
    out: list[bytes] = []
    for key in r.scan_iter(count=1000):
        kind = r.type(key)
        values: list[Any] = []
        if kind == b"string":
            values = [r.get(key)]
        elif kind == b"hash":
            values = [x for pair in r.hgetall(key).items() for x in pair]
        elif kind == b"list":
            values = r.lrange(key, 0, -1)
        elif kind == b"set":
            values = list(r.smembers(key))
        elif kind == b"zset":
            values = r.zrange(key, 0, -1)
        elif kind == b"stream":
            values = [x for _, fields in r.xrange(key) for pair in fields.items() for x in pair]
        out += [key, *(v for v in values if v is not None)]
    return b"\n".join(out)


def test_deleting_a_player_leaves_no_trace_of_the_name(client: TestClient, rng: random.Random) -> None:
    name = "Zéphyrine Quatremains"
    me = guest(client, name)
    token = me["token"]
    finished = table_with(client, "rough", token, player_seat=3)
    finished.play_random(rng)
    running = table_with(client, "rough", token, player_seat=0)
    rematch = client.post(f"/v1/games/{finished.game_id}/rematch", json={}, headers=auth(finished.tokens[0]))
    assert rematch.status_code == 201, rematch.text
    r = redis.Redis.from_url(client.app.state.settings.redis_url)  # type: ignore[attr-defined]
    marker = b"Quatremains"  # ASCII: found however a value escapes the rest of the name
    assert marker in all_redis_bytes(r)  # held before: in the seats, the player, the rematch
    assert client.delete("/v1/me", headers=auth(token)).status_code == 204
    dump = all_redis_bytes(r)
    assert marker not in dump, [line for line in dump.split(b"\n") if marker in line or b"atout:" in line][
        :80
    ]
    assert name.encode() not in dump
    assert client.get("/v1/me", headers=auth(token)).json()["code"] == "invalid_token"
    view = client.get(f"/v1/games/{running.game_id}/view", headers=auth(token))
    assert view.status_code == 401  # the credential no longer holds the seat
    game = running.game()
    assert game["seats"][0]["seat_kind"] == "bot" and game["seats"][0]["name"] == ""
    replay = client.get(f"/v1/games/{finished.game_id}/log")
    assert replay.status_code == 200 and replay.json()["actions"]  # the others' finished game replays
    assert client.get(f"/v1/games/{finished.game_id}").json()["seats"][3]["name"] == ""


def test_a_long_turn_clock_reminds_the_player_then_plays_for_them(settings: Settings, rq_worker: str) -> None:
    settings = settings.model_copy(update={"reminder_min_turn_seconds": 6})
    with TestClient(create_app(settings)) as client:
        token = guest(client)["token"]
        table = table_with(client, "rough", token, player_seat=0, turn_seconds=8)
        seat_to_act = table.game()["to_act"]
        for _ in range(8):  # bring the turn to the player
            if seat_to_act == 0:
                break
            game = table.game()
            action = fill(random.choice(table.legal(seat_to_act)), random.Random(1))
            table.act(seat_to_act, action, expected_version=game["version"])
            seat_to_act = table.game()["to_act"]
        assert seat_to_act == 0
        version = table.game()["version"]
        deadline = time.monotonic() + 30
        reminder = None
        while time.monotonic() < deadline and reminder is None:
            reminder = next((n for _, n in notices(client, token) if n["type"] == "reminder"), None)
            time.sleep(0.2)
        assert reminder is not None, "no reminder came"
        assert (
            reminder["seat"] == 0
            and reminder["version"] == version
            and datetime.fromisoformat(reminder["deadline_at"]).timestamp() > time.time() - 1
        )
        while time.monotonic() < deadline and table.game()["version"] == version:
            time.sleep(0.2)
        assert table.game()["version"] == version + 1  # the clock ran out: a bot played the move


@pytest.mark.parametrize(("seconds", "status"), [(30 * 86_400, 201), (30 * 86_400 + 1, 422), (4, 422)])
def test_a_turn_clock_runs_from_seconds_to_thirty_days(client: TestClient, seconds: int, status: int) -> None:
    response = client.post("/v1/games", json={"kind": "rough", "turn_seconds": seconds})
    assert response.status_code == status, response.text
