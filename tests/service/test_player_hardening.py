"""Players, hardened (issue 32): nobody locks another out of invitations or floods their stream (bounds
per inviter, repeated invitations collapsed, blocks and the ``invitations`` preference, no anonymous
inviter), deleting a player reaches games their list dropped, a made-up player token changes nothing,
and a seat left before the start is free again. REST and GraphQL alike; real Redis, real HTTP."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime
from typing import Any, cast

import httpx
import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, auth, create
from test_graphql import CREATE, JOIN, data, error_code
from test_players import all_redis_bytes, guest, notices, table_with

from service.api.app import create_app
from service.base.settings import Settings
from service.store.keys import player_key, player_seats_key

INVITE = (
    "mutation($id: ID!, $pid: ID!) { invitePlayer(input: {gameId: $id, playerId: $pid}) { invitationId } }"
)
BLOCK = "mutation($pid: ID!) { blockPlayer(input: {playerId: $pid}) { playerId } }"
UNBLOCK = "mutation($pid: ID!) { unblockPlayer(input: {playerId: $pid}) { playerId } }"
MY_BLOCKS = "{ myBlocks }"
PREFERENCE = "mutation($who: InvitationsFrom) { updateMe(input: {invitations: $who}) { invitations } }"
ME = "{ me { playerId invitations } }"


def waiting_table(client: TestClient, token: str | None) -> str:
    """A listed Le Rough table waiting for players, seat 0 taken with ``token`` (None: anonymously)."""
    gid: str = create(client, "rough")["game"]["game_id"]
    joined = client.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=auth(token) if token else {})
    assert joined.status_code == 201, joined.text
    return gid


def invite(client: TestClient, gid: str, token: str, pid: str) -> httpx.Response:
    return client.post(f"/v1/games/{gid}/invitations", json={"player_id": pid}, headers=auth(token))


def held(client: TestClient, token: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = client.get("/v1/me/invitations", headers=auth(token)).json()["invitations"]
    return listed


@pytest.fixture
def roomy(settings: Settings) -> Iterator[TestClient]:
    """An app whose one test address may keep many tables waiting."""
    with TestClient(create_app(settings.model_copy(update={"max_open_games_per_creator": 1000}))) as client:
        yield client


# --- invitations: bounds per inviter -------------------------------------------------------------------


def test_one_inviter_sending_120_invitations_does_not_lock_the_player_out(roomy: TestClient) -> None:
    client = roomy
    settings: Settings = client.app.state.settings  # type: ignore[attr-defined]
    per_inviter, per_hour = settings.invitations_per_inviter, settings.invitations_per_hour
    attacker, victim, friend = guest(client, "Mallory"), guest(client, "Victim"), guest(client, "Friend")
    tables = [waiting_table(client, attacker["token"]) for _ in range(per_inviter + 1)]
    answers = [
        invite(client, tables[i % len(tables)], attacker["token"], victim["player_id"]) for i in range(120)
    ]
    for i, answer in enumerate(answers):
        if i >= per_hour:  # the hour's invitations spent, whatever the table
            expected = (429, "too_many_invitations_sent")
        elif i % len(tables) == per_inviter:  # the inviter holds as many entries of the list as one may
            expected = (429, "too_many_pending_invitations")
        else:
            expected = (201, "")
        assert (answer.status_code, answer.json().get("code", "")) == expected, (i, answer.text)
        if answer.status_code == 429:
            assert int(answer.headers["Retry-After"]) > 0
    # repeated invitations to one table are one invitation, refreshed (same id, later expiry)
    by_table: dict[str, list[dict[str, Any]]] = {}
    for answer in answers:
        if answer.status_code == 201:
            by_table.setdefault(answer.json()["game_id"], []).append(answer.json())
    assert len(by_table) == per_inviter
    for repeated in by_table.values():
        assert len({s["invitation_id"] for s in repeated}) == 1
        expiries = [datetime.fromisoformat(s["expires_at"]) for s in repeated]
        assert expiries == sorted(expiries)
    listed = held(client, victim["token"])
    assert len(listed) == per_inviter and {i["from_player_id"] for i in listed} == {attacker["player_id"]}
    # the stream got a bounded number of the attacker's notices, not one per invitation
    streamed = [n for _, n in notices(client, victim["token"]) if n["type"] == "invitation"]
    assert 0 < len(streamed) <= settings.player_notices_per_sender
    # a friend still invites the victim, who accepts
    table = waiting_table(client, friend["token"])
    sent = invite(client, table, friend["token"], victim["player_id"])
    assert sent.status_code == 201, sent.text
    accepted = client.post(
        f"/v1/me/invitations/{sent.json()['invitation_id']}/accept", json={}, headers=auth(victim["token"])
    )
    assert accepted.status_code == 201, accepted.text


def test_an_anonymous_seat_does_not_invite(client: TestClient) -> None:
    victim = guest(client)
    gid: str = create(client, "rough")["game"]["game_id"]
    seat_token = client.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
    refused = invite(client, gid, seat_token, victim["player_id"])
    assert refused.status_code == 403 and refused.json()["code"] == "invitation_needs_player"
    assert held(client, victim["token"]) == [] and notices(client, victim["token"]) == []


def test_a_player_blocks_one_inviter_or_refuses_everyone(client: TestClient) -> None:
    attacker, victim, friend = guest(client, "Mallory"), guest(client, "Victim"), guest(client, "Friend")
    theirs, ours = waiting_table(client, attacker["token"]), waiting_table(client, friend["token"])
    assert invite(client, theirs, attacker["token"], victim["player_id"]).status_code == 201
    blocked = client.post(
        "/v1/me/blocks", json={"player_id": attacker["player_id"]}, headers=auth(victim["token"])
    )
    assert blocked.status_code == 204, blocked.text
    assert held(client, victim["token"]) == []  # the blocked player's invitations went
    listed = client.get("/v1/me/blocks", headers=auth(victim["token"]))
    assert listed.status_code == 200 and listed.json() == {"players": [attacker["player_id"]]}
    refused = invite(client, theirs, attacker["token"], victim["player_id"])
    assert refused.status_code == 403 and refused.json()["code"] == "invitation_refused"
    assert invite(client, ours, friend["token"], victim["player_id"]).status_code == 201
    unblocked = client.delete(f"/v1/me/blocks/{attacker['player_id']}", headers=auth(victim["token"]))
    assert unblocked.status_code == 204
    assert client.get("/v1/me/blocks", headers=auth(victim["token"])).json() == {"players": []}
    assert invite(client, theirs, attacker["token"], victim["player_id"]).status_code == 201

    nobody = client.patch("/v1/me", json={"invitations": "nobody"}, headers=auth(victim["token"]))
    assert nobody.status_code == 200 and nobody.json()["invitations"] == "nobody"
    refused = invite(client, ours, friend["token"], victim["player_id"])
    assert refused.status_code == 403 and refused.json()["code"] == "invitation_refused"
    everyone = client.patch("/v1/me", json={"invitations": "everyone"}, headers=auth(victim["token"]))
    assert everyone.json()["invitations"] == "everyone"
    assert invite(client, ours, friend["token"], victim["player_id"]).status_code == 201
    bad = client.patch("/v1/me", json={"invitations": "friends"}, headers=auth(victim["token"]))
    assert bad.status_code == 422 and bad.json()["errors"][0]["loc"][-1] == "invitations"

    unknown = client.post("/v1/me/blocks", json={"player_id": "nobody"}, headers=auth(victim["token"]))
    assert unknown.status_code == 404 and unknown.json()["code"] == "player_not_found"
    malformed = client.post("/v1/me/blocks", json={"player_id": "not an id!"}, headers=auth(victim["token"]))
    assert malformed.status_code == 422 and malformed.json()["errors"][0]["loc"][-1] == "player_id"
    stranger = client.post("/v1/me/blocks", json={"player_id": attacker["player_id"]})
    assert stranger.status_code == 401 and stranger.json()["code"] == "missing_token"


def test_blocks_are_capped(settings: Settings) -> None:
    with TestClient(create_app(settings.model_copy(update={"player_max_blocks": 1}))) as client:
        me, one, two = guest(client), guest(client), guest(client)
        for _ in range(2):  # blocking twice is one block
            block = client.post(
                "/v1/me/blocks", json={"player_id": one["player_id"]}, headers=auth(me["token"])
            )
            assert block.status_code == 204
        full = client.post("/v1/me/blocks", json={"player_id": two["player_id"]}, headers=auth(me["token"]))
        assert full.status_code == 409 and full.json()["code"] == "too_many_blocks"
        assert data(client, BLOCK, me["token"], pid=one["player_id"]) == {
            "blockPlayer": {"playerId": one["player_id"]}
        }
        assert error_code(client, BLOCK, me["token"], pid=two["player_id"]) == "too_many_blocks"


def two_player_table(client: TestClient, first: str, second: str) -> Table:
    """A started Le Rough table: seat 0 the player ``first``'s, seat 1 ``second``'s, the others anonymous."""
    gid: str = create(client, "rough", options=FAST_OPTIONS["rough"])["game"]["game_id"]
    table = Table(client, gid)
    for seat in range(4):
        credential = {0: first, 1: second}.get(seat)
        joined = client.post(
            f"/v1/games/{gid}/join", json={"seat": seat}, headers=auth(credential) if credential else {}
        )
        assert joined.status_code == 201, joined.text
        table.tokens[seat] = credential or joined.json()["token"]
    return table


def test_a_blocked_player_offers_a_rematch_without_a_notice(client: TestClient, rng: random.Random) -> None:
    """The other notice one player's action puts on another's stream: a rematch offer."""
    victim, offerer = guest(client, "Victim"), guest(client, "Offerer")

    def offers() -> int:
        return sum(n["type"] == "rematch_offered" for _, n in notices(client, victim["token"]))

    before = two_player_table(client, victim["token"], offerer["token"])
    before.play_random(rng)
    asked = client.post(f"/v1/games/{before.game_id}/rematch", json={}, headers=auth(offerer["token"]))
    assert asked.status_code == 201, asked.text
    assert offers() == 1
    blocked = client.post(
        "/v1/me/blocks", json={"player_id": offerer["player_id"]}, headers=auth(victim["token"])
    )
    assert blocked.status_code == 204
    after = two_player_table(client, victim["token"], offerer["token"])
    after.play_random(rng)
    asked = client.post(f"/v1/games/{after.game_id}/rematch", json={}, headers=auth(offerer["token"]))
    assert asked.status_code == 201, asked.text
    assert offers() == 1  # no second notice; the rematch still waits for the victim in their list
    listed = {g["game_id"] for g in client.get("/v1/me/games", headers=auth(victim["token"])).json()["games"]}
    assert asked.json()["game"]["game_id"] in listed


# --- the same refusals through GraphQL -------------------------------------------------------------------


def test_every_new_invitation_refusal_through_graphql(settings: Settings) -> None:
    bounded = settings.model_copy(update={"invitations_per_inviter": 1, "invitations_per_hour": 3})
    with TestClient(create_app(bounded)) as client:
        attacker, victim, friend = guest(client, "Mallory"), guest(client, "Victim"), guest(client, "Friend")
        first, second = (
            data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"] for _ in range(2)
        )
        for gid in (first, second):
            data(client, JOIN, attacker["token"], id=gid, seat=0)
        anonymous = data(client, JOIN, None, id=first, seat=1)["joinGame"]["token"]
        assert (
            error_code(client, INVITE, anonymous, id=first, pid=victim["player_id"])
            == "invitation_needs_player"
        )
        one = data(client, INVITE, attacker["token"], id=first, pid=victim["player_id"])["invitePlayer"]
        again = data(client, INVITE, attacker["token"], id=first, pid=victim["player_id"])["invitePlayer"]
        assert one == again  # the same table: the one invitation, refreshed
        code = error_code(client, INVITE, attacker["token"], id=second, pid=victim["player_id"])
        assert code == "too_many_pending_invitations"
        code = error_code(client, INVITE, attacker["token"], id=first, pid=victim["player_id"])
        assert code == "too_many_invitations_sent"  # the hour's three spent

        friendly = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
        data(client, JOIN, friend["token"], id=friendly, seat=0)
        blocked = {"blockPlayer": {"playerId": friend["player_id"]}}
        assert data(client, BLOCK, victim["token"], pid=friend["player_id"]) == blocked
        assert data(client, MY_BLOCKS, victim["token"]) == {"myBlocks": [friend["player_id"]]}
        assert error_code(client, INVITE, friend["token"], id=friendly, pid=victim["player_id"]) == (
            "invitation_refused"
        )
        unblocked = {"unblockPlayer": {"playerId": friend["player_id"]}}
        assert data(client, UNBLOCK, victim["token"], pid=friend["player_id"]) == unblocked
        assert data(client, MY_BLOCKS, victim["token"]) == {"myBlocks": []}
        assert data(client, PREFERENCE, victim["token"], who="NOBODY") == {
            "updateMe": {"invitations": "NOBODY"}
        }
        assert data(client, ME, victim["token"])["me"]["invitations"] == "NOBODY"
        assert error_code(client, INVITE, friend["token"], id=friendly, pid=victim["player_id"]) == (
            "invitation_refused"
        )
        assert (
            error_code(client, PREFERENCE, victim["token"], who="FRIENDS") == "invalid_query"
        )  # no such value
        data(client, PREFERENCE, victim["token"], who="EVERYONE")
        assert data(client, INVITE, friend["token"], id=friendly, pid=victim["player_id"])["invitePlayer"]
        assert error_code(client, BLOCK, victim["token"], pid="nobody") == "player_not_found"
        assert error_code(client, BLOCK, victim["token"], pid="not an id!") == "invalid_request"
        assert error_code(client, MY_BLOCKS, None) == "missing_token"


# --- deleting a player reaches every game ------------------------------------------------------------


def test_deleting_a_player_removes_the_name_from_a_game_the_list_dropped(
    settings: Settings, rng: random.Random
) -> None:
    with TestClient(create_app(settings.model_copy(update={"player_max_games": 2}))) as client:
        name = "Zéphyrine Quatremains"
        token = guest(client, name)["token"]
        finished = [table_with(client, "rough", token, player_seat=s) for s in (3, 1)]
        for table in finished:
            table.play_random(rng)
        later = [waiting_table(client, token) for _ in range(2)]  # the list drops the finished games
        listed = {g["game_id"] for g in client.get("/v1/me/games", headers=auth(token)).json()["games"]}
        assert listed == set(later)
        for table, seat in zip(finished, (3, 1), strict=True):
            assert client.get(f"/v1/games/{table.game_id}").json()["seats"][seat]["name"] == name
        r = redis.Redis.from_url(client.app.state.settings.redis_url)  # type: ignore[attr-defined]
        assert client.delete("/v1/me", headers=auth(token)).status_code == 204
        for table, seat in zip(finished, (3, 1), strict=True):
            assert client.get(f"/v1/games/{table.game_id}").json()["seats"][seat]["name"] == ""
            assert client.get(f"/v1/games/{table.game_id}/log").status_code == 200  # still replays
        dump = all_redis_bytes(r)
        assert b"Quatremains" not in dump and name.encode() not in dump


def test_the_seats_index_drops_games_gone(client: TestClient) -> None:
    """The index deletion visits is bounded by the games' TTLs: a member whose check is due is
    dropped once its game is gone, and put off by its game's TTL while the game lives."""
    me = guest(client)
    r = redis.Redis.from_url(client.app.state.settings.redis_url, decode_responses=True)  # type: ignore[attr-defined]
    key = player_seats_key(me["player_id"])
    first = waiting_table(client, me["token"])
    r.zadd(key, {"ghostgame": 0, first: 0})  # both due now: one gone, one alive
    second = waiting_table(client, me["token"])
    members = dict(cast(list[tuple[str, float]], r.zrange(key, 0, -1, withscores=True)))
    assert set(members) == {first, second}
    assert members[first] > 1_000_000  # put off: checked again once its game's TTL has run
    assert r.ttl(key) > 0  # and the index expires with the player


# --- a made-up token changes nothing -------------------------------------------------------------------


def test_a_made_up_player_token_leaves_the_player_untouched(client: TestClient) -> None:
    victim = guest(client)
    pid = victim["player_id"]
    gid = waiting_table(client, victim["token"])
    r = redis.Redis.from_url(client.app.state.settings.redis_url, decode_responses=True)  # type: ignore[attr-defined]
    r.expire(player_key(pid), 1000)
    before = r.hgetall(player_key(pid))
    for forged in (f"atp_{pid}_x", f"atp_{pid}_" + "A" * 43):
        me = client.get("/v1/me", headers=auth(forged))
        assert me.status_code == 401 and me.json()["code"] == "invalid_token"
        view = client.get(f"/v1/games/{gid}/view", headers=auth(forged))
        assert view.status_code == 401
        assert client.get("/v1/me/invitations", headers=auth(forged)).status_code == 401
    assert 0 < r.ttl(player_key(pid)) <= 1000  # no refresh
    assert r.hgetall(player_key(pid)) == before
    assert client.get("/v1/me", headers=auth(victim["token"])).status_code == 200
    assert r.ttl(player_key(pid)) > 1000  # the player's own token refreshes it


# --- a seat left before the start -----------------------------------------------------------------------


def test_a_seat_left_before_the_start_is_free_again(client: TestClient) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    gid: str = create(client, "rough")["game"]["game_id"]
    assert (
        client.post(f"/v1/games/{gid}/join", json={"seat": 2}, headers=auth(ada["token"])).status_code == 201
    )
    left = client.post(f"/v1/games/{gid}/leave", headers=auth(ada["token"]))
    assert left.status_code == 200, left.text
    assert client.get("/v1/me/games", headers=auth(ada["token"])).json()["games"] == []
    again = client.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=auth(ada["token"]))
    assert again.status_code == 201, again.text  # not 409 already_seated: seat 2 is nobody's now
    taken = client.post(f"/v1/games/{gid}/join", json={"seat": 2}, headers=auth(bob["token"]))
    assert taken.status_code == 201, taken.text
    assert client.post(f"/v1/games/{gid}/leave", headers=auth(ada["token"])).status_code == 200
    same = client.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=auth(ada["token"]))
    assert same.status_code == 201, same.text  # the same seat, by the same player
    seats = client.get(f"/v1/games/{gid}").json()["seats"]
    assert [s["filled"] for s in seats] == [True, False, True, False]
    assert seats[0]["name"] == "Ada" and seats[2]["name"] == "Bob"
    # left again: an invitation to the table reaches them (they hold no seat of it)
    assert client.post(f"/v1/games/{gid}/leave", headers=auth(ada["token"])).status_code == 200
    sent = invite(client, gid, bob["token"], ada["player_id"])
    assert sent.status_code == 201, sent.text
