"""Input limits: bodies too large (413) or not JSON (415), JSON too deep or with huge integers, names
with control or bidi characters; each a problem with its code, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from service.api.edge import EdgeMiddleware
from service.api.limits import parse_json
from service.base.problems import ProblemError

PROBLEM = "application/problem+json"
JSON = {"content-type": "application/json"}
JOIN_GQL = "mutation($id: ID!, $name: String!) { joinGame(input: {gameId: $id, name: $name}) { seat token } }"
REGISTER_GQL = (
    "mutation($name: String!, $contact: String) { registerBot(input: {name: $name, contact: $contact}) "
    "{ botId } }"
)


def assert_problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status
    return body


def new_game(client: TestClient) -> str:
    response = client.post("/v1/games", json={"kind": "rough"})
    assert response.status_code == 201, response.text
    gid: str = response.json()["game"]["game_id"]
    return gid


# --- size ---------------------------------------------------------------------------------------


def test_a_body_over_the_limit_by_content_length_is_413(client: TestClient) -> None:
    response = client.post("/v1/games", content=b" " * 65_537, headers=JSON)
    body = assert_problem(response, 413, "payload_too_large")
    assert "65536 bytes" in body["detail"]


def test_a_chunked_body_without_content_length_is_413_once_it_passes_the_limit(live_server: str) -> None:
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        for _ in range(1000):  # 1 MB, far over the 64 KiB limit
            sent += 1
            yield b" " * 1024

    with httpx.Client(base_url=live_server, timeout=30) as http:
        response = http.post("/v1/bots", content=chunks(), headers=JSON)
    assert "content-length" not in response.request.headers
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert_problem(response, 413, "payload_too_large")


class Exhausted(Exception):
    pass


@pytest.mark.anyio
async def test_the_middleware_refuses_by_content_length_without_reading_the_body() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the application must not be called")

    async def receive() -> Any:
        raise AssertionError("the body must not be read")

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/games", "headers": [
        (b"content-length", b"1000000000"), (b"content-type", b"application/json")]}  # fmt: skip
    await EdgeMiddleware(app, max_body_bytes=65_536)(scope, receive, send)
    assert sent[0]["status"] == 413


@pytest.mark.anyio
async def test_the_middleware_stops_a_chunked_body_at_the_first_chunk_past_the_limit() -> None:
    pulled = 0

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        pulled += 1
        if pulled > 1000:
            raise Exhausted
        return {"type": "http.request", "body": b" " * 10_000, "more_body": True}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while True:  # reads until the middleware stops it (bounded by the receive above)
            await receive()

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/bots", "headers": [
        (b"transfer-encoding", b"chunked"), (b"content-type", b"application/json")]}  # fmt: skip
    await EdgeMiddleware(app, max_body_bytes=65_536)(scope, receive, send)
    assert pulled == 7  # 70,000 bytes: the first chunk past 65,536
    assert sent[0]["status"] == 413


def test_a_large_graphql_body_is_413(client: TestClient) -> None:
    response = client.post("/graphql", content=b" " * 70_000, headers=JSON)
    assert_problem(response, 413, "payload_too_large")


# --- content type -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/games", "/v1/bots", "/graphql"])
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_post_body_that_is_not_json_is_415(client: TestClient, path: str, content_type: str | None) -> None:
    headers = {"content-type": content_type} if content_type else {}
    response = client.post(path, content=b'{"kind": "rough"}', headers=headers)
    body = assert_problem(response, 415, "unsupported_media_type")
    assert "application/json" in body["detail"]


def test_json_with_a_charset_parameter_is_accepted(client: TestClient) -> None:
    headers = {"content-type": "Application/JSON; charset=utf-8"}
    response = client.post("/v1/bots", content=b'{"name": "charset"}', headers=headers)
    assert response.status_code == 201, response.text


def test_a_post_without_a_body_needs_no_content_type(client: TestClient) -> None:
    gid = new_game(client)
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
    response = client.post(f"/v1/games/{gid}/leave", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text


# --- JSON ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_json_nested_ten_thousand_deep_is_a_malformed_body(client: TestClient, opener: str) -> None:
    raw = ('{"kind": "rough", "options": ' + opener * 10_000).encode()
    body = assert_problem(client.post("/v1/games", content=raw, headers=JSON), 400, "malformed_body")
    assert "nested more than 32 levels" in body["detail"]


def test_json_nested_within_the_limit_reaches_validation(client: TestClient) -> None:
    nested: Any = 1
    for _ in range(30):
        nested = [nested]
    response = client.post("/v1/games", json={"kind": "rough", "options": {"x": nested}})
    assert response.status_code == 422 and response.json()["code"] == "invalid_options"


def test_brackets_inside_strings_are_not_nesting(client: TestClient) -> None:
    response = client.post("/v1/bots", json={"name": "brackets", "contact": "[{" * 100})
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    "path", ["/v1/games", "/v1/bots", "/v1/games/some-game/join"], ids=["create", "register", "join"]
)
def test_a_five_thousand_digit_integer_is_an_invalid_request(client: TestClient, path: str) -> None:
    raw = b'{"kind": "rough", "seat": ' + b"9" * 5000 + b"}"
    body = assert_problem(client.post(path, content=raw, headers=JSON), 422, "invalid_request")
    assert "5000 digits" in body["detail"] and body["errors"][0]["type"] == "int_too_long"


def test_nan_and_infinity_are_not_json(client: TestClient) -> None:
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        raw = b'{"kind": "rough", "seed": ' + constant + b"}"
        assert_problem(client.post("/v1/games", content=raw, headers=JSON), 400, "malformed_body")


def test_parse_json_answers_problems_only() -> None:
    assert parse_json(b'{"a": [1, "]]]", {"b": -12}]}') == {"a": [1, "]]]", {"b": -12}]}
    assert parse_json(b'[[["\\"[[[[[["]]]', max_depth=3) == [[['"[[[[[[']]]
    for raw, code in [
        (b"[" * 100_000, "malformed_body"),
        (b"[" * 33 + b"]" * 33, "malformed_body"),
        (b'{"a":' * 33 + b"1" + b"}" * 33, "malformed_body"),
        (b"-" + b"1" * 31, "invalid_request"),
        (b"\xff\xfe", "malformed_body"),
        (b'{"a": 1', "malformed_body"),
    ]:
        with pytest.raises(ProblemError) as refused:
            parse_json(raw)
        assert refused.value.code == code


# --- names --------------------------------------------------------------------------------------

UNSAFE = [
    ("nul\x00", "U+0000", 4),
    ("new\nline", "U+000A", 4),
    ("abc\u202egnp.exe", "U+202E", 4),
    ("\u2066isolate", "U+2066", 1),
    ("zero\u200bwidth", "U+200B", 5),
    ("bom\ufeff", "U+FEFF", 4),
]


@pytest.mark.parametrize(("name", "code_point", "position"), UNSAFE)
def test_rest_join_refuses_unsafe_characters_in_the_name(
    client: TestClient, name: str, code_point: str, position: int
) -> None:
    gid = new_game(client)
    body = assert_problem(client.post(f"/v1/games/{gid}/join", json={"name": name}), 422, "invalid_request")
    assert code_point in body["detail"] and f"position {position}" in body["detail"]
    assert body["errors"][0]["loc"] == ["name"] and body["errors"][0]["type"] == "unsafe_character"


@pytest.mark.parametrize(("name", "code_point", "position"), UNSAFE)
def test_rest_register_bot_refuses_unsafe_characters_in_name_and_contact(
    client: TestClient, name: str, code_point: str, position: int
) -> None:
    body = assert_problem(client.post("/v1/bots", json={"name": name}), 422, "invalid_request")
    assert code_point in body["detail"] and f"position {position}" in body["detail"]
    body = assert_problem(
        client.post("/v1/bots", json={"name": "fine", "contact": name}), 422, "invalid_request"
    )
    assert body["errors"][0]["loc"] == ["contact"] and code_point in body["detail"]


def gql_error(client: TestClient, query: str, **variables: Any) -> dict[str, Any]:
    response = client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    errors = response.json()["errors"]
    error: dict[str, Any] = errors[0]
    return error


@pytest.mark.parametrize(("name", "code_point", "position"), UNSAFE)
def test_graphql_join_seat_and_register_bot_refuse_unsafe_characters(
    client: TestClient, name: str, code_point: str, position: int
) -> None:
    gid = new_game(client)
    for error in (
        gql_error(client, JOIN_GQL, id=gid, name=name),
        gql_error(client, REGISTER_GQL, name=name),
        gql_error(client, REGISTER_GQL, name="fine", contact=name),
    ):
        assert error["extensions"]["code"] == "invalid_request"
        assert code_point in error["message"] and f"position {position}" in error["message"]
    assert all(not s["filled"] for s in client.get(f"/v1/games/{gid}").json()["seats"])


def test_names_with_accents_emoji_and_joiners_are_accepted(client: TestClient) -> None:
    gid = new_game(client)
    name = "Zoë 👩\u200d👩\u200d👧 مرحبا"
    response = client.post(f"/v1/games/{gid}/join", json={"name": name, "seat": 1})
    assert response.status_code == 201, response.text
    assert client.get(f"/v1/games/{gid}").json()["seats"][1]["name"] == name
    response = client.post("/graphql", json={"query": REGISTER_GQL, "variables": {"name": name}})
    assert "errors" not in response.json() and response.json()["data"]["registerBot"]["botId"]
