"""SSE over a real HTTP server: live delivery, resume with Last-Event-ID without gap or duplicate."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, auth, fill, seated


def sse_events(response: httpx.Response) -> Iterator[dict[str, Any]]:
    fields: dict[str, str] = {}
    for line in response.iter_lines():
        if not line:
            if "data" in fields:  # an envelope: the SSE id is its id, the SSE event its event's type
                frame = json.loads(fields["data"])
                assert frame["id"] == fields["id"] and frame["event"]["type"] == fields["event"]
                yield frame
            fields = {}
        elif not line.startswith(":") and ": " in line:
            key, value = line.split(": ", 1)
            fields[key] = value


def read(base: str, path: str, headers: dict[str, str], limit: int | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    with httpx.stream("GET", base + path, headers=headers, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for event in sse_events(response):
            out.append(event)
            if limit is not None and len(out) >= limit:
                break
    return out


def step(client: TestClient, table: Any, rng: random.Random) -> bool:
    game = table.game()
    if game["status"] == "finished":
        return False
    seat = game["to_act"]
    assert table.act(seat, fill(rng.choice(table.legal(seat)), rng)).status_code == 200
    return True


def test_a_live_stream_delivers_a_move_made_after_connecting(
    client: TestClient, live_server: str, rng: random.Random
) -> None:
    table = seated(client, "rough", seed="31")
    seat = table.game()["to_act"]
    backlog = read(live_server, f"/v1/games/{table.game_id}/events?follow=false", auth(table.tokens[seat]))
    with httpx.stream(
        "GET",
        f"{live_server}/v1/games/{table.game_id}/events",
        headers={**auth(table.tokens[seat]), "Last-Event-ID": backlog[-1]["id"]},
        timeout=60,
    ) as response:
        assert table.act(seat, {"type": "pass"}).status_code == 200
        first = next(sse_events(response))
    assert first["event"]["type"] == "bid_made" and first["event"]["seat"] == seat and first["version"] == 1


def test_resume_with_last_event_id_has_no_gap_and_no_duplicate(
    client: TestClient, live_server: str, rng: random.Random
) -> None:
    table = seated(client, "five_hundred", seed="32", options=FAST_OPTIONS["five_hundred"])
    headers = auth(table.tokens[2])
    for _ in range(15):
        step(client, table, rng)
    head = read(live_server, f"/v1/games/{table.game_id}/events", headers, limit=9)
    for _ in range(20):
        step(client, table, rng)
    middle = read(
        live_server, f"/v1/games/{table.game_id}/events", {**headers, "Last-Event-ID": head[-1]["id"]}, 12
    )
    while step(client, table, rng):
        pass
    tail = read(live_server, f"/v1/games/{table.game_id}/events?last_event_id={middle[-1]['id']}", headers)
    everything = read(live_server, f"/v1/games/{table.game_id}/events", headers)
    assert [e["id"] for e in head + middle + tail] == [e["id"] for e in everything]
    events = [frame["event"] for frame in everything]
    assert events[-1] == {**events[-1], "type": "turn", "status": "finished"}
    assert all(e.get("seat") == 2 for e in events if e["type"] in {"dealt", "kitty_taken", "discarded"})


def test_a_stream_for_a_token_in_the_query_string(client: TestClient, live_server: str) -> None:
    table = seated(client, "rough", seed="33")
    events = read(
        live_server, f"/v1/games/{table.game_id}/events?follow=false&access_token={table.tokens[3]}", {}
    )
    assert [f["event"]["seat"] for f in events if f["event"]["type"] == "dealt"] == [3]


def test_a_bad_last_event_id_is_422(client: TestClient) -> None:
    table = seated(client, "rough")
    response = client.get(f"/v1/games/{table.game_id}/events", headers={"Last-Event-ID": "yesterday"})
    assert response.status_code == 422 and response.json()["code"] == "invalid_request"


def test_a_stream_with_a_forged_token_is_401(client: TestClient) -> None:
    table = seated(client, "rough")
    response = client.get(f"/v1/games/{table.game_id}/events", headers=auth("forged"))
    assert response.status_code == 401 and response.json()["code"] == "invalid_token"
