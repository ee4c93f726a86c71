"""Values a client sends back encoded (issue 32, finding 6): the cursors of the open games, of a
player's list, of the ladders and of the webhook logs, and the event ids streams resume after. Each is
checked for length before it is parsed, and anything that is not one this server wrote is 422
``invalid_request`` in both APIs: never a 500 with a traceback in the log, whatever its nesting,
alphabet or encoding. A guest token costs nothing, so this is what anyone can send."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth, create

from service.base.problems import ProblemError
from service.games.cursors import (
    MAX_LENGTH,
    MY_GAMES_PREFIX,
    PREFIX,
    decode_cursor,
    decode_my_games_cursor,
    opaque_json,
)
from service.store.keys import RESUME_AFTER_PATTERN

LADDER_PREFIX = "l1."  # service/games/ratings.py


def encoded(prefix: str, raw: bytes) -> str:
    return prefix + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def nested(prefix: str, depth: int) -> str:
    """A cursor whose JSON nests ``depth`` arrays: past the parser's recursion limit at 1,000."""
    return encoded(prefix, b"[" * depth + b"]" * depth)


DEEP = [nested(prefix, 1000) for prefix in (MY_GAMES_PREFIX, PREFIX, LADDER_PREFIX)]

MY_GAMES = "query($c: String) { myGames(after: $c) { pageInfo { endCursor } } }"
GAMES_PAGE = "query($c: String) { games(after: $c) { pageInfo { endCursor } } }"
LADDER = "query($c: String) { ladder(kind: ROUGH, after: $c) { pageInfo { endCursor } } }"


@pytest.fixture
def guest(client: TestClient) -> str:
    response = client.post("/v1/players", json={"name": "Ada"})
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


def no_traceback(capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    out, err = capsys.readouterr()
    text = out + err + caplog.text
    assert "Traceback" not in text and "RecursionError" not in text, text[-2000:]
    assert "unhandled_error" not in text and not any(r.exc_info for r in caplog.records)


def refused(response: Any, loc: list[str]) -> None:
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == "invalid_request" and "next_cursor" in body["detail"]
    assert body["errors"][0]["loc"] == loc


def gql_code(client: TestClient, query: str, token: str | None = None, **variables: Any) -> str | None:
    headers = auth(token) if token else {}
    response = client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    assert response.status_code == 200, response.text
    errors = response.json().get("errors")
    return None if not errors else str(errors[0]["extensions"]["code"])


# --- the cursor nested 1,000 deep ----------------------------------------------------------------------


def test_a_cursor_nested_1000_deep_is_422_in_rest_without_a_traceback(
    client: TestClient,
    guest: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    capsys.readouterr()
    for cursor in DEEP:
        refused(
            client.get("/v1/me/games", params={"cursor": cursor}, headers=auth(guest)), ["query", "cursor"]
        )
        refused(client.get("/v1/games", params={"cursor": cursor}), ["query", "cursor"])
        refused(client.get("/v1/ladders/rough", params={"cursor": cursor}), ["query", "cursor"])
    no_traceback(capsys, caplog)


def test_a_cursor_nested_1000_deep_is_invalid_request_in_graphql_without_a_traceback(
    client: TestClient,
    guest: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    capsys.readouterr()
    for cursor in DEEP:
        assert gql_code(client, MY_GAMES, guest, c=cursor) == "invalid_request"
        assert gql_code(client, GAMES_PAGE, c=cursor) == "invalid_request"
        assert gql_code(client, LADDER, c=cursor) == "invalid_request"
    no_traceback(capsys, caplog)


def test_the_decoder_checks_the_length_before_it_parses() -> None:
    """Within the length a cursor's JSON cannot nest deep enough to trouble the parser; past it nothing
    is decoded. Whatever the bytes, the decoder answers a value or None, and never raises."""
    shallow = nested(MY_GAMES_PREFIX, 70)
    assert len(shallow) <= MAX_LENGTH and opaque_json(shallow, MY_GAMES_PREFIX) is not None
    assert opaque_json(nested(MY_GAMES_PREFIX, 1000), MY_GAMES_PREFIX) is None
    assert opaque_json(nested(MY_GAMES_PREFIX, 200_000), MY_GAMES_PREFIX) is None
    for body in (
        b"\xff\xfe",  # not ASCII
        b'"\\ud800"',  # a lone surrogate
        b"1" * 100,  # a long integer
        b"NaN",
        b'[1e999, "g"]',
        b'[true, "g"]',
        b"{}",
    ):
        opaque_json(encoded(PREFIX, body), PREFIX)  # a value or None: it does not raise
        for decode in (decode_cursor, decode_my_games_cursor):
            with pytest.raises(ProblemError, match="not one this server gave"):
                decode(encoded(PREFIX, body))
    for text in (
        PREFIX + "====",
        PREFIX + "a",
        PREFIX + "ab=",
        PREFIX + " YQ",
        PREFIX + "é",
        MY_GAMES_PREFIX,
    ):
        assert opaque_json(text, PREFIX) is None


# --- any string --------------------------------------------------------------------------------------

TEXT = st.text(
    alphabet=st.characters(codec="utf-8"), max_size=400
)  # no lone surrogate: a URL cannot carry one
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)
CURSORS = st.one_of(
    TEXT,
    st.builds(lambda p, t: p + t, st.sampled_from([PREFIX, MY_GAMES_PREFIX, LADDER_PREFIX]), TEXT),
    st.builds(
        lambda p, raw: encoded(p, raw),
        st.sampled_from([PREFIX, MY_GAMES_PREFIX, LADDER_PREFIX]),
        st.binary(max_size=300),
    ),
    st.builds(
        lambda p, v: encoded(p, json.dumps(v).encode()),
        st.sampled_from([PREFIX, MY_GAMES_PREFIX, LADDER_PREFIX]),
        JSON_VALUES,
    ),
    st.builds(nested, st.sampled_from([PREFIX, MY_GAMES_PREFIX, LADDER_PREFIX]), st.integers(0, 3000)),
)
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@PROPERTY
@given(cursor=CURSORS)
def test_any_string_as_a_cursor_is_never_a_5xx(client: TestClient, guest: str, cursor: str) -> None:
    """A cursor is either a page or 422 ``invalid_request``, in both APIs and every list."""
    for response in (
        client.get("/v1/games", params={"cursor": cursor}),
        client.get("/v1/me/games", params={"cursor": cursor}, headers=auth(guest)),
        client.get("/v1/ladders/rough", params={"cursor": cursor}),
        client.get(
            "/v1/admin/webhooks/dead-letters", params={"cursor": cursor}, headers=admin_headers(client)
        ),
    ):
        assert response.status_code in (200, 422), response.text
        if response.status_code == 422:
            assert response.json()["code"] == "invalid_request"
    for query, token in ((GAMES_PAGE, None), (MY_GAMES, guest), (LADDER, None)):
        assert gql_code(client, query, token, c=cursor) in (None, "invalid_request")


@PROPERTY
@given(
    after=st.one_of(
        TEXT, st.from_regex(r"[0-9]{20,40}(-[0-9]{1,40})?|[0-9]{1,19}-[0-9]{20,40}", fullmatch=True)
    )
)
def test_any_string_as_a_resume_id_is_never_a_5xx(client: TestClient, guest: str, after: str) -> None:
    """The id a stream resumes after is matched against a bounded pattern before anything reads it."""
    assume(not RESUME_AFTER_PATTERN.fullmatch(after))  # a valid one opens a stream that follows on
    response = client.get("/v1/me/events", params={"last_event_id": after}, headers=auth(guest))
    assert response.status_code == 422 and response.json()["code"] == "invalid_request", response.text


def test_a_well_formed_cursor_still_pages(client: TestClient) -> None:
    """The checks refuse what this server did not write, not what it did."""
    for _ in range(3):
        create(client, "rough")
    first = client.get("/v1/games", params={"limit": 2}).json()
    assert decode_cursor(first["next_cursor"]).game_id == first["games"][-1]["game_id"]
    second = client.get("/v1/games", params={"limit": 2, "cursor": first["next_cursor"]})
    assert second.status_code == 200 and len(second.json()["games"]) == 1
