"""A game's events as NDJSON (``Accept: application/x-ndjson``), the form the OpenAPI document
types with the event model: each line is what an SSE frame's data holds, for the same seat; a
reader resumes after an event id the same way, is refused the same way, and one too far behind
gets the same ``resync`` notice, as its last line."""

from __future__ import annotations

import json
import random
from typing import Any

from starlette.testclient import TestClient
from svc_helpers import auth, fill, seated

from schema.games import GameStreamFrame
from service.api.app import create_app
from service.base.settings import Settings

NDJSON = {"Accept": "application/x-ndjson"}


def sse_data(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


def ndjson_lines(body: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.splitlines()]


def test_each_line_is_an_sse_frames_data_for_the_same_seat(client: TestClient) -> None:
    table = seated(client, "rough")
    rng = random.Random(5)
    for _ in range(12):  # into the bidding and past the kitty: events only some seats see
        seat = table.game()["to_act"]
        assert table.act(seat, fill(rng.choice(table.legal(seat)), rng)).status_code == 200
    url = f"/v1/games/{table.game_id}/events?follow=false"
    for headers in (auth(table.tokens[0]), auth(table.tokens[2]), {}):  # two seats and a spectator
        sse = client.get(url, headers=headers)
        lines = client.get(url, headers={**headers, **NDJSON})
        assert lines.status_code == 200 and lines.headers["content-type"] == "application/x-ndjson"
        events = ndjson_lines(lines.text)
        assert events == sse_data(sse.text) and len(events) > 12
        for event in events:
            GameStreamFrame.model_validate(event)  # the schema the document gives each line
    mine = ndjson_lines(client.get(url, headers={**auth(table.tokens[0]), **NDJSON}).text)
    theirs = ndjson_lines(client.get(url, headers={**auth(table.tokens[2]), **NDJSON}).text)
    dealt = [{e["seat"] for f in events if (e := f["event"])["type"] == "dealt"} for events in (mine, theirs)]
    assert dealt == [{0}, {2}]  # each seat its own cards only, as over SSE


def test_a_reader_resumes_after_an_event_id(client: TestClient) -> None:
    table = seated(client, "rough")
    url = f"/v1/games/{table.game_id}/events?follow=false"
    seat = {**auth(table.tokens[1]), **NDJSON}
    events = ndjson_lines(client.get(url, headers=seat).text)
    resumed = client.get(url, headers={**seat, "Last-Event-ID": events[2]["id"]})
    assert ndjson_lines(resumed.text) == events[3:]
    by_query = client.get(f"{url}&last_event_id={events[2]['id']}", headers=seat)
    assert ndjson_lines(by_query.text) == events[3:]


def test_an_ndjson_stream_is_refused_as_the_sse_one_is(client: TestClient) -> None:
    table = seated(client, "rough")
    refusals = {
        f"/v1/games/{table.game_id}/events": ({**NDJSON, **auth("not-a-token")}, 401, "invalid_token"),
        "/v1/games/nope/events": (NDJSON, 404, "game_not_found"),
        f"/v1/games/{table.game_id}/events?last_event_id=x": (NDJSON, 422, "invalid_request"),
    }
    for url, (headers, status, code) in refusals.items():
        refused = client.get(url, headers=headers)
        assert refused.status_code == status, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["code"] == code


def test_a_reader_behind_the_window_gets_the_resync_notice_as_its_last_line(settings: Settings) -> None:
    rng = random.Random(11)
    with TestClient(create_app(settings.model_copy(update={"stream_window": 16}))) as client:
        table = seated(client, "rough", options={"target_score": 500})
        url = f"/v1/games/{table.game_id}/events?follow=false"
        first = ndjson_lines(client.get(url, headers=NDJSON).text)[0]["id"]
        for _ in range(64):  # two trims (every 32 moves) to a window of about 16 events
            game = table.game()
            if game["status"] != "active":
                break
            seat = game["to_act"]
            legal = table.legal(seat)
            passes = [a for a in legal if a["type"] == "pass"]  # a long match: nobody bids
            assert table.act(seat, fill(passes[0] if passes else legal[0], rng)).status_code == 200
        behind = ndjson_lines(client.get(url, headers={**NDJSON, "Last-Event-ID": first}).text)
        assert [(line["type"], line["code"]) for line in behind] == [("resync", "stream_window_passed")]
        assert behind[0]["last_event_id"] and "/view" in behind[0]["detail"]
