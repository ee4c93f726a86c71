"""Request bodies as the OpenAPI document describes them: a whole number may be written 1.0 (JSON
Schema's integer), a body that is JSON ``null`` is not an object (422), no body at all means every
field at its default, and a stream cursor may be a bare millisecond id (``0``: from the start) or
empty (from the start too)."""

from __future__ import annotations

import re

from starlette.testclient import TestClient
from svc_helpers import auth

from service.api.rest.openapi import openapi_document
from service.store.fanout import stream_id


def new_game(client: TestClient) -> str:
    created = client.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 4})
    return str(created.json()["game"]["game_id"])


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


def event_ids(text: str) -> list[str]:
    return [line[4:] for line in text.splitlines() if line.startswith("id: ")]


def test_a_stream_cursor_may_be_a_bare_millisecond_id(client: TestClient) -> None:
    """``<ms>`` alone reads as ``<ms>-0``, as Redis reads it: the events after it, exactly."""
    gid = new_game(client)
    tokens = [client.post(f"/v1/games/{gid}/join", json={}).json()["token"] for _ in range(4)]
    url = f"/v1/games/{gid}/events?follow=false"
    everything = event_ids(client.get(url, headers=auth(tokens[0])).text)
    assert len(everything) > 5
    for cursor in ("0", everything[2].partition("-")[0], everything[-2].partition("-")[0]):
        after = event_ids(client.get(url, headers={**auth(tokens[0]), "Last-Event-ID": cursor}).text)
        expected = [e for e in everything if stream_id(e) > stream_id(cursor)]
        assert after == expected, cursor
    for bad in ("0-", "1\n", "99999999999999999999", "1-99999999999999999999", "x", "\u0661", "1-\u0662"):
        refused = client.get(url, params={"last_event_id": bad}, headers=auth(tokens[0]))
        assert refused.status_code == 422 and refused.json()["code"] == "invalid_request", bad


def test_an_empty_stream_cursor_is_the_start_as_the_document_says(client: TestClient) -> None:
    """An SSE client's last event id is empty until an event with an id came: an empty
    Last-Event-ID or ``last_event_id`` reads from the start, and the document's pattern allows it."""
    gid = new_game(client)
    url, once = f"/v1/games/{gid}/events", {"follow": "false"}
    everything = event_ids(client.get(url, params=once).text)
    assert everything
    assert event_ids(client.get(url, params=once, headers={"Last-Event-ID": ""}).text) == everything
    assert event_ids(client.get(url, params={**once, "last_event_id": ""}).text) == everything
    parameters = openapi_document()["paths"]["/v1/games/{game_id}/events"]["get"]["parameters"]
    for parameter in (p for p in parameters if p["name"] in {"Last-Event-ID", "last_event_id"}):
        pattern = re.compile(parameter["schema"]["pattern"])
        assert pattern.fullmatch("") and pattern.fullmatch(everything[0]) and not pattern.fullmatch("x")


def test_a_malformed_last_event_id_is_refused_even_when_the_header_decides(client: TestClient) -> None:
    gid = new_game(client)
    first = event_ids(client.get(f"/v1/games/{gid}/events?follow=false").text)[0]
    refused = client.get(
        f"/v1/games/{gid}/events",
        params={"follow": "false", "last_event_id": "\x84"},
        headers={"Last-Event-ID": first},
    )
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_request"
    assert refused.json()["detail"].startswith("last_event_id ")
    by_header = client.get(f"/v1/games/{gid}/events", headers={"Last-Event-ID": "x"})
    assert by_header.status_code == 422 and by_header.json()["detail"].startswith("Last-Event-ID ")


def test_a_graphql_subscription_may_start_after_0(client: TestClient) -> None:
    gid = new_game(client)
    query = 'subscription($id: ID!) { gameEvents(gameId: $id, after: "0") { id event { __typename } } }'
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send_json({"type": "connection_init", "payload": {}})
        assert ws.receive_json()["type"] == "connection_ack"
        ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": query, "variables": {"id": gid}}})
        first = ws.receive_json()
        assert first["type"] == "next"
        assert first["payload"]["data"]["gameEvents"]["event"]["__typename"] == "GameCreated"


def test_an_option_written_with_a_fraction_is_that_whole_number(client: TestClient) -> None:
    created = client.post("/v1/games", json={"kind": "five_hundred", "options": {"target_score": 500.0}})
    assert created.status_code == 201, created.text
    assert created.json()["game"]["options"]["target_score"] == 500
    refused = client.post("/v1/games", json={"kind": "five_hundred", "options": {"target_score": 500.5}})
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_options"


def test_query_numbers_and_booleans_are_read_as_the_document_types_them(client: TestClient) -> None:
    """``integer``: ASCII digits (not "1_0" nor another script's digits); ``boolean``: true/false
    and the usual spellings (1/0, yes/no, on/off, t/f, y/n), anything else 422."""
    gid = new_game(client)
    assert client.get("/v1/games", params={"limit": "+7"}).status_code == 200
    for bad in ("1_0", "\u0667", " 7", "7.0", "null"):
        refused = client.get("/v1/games", params={"limit": bad})
        assert refused.status_code == 422 and refused.json()["code"] == "invalid_request", bad
    url = f"/v1/games/{gid}/events"
    for spelling in ("false", "FALSE", "0", "no", "off", "f", "n"):
        assert event_ids(client.get(url, params={"follow": spelling}).text), spelling
    for bad in ("null", "", "2", "nope"):
        refused = client.get(url, params={"follow": bad})
        assert refused.status_code == 422 and refused.json()["errors"][0]["loc"] == ["query", "follow"], bad
