"""Request bodies as the OpenAPI document describes them: a whole number may be written 1.0 (JSON
Schema's integer), a body that is JSON ``null`` is not an object (422), no body at all means every
field at its default, and a stream cursor may be a bare millisecond id (``0``: from the start)."""

from __future__ import annotations

from starlette.testclient import TestClient
from svc_helpers import auth


def new_game(client: TestClient) -> str:
    return str(client.post("/v1/games", json={"game": "rough", "seats": ["open"] * 4}).json()["game"]["id"])


def test_a_whole_number_written_with_a_fraction_is_that_number(client: TestClient) -> None:
    gid = new_game(client)
    joined = client.post(f"/v1/games/{gid}/join", json={"seat": 2.0})
    assert joined.status_code == 201 and joined.json()["seat"] == 2


def test_a_fraction_is_not_a_seat(client: TestClient) -> None:
    refused = client.post(f"/v1/games/{new_game(client)}/join", json={"seat": 1.5})
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_request"
    assert refused.json()["errors"][0]["loc"] == ["seat"]


def test_a_null_body_is_refused_and_no_body_takes_the_defaults(client: TestClient) -> None:
    gid = new_game(client)
    null = client.post(f"/v1/games/{gid}/join", content=b"null", headers={"content-type": "application/json"})
    assert null.status_code == 422 and null.json()["code"] == "invalid_request"
    empty = client.post(f"/v1/games/{gid}/join", headers={"content-type": "application/json"})
    assert empty.status_code == 201 and empty.json()["seat"] == 0


def test_a_stream_cursor_may_be_a_bare_millisecond_id(client: TestClient) -> None:
    gid = new_game(client)
    token = client.post(f"/v1/games/{gid}/join", json={}).json()["token"]
    for cursor in ("0", "0-0"):
        stream = client.get(
            f"/v1/games/{gid}/events?follow=false", headers={**auth(token), "Last-Event-ID": cursor}
        )
        assert stream.status_code == 200 and "event: seat_joined" in stream.text, cursor
    bad = client.get(f"/v1/games/{gid}/events?follow=false", headers={**auth(token), "Last-Event-ID": "0-"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"


def test_an_option_written_with_a_fraction_is_that_whole_number(client: TestClient) -> None:
    created = client.post("/v1/games", json={"game": "five_hundred", "options": {"target_score": 500.0}})
    assert created.status_code == 201, created.text
    assert created.json()["game"]["options"]["target_score"] == 500
    refused = client.post("/v1/games", json={"game": "five_hundred", "options": {"target_score": 500.5}})
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_options"
