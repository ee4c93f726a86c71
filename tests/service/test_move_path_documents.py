"""Issue 38, the move path at half the CPU: what a process does once rather than on every request.

A GraphQL document is parsed, validated and weighed against the limits once per process
(``service.api.graphql.schema.Documents``): the same move sent again skips all three, while a document
whose lists are sized by its variables is weighed on every request, and a document that fails is never
recorded as passed. A request without an ``Origin`` (no browser's)
skips the CORS layer, and still carries the ``Vary: Origin`` that layer added. A first move with an
``Idempotency-Key`` costs no read of a stored answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import strawberry.schema.schema as strawberry_schema
from graphql import parse
from starlette.testclient import TestClient
from svc_helpers import auth, seated

from schema.games import ActionResponse
from service.api.edge import with_vary_origin
from service.api.graphql import schema as our_schema
from service.api.graphql.limits import QueryLimits, sized_by_variables
from service.api.graphql.schema import Documents, build_schema
from service.store.games import GameStore


def run(schema: Any, query: str, **variables: Any) -> Any:
    return asyncio.run(schema.execute(query, variable_values=variables or None))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times a document was parsed and validated."""
    calls = {"parse": 0, "validate": 0, "weigh": 0}
    parse, validate, weigh = (
        our_schema.parse_limited,
        strawberry_schema.validate_document,
        our_schema.check_document,
    )

    def counting_parse(*args: Any) -> Any:
        calls["parse"] += 1
        return parse(*args)

    def counting_validate(*args: Any) -> Any:
        calls["validate"] += 1
        return validate(*args)

    def counting_weigh(*args: Any) -> Any:
        calls["weigh"] += 1
        return weigh(*args)

    monkeypatch.setattr(our_schema, "parse_limited", counting_parse)
    monkeypatch.setattr(our_schema, "check_document", counting_weigh)
    monkeypatch.setattr(strawberry_schema, "validate_document", counting_validate)
    return calls


def test_a_document_sent_again_is_parsed_and_validated_once(counted: dict[str, int]) -> None:
    schema = build_schema()
    for _ in range(3):
        result = run(schema, "query Again { __typename }")
        assert result.errors is None and result.data == {"__typename": "Query"}
    assert counted == {"parse": 1, "validate": 1, "weigh": 1}


def test_a_document_that_fails_validation_is_validated_every_time(counted: dict[str, int]) -> None:
    schema = build_schema()
    for _ in range(2):
        result = run(schema, "{ noSuchField }")
        assert result.errors and result.errors[0].extensions["code"] == "invalid_query"
    assert counted["validate"] == 2


def test_a_document_that_does_not_parse_is_refused_every_time(counted: dict[str, int]) -> None:
    schema = build_schema()
    for _ in range(2):
        result = run(schema, "{ unclosed ")
        assert result.errors and result.errors[0].extensions["code"] == "invalid_query"
    assert counted["parse"] == 2 and counted["validate"] == 0


def test_a_limit_set_by_a_variable_is_checked_on_a_kept_document(counted: dict[str, int]) -> None:
    """The cost of ``games(limit: $n)`` depends on ``$n``: a kept document is weighed each time."""
    schema = build_schema(QueryLimits(max_cost=11))
    query = "query($n: Int) { games(limit: $n) { id } }"
    first = run(schema, query, n=10)  # within the limit (what the resolver answers here does not matter)
    assert not any(e.extensions.get("code") == "query_too_complex" for e in first.errors or ())
    refused = run(schema, query, n=11)
    assert refused.errors and refused.errors[0].extensions["code"] == "query_too_complex"
    assert "costs 12" in refused.errors[0].message
    assert counted["parse"] == 1 and counted["weigh"] == 2


def test_a_document_over_a_limit_is_refused_every_time(counted: dict[str, int]) -> None:
    schema = build_schema(QueryLimits(max_cost=5))
    for _ in range(2):
        refused = run(schema, "{ games(limit: 10) { id } }")
        assert refused.errors and refused.errors[0].extensions["code"] == "query_too_complex"
    assert counted["weigh"] == 2 and counted["validate"] == 0


def test_only_a_size_taken_from_a_variable_makes_a_document_weighed_again() -> None:
    assert sized_by_variables(parse("query($n: Int) { games(limit: $n) { id } }"))
    assert sized_by_variables(
        parse("query($n: Int) { ...F } fragment F on Query { games(first: $n) { id } }")
    )
    assert not sized_by_variables(parse("query($g: ID!) { game(gameId: $g) { id } games(limit: 3) { id } }"))


def test_the_kept_documents_are_bounded_and_a_forgotten_one_is_validated_again() -> None:
    documents = Documents(kept=2)
    limits = QueryLimits()
    first = documents.parse("{ a: __typename }", limits)
    documents.passed("{ a: __typename }", first, ("rule",))
    assert documents.validated(first, ("rule",)) and not documents.validated(first, ("other",))
    documents.parse("{ b: __typename }", limits)
    documents.parse("{ c: __typename }", limits)
    assert list(documents.parsed) == ["{ b: __typename }", "{ c: __typename }"]
    assert not documents.validated(first, ("rule",))
    assert documents.parse("{ a: __typename }", limits) is not first


def test_only_a_kept_document_is_recorded_as_validated() -> None:
    documents = Documents(kept=2)
    stray = documents.parse("{ a: __typename }", QueryLimits())
    documents.parsed.clear()
    documents.passed("{ a: __typename }", stray, ("rule",))
    assert not documents.validated(stray, ("rule",))


def test_vary_origin_is_added_as_starlette_cors_adds_it() -> None:
    assert with_vary_origin([(b"etag", b'"1"')]) == [(b"etag", b'"1"'), (b"vary", b"Origin")]
    headers = [(b"vary", b"Authorization"), (b"etag", b'"1"'), (b"vary", b"Accept-Language")]
    assert with_vary_origin(headers) == [
        (b"vary", b"Authorization, Accept-Language, Origin"),
        (b"etag", b'"1"'),
    ]


def test_an_answer_to_a_request_without_origin_varies_on_origin(client: TestClient) -> None:
    response = client.get("/v1/rules")
    assert response.headers.get_list("vary") == ["Origin"]
    assert "access-control-allow-origin" not in response.headers
    assert response.headers["x-content-type-options"] == "nosniff" and response.headers["x-request-id"]


def test_a_browser_request_still_gets_its_cors_headers_once(client: TestClient) -> None:
    response = client.get("/v1/rules", headers={"Origin": "https://cards.example"})
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["x-content-type-options"] == "nosniff" and response.headers["x-request-id"]


def test_a_first_keyed_move_reads_no_stored_answer_and_its_retry_still_replays(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Idempotency-Key without an extra round trip: the stored answer is read only once a move is
    refused (a retry of an applied move always is: the game has moved on), or found by the commit's
    own script in its round trip; the retry gets the first answer, marked replayed, applied once."""
    reads: list[str] = []
    read = GameStore.idempotent_result

    async def counted(self: GameStore, gid: str, scope: str, key: str) -> str | None:
        reads.append(key)
        return await read(self, gid, scope, key)

    monkeypatch.setattr(GameStore, "idempotent_result", counted)
    table = seated(client, "rough", seed="38")
    gid = table.game_id
    seat = client.get(f"/v1/games/{gid}").json()["to_act"]
    body = {"action": table.legal(seat)[0]}
    headers = {**auth(table.tokens[seat]), "Idempotency-Key": "move-1"}
    first = client.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
    assert first.status_code == 200 and reads == [], (first.text, reads)
    again = client.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true", again.text
    assert (
        again.json()["version"] == first.json()["version"] == client.get(f"/v1/games/{gid}").json()["version"]
    )


def test_a_keyed_move_is_answered_with_the_very_text_stored_for_its_key(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One serialization of a move's answer: the REST body of a keyed move is, byte for byte, the
    answer its commit stored for the Idempotency-Key (ActionResponse.json_text), which a retry then
    gets back marked replayed."""
    stored: list[str] = []
    commit = GameStore.commit

    async def keeping(self: GameStore, *args: Any, **kwargs: Any) -> Any:
        stored.append(kwargs["idempotent_result"])
        return await commit(self, *args, **kwargs)

    dumps: list[int] = []
    dump = ActionResponse.model_dump_json

    def counting(self: ActionResponse, **kwargs: Any) -> str:
        dumps.append(self.version)
        return dump(self, **kwargs)

    monkeypatch.setattr(GameStore, "commit", keeping)
    table = seated(client, "euchre5", seed="3805")
    monkeypatch.setattr(ActionResponse, "model_dump_json", counting)
    gid = table.game_id
    seat = client.get(f"/v1/games/{gid}").json()["to_act"]
    headers = {**auth(table.tokens[seat]), "Idempotency-Key": "move-1"}
    body = {"action": table.legal(seat)[0]}
    first = client.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
    assert first.status_code == 200, first.text
    assert dumps == [first.json()["version"]], dumps  # serialized once for the store and the body
    assert len(stored) == 1 and json.loads(stored[0])["response"] == first.json()
    assert stored[0].endswith(f'"response": {first.text}}}'), (stored[0][-200:], first.text[-200:])
    again = client.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
    assert again.json() == {**first.json(), "replayed": True}
