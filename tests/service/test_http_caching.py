"""HTTP caching for clients that pay for bytes (issue 21): strong ETags on a game, a view, the legal
actions and the replay log, 304 on a matching If-None-Match (RFC 9110: `*`, lists, weak comparison),
the token checked before any 304, and the Cache-Control of each answer (problems never stored)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, admin_headers, auth, create, fill, seated

from service.api.rest import caching


def etag_of(response: Any) -> str:
    assert response.status_code == 200, response.text
    etag: str = response.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")  # strong
    return etag


def varies(response: Any) -> set[str]:
    """The request fields the answer varies on (CORS adds Origin of its own)."""
    return {name.strip().lower() for name in response.headers.get("vary", "").split(",") if name.strip()}


def assert_not_modified(response: Any, etag: str, cache_control: str) -> None:
    assert response.status_code == 304, response.text
    assert response.content == b""
    assert response.headers["etag"] == etag and response.headers["cache-control"] == cache_control
    assert "content-type" not in response.headers and "content-length" not in response.headers


# ----- If-None-Match as RFC 9110 §13.1.2 reads it -------------------------------------------------


@pytest.mark.parametrize(
    ("field", "matches"),
    [
        (['"1-abc"'], True),
        (['W/"1-abc"'], True),  # weak comparison: W/ is ignored
        (["*"], True),
        ([' "0-x" , W/"1-abc"'], True),
        (['"0-x"', '"1-abc"'], True),  # two field lines are one list
        (['"0-x", , "1-abc"'], True),  # empty list elements are allowed
        (['"1-ab"'], False),
        (['"1-abc'], False),  # no closing quote
        (["1-abc"], False),  # not quoted
        (['"1-abc"x'], False),
        (['x, "1-abc"'], False),  # from a malformed element on, nothing matches: a 200, never a wrong 304
        (['*, "1-abc"'], False),  # `*` only alone
        ([], False),
        ([""], False),
    ],
)
def test_if_none_match_is_parsed_as_the_rfc_says(field: list[str], matches: bool) -> None:
    assert caching.none_match(field, '"1-abc"') is matches


# ----- games, views, legal actions --------------------------------------------------------------


def test_a_view_answers_304_to_its_current_etag_and_200_once_the_game_moves(client: TestClient) -> None:
    table = seated(client, "rough", options=FAST_OPTIONS["rough"])
    path = f"/v1/games/{table.game_id}/view"
    first = client.get(path, headers=auth(table.tokens[0]))
    etag = etag_of(first)
    assert first.headers["cache-control"] == "private, no-cache"
    assert "authorization" in varies(first)
    assert etag.startswith(f'"{first.json()["version"]}-')  # the game's version, in the clear
    again = client.get(path, headers={**auth(table.tokens[0]), "If-None-Match": etag})
    assert_not_modified(again, etag, "private, no-cache")
    assert "authorization" in varies(again)
    head = client.head(path, headers={**auth(table.tokens[0]), "If-None-Match": f"W/{etag}"})
    assert_not_modified(head, etag, "private, no-cache")
    seat = table.game()["to_act"]
    assert table.act(seat, fill(table.legal(seat)[0], random.Random(1))).status_code == 200
    moved = client.get(path, headers={**auth(table.tokens[0]), "If-None-Match": etag})
    assert etag_of(moved) != etag and moved.json()["version"] == first.json()["version"] + 1


def test_every_seat_and_the_spectator_have_an_etag_of_their_own(client: TestClient) -> None:
    table = seated(client, "euchre5", options=FAST_OPTIONS["euchre5"])
    path = f"/v1/games/{table.game_id}/view"
    views = {seat: client.get(path, headers=auth(token)) for seat, token in table.tokens.items()}
    spectator = client.get(path)
    admin = client.get(path, headers=admin_headers(client))
    tags = [etag_of(r) for r in (*views.values(), spectator, admin)]
    assert len(set(tags)) == len(tags) == 7
    assert spectator.headers["cache-control"] == "no-cache"  # no token: a shared cache may keep it
    assert admin.headers["cache-control"] == "private, no-cache"
    # another seat's ETag is no use: the caller gets its own view in full
    for seat, token in table.tokens.items():
        other = etag_of(views[(seat + 1) % 5])
        response = client.get(path, headers={**auth(token), "If-None-Match": other})
        assert response.status_code == 200 and response.json()["seat"] == seat
    stolen = client.get(path, headers={"If-None-Match": etag_of(views[0])})
    assert stolen.status_code == 200 and stolen.json()["seat"] is None
    # the spectator's and each seat's game summary differ too
    game_tags = {
        etag_of(client.get(f"/v1/games/{table.game_id}", headers=auth(t))) for t in table.tokens.values()
    }
    assert len(game_tags | {etag_of(client.get(f"/v1/games/{table.game_id}"))}) == 6


def test_a_join_changes_the_etag_though_it_keeps_the_version(client: TestClient) -> None:
    """Joins, the start their last seat deals and leaves write without a new version: the ETag must
    change all the same, or a client would be told its copy of a filling game is current."""
    gid = create(client, "rough")["game"]["game_id"]
    path = f"/v1/games/{gid}"
    before = client.get(path)
    tags = [etag_of(before)]
    view_tags = [etag_of(client.get(f"{path}/view"))]
    tokens = []
    for seat in range(4):
        joined = client.post(f"{path}/join", json={"seat": seat, "name": f"p{seat}"})
        tokens.append(joined.json()["token"])
        response = client.get(path, headers={"If-None-Match": tags[-1]})
        assert response.json()["version"] == 0  # no version for a join, nor for the start
        tags.append(etag_of(response))
        view_tags.append(etag_of(client.get(f"{path}/view", headers={"If-None-Match": view_tags[-1]})))
    assert client.get(path).json()["status"] == "active"
    assert len(set(tags)) == len(set(view_tags)) == 5
    left = client.post(f"{path}/leave", headers=auth(tokens[3]))  # a bot takes the seat over
    assert left.status_code == 200 and left.json()["outcome"] == "replaced"
    assert etag_of(client.get(path, headers={"If-None-Match": tags[-1]})) != tags[-1]


def test_legal_actions_answer_304_for_the_seat_only(client: TestClient) -> None:
    table = seated(client, "rough", options=FAST_OPTIONS["rough"])
    path = f"/v1/games/{table.game_id}/actions"
    first = client.get(path, headers=auth(table.tokens[1]))
    etag = etag_of(first)
    assert first.headers["cache-control"] == "private, no-cache"
    assert_not_modified(
        client.get(path, headers={**auth(table.tokens[1]), "If-None-Match": etag}), etag, "private, no-cache"
    )
    assert etag_of(client.get(path, headers={**auth(table.tokens[2]), "If-None-Match": etag})) != etag


def test_the_token_is_checked_before_any_304(client: TestClient) -> None:
    """A 304 must not tell a stranger what a 401 hides: with a wrong token, even the matching ETag (or
    `*`) gets the 401, and problem answers are never stored."""
    table = seated(client, "rough", options=FAST_OPTIONS["rough"])
    gid = table.game_id
    etag = etag_of(client.get(f"/v1/games/{gid}/view", headers=auth(table.tokens[0])))
    for path in (
        f"/v1/games/{gid}/view",
        f"/v1/games/{gid}/actions",
        f"/v1/games/{gid}",
        f"/v1/games/{gid}/log",
    ):
        for tag in (etag, "*"):
            refused = client.get(path, headers={**auth("not-a-seat-token"), "If-None-Match": tag})
            assert refused.status_code == 401, (path, refused.text)
            assert refused.headers["cache-control"] == "no-store" and "etag" not in refused.headers
    no_token = client.get(f"/v1/games/{gid}/actions", headers={"If-None-Match": "*"})
    assert no_token.status_code == 401 and no_token.headers["cache-control"] == "no-store"
    wrong_seat = client.get(
        f"/v1/games/{gid}/view?seat=1", headers={**auth(table.tokens[0]), "If-None-Match": "*"}
    )
    assert wrong_seat.status_code == 403 and wrong_seat.headers["cache-control"] == "no-store"
    missing = client.get("/v1/games/nosuchgame/view", headers={"If-None-Match": "*"})
    assert missing.status_code == 404 and missing.headers["cache-control"] == "no-store"
    not_over = client.get(f"/v1/games/{gid}/log", headers={"If-None-Match": "*"})
    assert not_over.status_code == 409 and not_over.headers["cache-control"] == "no-store"


def test_if_none_match_star_and_lists(client: TestClient) -> None:
    gid = create(client, "rough")["game"]["game_id"]
    etag = etag_of(client.get(f"/v1/games/{gid}"))
    assert_not_modified(client.get(f"/v1/games/{gid}", headers={"If-None-Match": "*"}), etag, "no-cache")
    listed = f'"0-stale", W/"x", {etag}'
    assert_not_modified(client.get(f"/v1/games/{gid}", headers={"If-None-Match": listed}), etag, "no-cache")
    assert client.get(f"/v1/games/{gid}", headers={"If-None-Match": '"0-stale", W/"x"'}).status_code == 200


# ----- what never changes: the rules, a finished match's log -------------------------------------


def test_the_rules_are_cached_an_hour_and_revalidated_with_their_etag(client: TestClient) -> None:
    first = client.get("/v1/rules")
    etag = etag_of(first)
    assert first.headers["cache-control"] == "public, max-age=3600" and "authorization" not in varies(first)
    assert first.json()["games"]["rough"]["players"] == 4
    assert_not_modified(
        client.get("/v1/rules", headers={"If-None-Match": etag}), etag, "public, max-age=3600"
    )


def test_a_finished_matchs_log_is_public_and_immutable(client: TestClient) -> None:
    table = seated(client, "rough", options=FAST_OPTIONS["rough"])
    path = f"/v1/games/{table.game_id}/log"
    admin_before = client.get(path, headers=admin_headers(client))  # only the administrator, before the end
    assert admin_before.headers["cache-control"] == "private, no-cache"
    assert "authorization" in varies(admin_before)
    table.play_random(random.Random(5))
    log = client.get(path)
    etag = etag_of(log)
    assert etag != etag_of(admin_before)
    assert log.headers[
        "cache-control"
    ] == "public, max-age=31536000, immutable" and "authorization" not in varies(log)
    assert etag_of(client.get(path, headers=auth(table.tokens[0]))) == etag  # everyone's log alike
    assert_not_modified(
        client.get(path, headers={"If-None-Match": etag}), etag, "public, max-age=31536000, immutable"
    )
    # a rematch offered later changes the game, not its log
    assert client.post(f"/v1/games/{table.game_id}/rematch", headers=auth(table.tokens[0])).status_code == 201
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 304


def test_the_list_of_open_games_is_revalidated_and_graphql_is_unaffected(client: TestClient) -> None:
    create(client, "rough")
    listed = client.get("/v1/games")
    assert listed.headers["cache-control"] == "no-cache" and "etag" not in listed.headers
    graphql = client.post("/graphql", json={"query": "{ games { id } }"}, headers={"If-None-Match": "*"})
    assert graphql.status_code == 200 and "etag" not in graphql.headers
