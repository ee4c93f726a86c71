"""One page rule and one rate-limit call for both APIs.

Every list of REST and of GraphQL reads its ``limit`` (and ``cursor``) through the page models of
``schema.pages``: each refuses a limit of 0 and one past its maximum with the same code, and the
maximum is the one the OpenAPI document declares (100, but an account's rating history, 200). And a
rate limit refuses REST's request and GraphQL's of one category with the same problem: its code,
status, detail and retry hint.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest
from graphql import Undefined, is_non_null_type
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth

from schema.pages import HistoryPage, Page, TopPage
from service.api.app import create_app
from service.api.graphql.schema import build_schema
from service.api.rest.openapi import openapi_document
from service.base.settings import Settings

# Each list of GraphQL (a Query field with a ``first``, a connection, or a ``limit``: a rating's latest
# changes, one page) and its REST twin (operationId).
TWINS = {
    "games": "listGames",
    "myGames": "listMyGames",
    "ladder": "getLadder",
    "rating": "getRating",
    "webhookDeliveries": "listWebhookDeliveries",
    "deadLetters": "listDeadLetters",
}
MODELS = {
    "listGames": Page,
    "listMyGames": TopPage,
    "getLadder": TopPage,
    "getRating": HistoryPage,
    "listWebhookDeliveries": Page,
    "listDeadLetters": Page,
}
# Path parameters and GraphQL arguments a list needs besides its page (their values need not exist:
# the page is checked before anything is read).
PATH = {"kind": "rough", "account_id": "player:x", "webhook_id": "w1"}
ARGUMENTS = {"kind": "ROUGH", "accountId": '"player:x"', "webhookId": '"w1"'}


def rest_lists() -> dict[str, tuple[str, dict[str, Any]]]:
    """operationId -> (path, its limit's schema), for every operation with a ``limit`` in its query."""
    found = {}
    for path, item in openapi_document()["paths"].items():
        for operation in item.values():
            for param in operation.get("parameters", ()):
                if param.get("in") == "query" and param["name"] == "limit":
                    found[operation["operationId"]] = (path.format(**PATH), param["schema"])
    return found


def graphql_lists() -> dict[str, list[str]]:
    """Every Query field with a ``first`` or ``limit`` argument, with its required arguments."""
    fields = build_schema()._schema.query_type.fields
    return {
        name: [
            a
            for a, arg in field.args.items()
            if is_non_null_type(arg.type) and arg.default_value is Undefined
        ]
        for name, field in fields.items()
        if "limit" in field.args or "first" in field.args
    }


def size_argument(field: str) -> str:
    """How a list's GraphQL field is sized: ``first`` (a connection) or ``limit``."""
    return "first" if "first" in build_schema()._schema.query_type.fields[field].args else "limit"


def test_every_list_of_both_apis_is_known_here_with_its_page_model() -> None:
    rest = rest_lists()
    assert set(rest) == set(MODELS) == set(TWINS.values())
    assert set(graphql_lists()) == set(TWINS)
    for operation, (_, schema) in rest.items():
        model = MODELS[operation]
        assert schema == {"type": "integer", **model.bounds("limit")}, operation
        assert (schema["minimum"], schema["maximum"]) == ((1, 200) if model is HistoryPage else (1, 100))


@pytest.fixture
def player(client: TestClient) -> str:
    token: str = client.post("/v1/players", json={}).json()["token"]
    return token


def headers_for(client: TestClient, operation: str, player: str) -> dict[str, str]:
    if operation == "listMyGames":
        return auth(player)
    return admin_headers(client) if "Webhook" in operation or "DeadLetter" in operation else {}


@pytest.mark.parametrize("operation", sorted(MODELS))
def test_every_rest_list_refuses_limit_0_and_past_its_maximum(
    client: TestClient, player: str, operation: str
) -> None:
    path, schema = rest_lists()[operation]
    headers = headers_for(client, operation, player)
    for limit in (0, schema["maximum"] + 1, 101 if schema["maximum"] == 100 else 201, "x", "1_0"):
        response = client.get(path, params={"limit": limit}, headers=headers)
        assert response.status_code == 422, (operation, limit, response.text)
        body = response.json()
        assert body["code"] == "invalid_request"
        assert body["errors"][0]["loc"] == ["query", "limit"]
    # the maximum passes the page (a rating asked of an account without one is 404 after it)
    assert client.get(path, params={"limit": schema["maximum"]}, headers=headers).status_code in (200, 404)


@pytest.mark.parametrize("field", sorted(TWINS))
def test_every_graphql_list_refuses_limit_0_and_past_its_maximum_with_the_rest_code(
    client: TestClient, player: str, field: str
) -> None:
    operation = TWINS[field]
    path, schema = rest_lists()[operation]
    headers = headers_for(client, operation, player)
    required = "".join(f"{name}: {ARGUMENTS[name]}, " for name in graphql_lists()[field])
    for limit in (0, schema["maximum"] + 1):
        query = f"{{ {field}({required}{size_argument(field)}: {limit}) {{ __typename }} }}"
        answer = client.post("/graphql", json={"query": query}, headers=headers).json()
        error = answer["errors"][0]
        rest = client.get(path, params={"limit": limit}, headers=headers).json()
        assert error["extensions"]["code"] == rest["code"] == "invalid_request", (field, limit, error)
        assert error["extensions"]["errors"][0]["loc"] == [size_argument(field)]
    query = f"{{ {field}({required}{size_argument(field)}: {schema['maximum']}) {{ __typename }} }}"
    errors = client.post("/graphql", json={"query": query}, headers=headers).json().get("errors", [])
    assert all(e["extensions"]["code"] != "invalid_request" for e in errors), errors


# One category each: the REST request and the GraphQL one it limits.
CATEGORIES = {
    "create_player": (("/v1/players", {}), "mutation { createPlayer { playerId } }"),
    "create_game": (
        ("/v1/games", {"kind": "rough"}),
        "mutation { createGame(input: {kind: ROUGH}) { game { gameId } } }",
    ),
    "register_bot": (("/v1/bots", {"name": "b"}), 'mutation { registerBot(input: {name: "b"}) { botId } }'),
}


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_a_rate_limit_refuses_rest_and_graphql_with_the_same_problem(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, category: str
) -> None:
    # The clock held still, so that both refusals count the same seconds until the window resets.
    frozen = (time.time() // 3600 + 1) * 3600 + 1800.25
    monkeypatch.setattr("service.api.ratelimit.time", SimpleNamespace(time=lambda: frozen))
    (path, body), mutation = CATEGORIES[category]
    limited = settings.model_copy(update={f"rate_{category}_per_address": "1/hour"})
    with TestClient(create_app(limited), client=("203.0.113.9", 40000)) as client:
        assert client.post(path, json=body).status_code < 300
        rest = client.post(path, json=body)
        graphql = client.post("/graphql", json={"query": mutation})
    assert rest.status_code == 429, rest.text
    problem, error = rest.json(), graphql.json()["errors"][0]
    extensions = error["extensions"]
    assert (
        (extensions["code"], extensions["status"])
        == (problem["code"], problem["status"])
        == ("rate_limited", 429)
    )
    assert error["message"] == problem["detail"]
    assert (
        extensions["retry_after"] == int(rest.headers["Retry-After"]) == int(graphql.headers["Retry-After"])
    )
    assert rest.headers["RateLimit-Limit"] == "1" and rest.headers["RateLimit-Remaining"] == "0"
