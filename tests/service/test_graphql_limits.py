"""GraphQL limits: every document is bounded before anything expands its fragments, every GraphQL error
has ``extensions.code``, and requests that are not GraphQL-shaped get problem+json, never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from graphql import GraphQLError, get_introspection_query, parse
from starlette.testclient import TestClient

from service.api.app import create_app
from service.api.graphql.errors import coded
from service.api.graphql.limits import QueryLimits, check_document, check_query, limits_of
from service.base.problems import PROBLEM_JSON, ProblemError
from service.base.settings import Settings


def post(client: TestClient, query: str, **variables: Any) -> dict[str, Any]:
    response = client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def first_error(client: TestClient, query: str, **variables: Any) -> dict[str, Any]:
    body = post(client, query, **variables)
    assert body.get("errors"), body
    error: dict[str, Any] = body["errors"][0]
    return error


def refused_with(client: TestClient, query: str, code: str = "query_too_complex") -> str:
    """The message of the refusal, once its code is checked."""
    error = first_error(client, query)
    assert error["extensions"]["code"] == code, error
    message: str = error["message"]
    return message


def doubling_fragments(count: int) -> str:
    """`count` fragments, each spreading the previous one twice: 2^(count-1) copies of the first."""
    fragments = ["fragment F0 on Game { id status }"]
    fragments += [f"fragment F{i} on Game {{ ...F{i - 1} ...F{i - 1} }}" for i in range(1, count)]
    return f"query {{ games {{ ...F{count - 1} }} }}\n" + "\n".join(fragments)


def problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    assert response.json()["code"] == code


# --- expansion bombs --------------------------------------------------------------------------


@pytest.mark.parametrize("count", [22, 40])
def test_a_fragment_doubling_bomb_is_refused_and_the_server_keeps_answering(
    client: TestClient, count: int
) -> None:
    query = doubling_fragments(count)
    assert len(query) < 1600
    message = refused_with(client, query)
    assert "ATOUT_GRAPHQL_MAX_COST" in message
    assert client.get("/healthz").json() == {"status": "ok"}


def test_the_bomb_is_refused_over_a_websocket_too(client: TestClient) -> None:
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send_json({"type": "connection_init", "payload": {}})
        assert ws.receive_json()["type"] == "connection_ack"
        ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": doubling_fragments(40)}})
        message = ws.receive_json()
    assert message["type"] == "error"
    assert message["payload"][0]["extensions"]["code"] == "query_too_complex"


def test_a_websocket_message_nested_too_deep_closes_the_socket_as_not_json(client: TestClient) -> None:
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send_json({"type": "connection_init", "payload": {}})
        assert ws.receive_json()["type"] == "connection_ack"
        ws.send_text('{"id": "1", "type": "subscribe", "payload": ' + "[" * 10_000 + "]" * 10_000 + "}")
        closed = ws.receive()
    assert closed["type"] == "websocket.close" and closed["code"] == 4400


@pytest.mark.parametrize(
    "query",
    [
        "fragment A on Game { ...A } { games { ...A } }",
        "fragment A on Game { id ...B } fragment B on Game { seats { seat } ...C } "
        "fragment C on Game { ...A } { games { ...A } }",
    ],
    ids=["itself", "through_others"],
)
def test_fragments_that_spread_each_other_in_a_cycle_are_refused(client: TestClient, query: str) -> None:
    assert "cycle" in refused_with(client, query, "invalid_query")


# --- each limit, at its default ----------------------------------------------------------------

DEFAULTS = QueryLimits()
LIMITED = {
    "max_bytes": "{ rules { kind } }" + " " * 33_000,
    "max_tokens": "{ " + "rules " * (DEFAULTS.max_tokens + 1) + "}",
    "max_operations": " ".join(f"query Q{i} {{ rules {{ id }} }}" for i in range(21)),
    "max_fragments": "{ __typename } "
    + " ".join(f"fragment F{i} on Query {{ rules {{ id }} }}" for i in range(101)),
    "max_spreads": "fragment F on Query { rules { kind } } { " + "...F " * (DEFAULTS.max_spreads + 1) + "}",
    "max_aliases": "{ " + " ".join(f"a{i}: rules" for i in range(31)) + " }",
    "max_selections": "{ " + "__typename " * (DEFAULTS.max_selections + 1) + "}",
    "max_depth": "{ " + "games { seats { " * 8 + "seat" + " }" * 16 + " }",
    "max_cost": "{ games(limit: 100) { " + " ".join(f"s{i}: seats {{ seat }}" for i in range(5)) + " } }",
    "max_value_depth": "{ games(limit: " + "[" * 40 + "1" + "]" * 40 + ") { id } }",
}


@pytest.mark.parametrize("setting", sorted(LIMITED))
def test_each_limit_refuses_with_query_too_complex_naming_its_setting(
    client: TestClient, setting: str
) -> None:
    message = refused_with(client, LIMITED[setting])
    assert f"ATOUT_GRAPHQL_{setting.upper()}" in message


def test_values_nested_deeper_than_the_parser_can_recurse_are_refused(client: TestClient) -> None:
    message = refused_with(client, "{ games(limit: " + "[" * 500 + "]" * 500 + ") { id } }")
    assert "nested too deeply" in message


def test_a_flood_of_comments_counts_like_tokens(client: TestClient) -> None:
    message = refused_with(client, "#\n" * (DEFAULTS.max_tokens + 1) + "{ rules { kind } }")
    assert "comments" in message and "ATOUT_GRAPHQL_MAX_TOKENS" in message


def test_the_settings_defaults_are_the_limits_defaults(settings: Settings) -> None:
    assert limits_of(Settings()) == DEFAULTS


def test_the_limits_follow_their_settings(settings: Settings) -> None:
    strict = settings.model_copy(update={"graphql_max_aliases": 1, "graphql_max_cost": 10})
    with TestClient(create_app(strict)) as client:
        assert "ATOUT_GRAPHQL_MAX_ALIASES" in refused_with(client, "{ a: rules { kind } b: rules { kind } }")
        assert "errors" not in post(client, "{ a: rules { kind } }")
        # games(first: n) { nodes { gameId } }: 1 + n x (nodes + gameId)
        assert "ATOUT_GRAPHQL_MAX_COST" in refused_with(client, "{ games(first: 5) { nodes { gameId } } }")
        assert "errors" not in post(client, "{ games(first: 4) { nodes { gameId } } }")


# --- what real clients send passes ---------------------------------------------------------------


def test_a_normal_query_with_fragments_passes(client: TestClient) -> None:
    client.post("/graphql", json={"query": "mutation { createGame(input: {kind: ROUGH}) { inviteCode } }"})
    query = """
        fragment SeatParts on Seat { seat seatKind filled }
        fragment GameParts on Game { gameId status players seats { ...SeatParts } }
        query Lobby($n: Int) {
          games(first: $n) { nodes { ...GameParts ... on Game { version } } pageInfo { hasNextPage } }
          rules { kind }
        }
    """
    body = post(client, query, n=10)
    assert "errors" not in body, body
    assert body["data"]["games"]["nodes"][0]["seats"][0]["seat"] == 0


def test_graphiql_full_introspection_query_passes(client: TestClient) -> None:
    query = get_introspection_query(
        descriptions=True,
        specified_by_url=True,
        directive_is_repeatable=True,
        schema_description=True,
        input_value_deprecation=True,
        one_of=True,
    )
    body = post(client, query)
    assert "errors" not in body, body
    names = {t["name"] for t in body["data"]["__schema"]["types"]}
    assert {"Query", "Mutation", "Subscription", "Game"} <= names


def test_introspection_obeys_the_depth_limit(settings: Settings) -> None:
    with TestClient(create_app(settings.model_copy(update={"graphql_max_depth": 13}))) as client:
        message = refused_with(client, get_introspection_query())
        assert "ATOUT_GRAPHQL_MAX_DEPTH" in message


def test_introspection_switched_off_is_refused_with_a_code(settings: Settings) -> None:
    with TestClient(create_app(settings.model_copy(update={"graphql_introspection": False}))) as client:
        message = refused_with(client, "{ __schema { types { name } } }", "introspection_disabled")
        assert "ATOUT_GRAPHQL_INTROSPECTION" in message
        hidden = 'fragment T on Query { __type(name: "Game") { name } } { ...T }'
        refused_with(client, hidden, "introspection_disabled")
        assert post(client, "{ __typename rules { kind } }")["data"]["__typename"] == "Query"
        # nor do error messages suggest the names of fields
        assert "Did you mean" not in refused_with(client, "{ gmes { id } }", "invalid_query")


def test_with_introspection_on_errors_suggest_names(client: TestClient) -> None:
    assert "Did you mean" in refused_with(client, "{ gmes { id } }", "invalid_query")


# --- every GraphQL error has a code ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        ("{ rules", {}),  # syntax
        ("{ nope }", {}),  # unknown field
        ("query($n: Int!) { games(limit: $n) { id } }", {"n": "ten"}),  # variable of the wrong type
        ("query($n: Int!) { games(limit: $n) { id } }", {"n": 10**20}),  # over 32 bits
        ("{ games(limit: " + "9" * 5_000 + ") { id } }", {}),  # a 5,000-digit literal
    ],
    ids=["syntax", "unknown_field", "variable_type", "variable_range", "huge_literal"],
)
def test_graphql_core_refusals_carry_invalid_query(
    client: TestClient, query: str, variables: dict[str, Any]
) -> None:
    error = first_error(client, query, **variables)
    assert error["extensions"]["code"] == "invalid_query", error
    assert error["extensions"]["status"] == 400


# --- requests that are not GraphQL-shaped: problem+json -------------------------------------------


def raw_post(client: TestClient, body: str, content_type: str = "application/json") -> Any:
    return client.post("/graphql", content=body.encode(), headers={"Content-Type": content_type})


def test_variables_nested_10000_deep_are_refused_without_a_500(client: TestClient) -> None:
    variables = '{"action": ' + "[" * 10_000 + "]" * 10_000 + "}"
    body = (
        '{"query": "mutation($a: ActionInput!) { submitAction(gameId: \\"x\\", action: $a) { version } }", '
    )
    problem(raw_post(client, body + '"variables": ' + variables + "}"), 400, "malformed_body")


def test_a_5000_digit_integer_variable_is_refused_without_a_500(client: TestClient) -> None:
    body = json.dumps({"query": "query($n: Int) { games(limit: $n) { id } }"})
    problem(
        raw_post(client, body[:-1] + ', "variables": {"n": ' + "7" * 5_000 + "}}"), 422, "invalid_request"
    )


def test_variables_in_a_get_url_go_through_the_same_parser(client: TestClient) -> None:
    params = {
        "query": "query($n: Int) { games(limit: $n) { id } }",
        "variables": '{"n": ' + "7" * 5_000 + "}",
    }
    problem(client.get("/graphql", params=params), 422, "invalid_request")


def test_a_batch_is_refused_as_problem_json(client: TestClient) -> None:
    problem(
        raw_post(client, json.dumps([{"query": "{ rules { kind } }"}, {"query": "{ rules { kind } }"}])),
        400,
        "invalid_query",
    )


def test_a_mutation_over_get_is_refused_as_problem_json(client: TestClient) -> None:
    response = client.get("/graphql", params={"query": 'mutation { registerBot(name: "x") { botId } }'})
    problem(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "POST"


def test_bad_json_is_refused_as_problem_json(client: TestClient) -> None:
    problem(raw_post(client, '{"query": "{ rules { kind } }"'), 400, "malformed_body")


def test_a_wrong_content_type_is_refused_as_problem_json(client: TestClient) -> None:
    problem(
        raw_post(client, "query=%7B%20rules%20%7D", "application/x-www-form-urlencoded"),
        415,
        "unsupported_media_type",
    )


@pytest.mark.parametrize("body", ["null", "1", '"x"', "true"])
def test_a_json_body_that_is_not_an_object_is_refused_as_problem_json(client: TestClient, body: str) -> None:
    problem(raw_post(client, body), 400, "invalid_query")


def test_a_request_without_a_query_is_refused_as_problem_json(client: TestClient) -> None:
    problem(raw_post(client, '{"variables": {}}'), 400, "invalid_query")


def test_a_query_over_get_still_answers(client: TestClient) -> None:
    response = client.get("/graphql", params={"query": "{ __typename }"})
    assert response.json() == {"data": {"__typename": "Query"}}


# --- the pass itself ----------------------------------------------------------------------------


def test_list_fields_weigh_by_their_limit_and_fragments_count_at_every_spread() -> None:
    limits = QueryLimits(max_cost=2_000)
    # games(limit: 40): 1 + 40 x (id + seats + 5 x (seat + kind)) = 1 + 40 x 12 = 481 per spread
    query = "fragment G on Game { id seats { seat kind } } { a: games(limit: 40) { ...G } }"
    check_query(query, limits)
    four = query.replace(
        "{ a: games", "{ " + " ".join(f"x{i}: games(limit: 40) {{ ...G }}" for i in range(3)) + " a: games"
    )
    with pytest.raises(ProblemError, match="costs 1924") as refused:
        check_query(four, QueryLimits(max_cost=1_923))
    assert getattr(refused.value, "code", None) == "query_too_complex"
    check_query(four, QueryLimits(max_cost=1_924))


def test_a_limit_given_as_a_variable_weighs_the_list() -> None:
    document = parse("query($n: Int) { games(limit: $n) { id } }")
    check_document(document, QueryLimits(max_cost=11), {"n": 10})
    with pytest.raises(ProblemError, match="costs 12"):
        check_document(document, QueryLimits(max_cost=11), {"n": 11})


@pytest.mark.parametrize("page", ["games", "myGames"])
def test_a_connection_weighs_by_its_first_and_its_nodes_are_counted_once(page: str) -> None:
    """A connection of 100 games costs what 100 games cost (not 100 times 50): its `first` sizes its
    list (`edges`, `nodes`), the same through a fragment on the connection's type."""
    kind = {"games": "GameConnection", "myGames": "MyGameConnection"}[page]
    # 1 + 100 x (nodes + status + version + pageInfo + endCursor) = 501
    plain = f"{{ {page}(first: 100) {{ nodes {{ status version }} pageInfo {{ endCursor }} }} }}"
    fragment = f"fragment P on {kind} {{ nodes {{ status version }} pageInfo {{ endCursor }} }}"
    spread = f"{fragment} {{ {page}(first: 100) {{ ...P }} }}"
    selected = "nodes { status version } pageInfo { endCursor }"
    inline = f"{{ {page}(first: 100) {{ ... on {kind} {{ {selected} }} }} }}"
    for query in (plain, spread, inline):
        check_query(query, QueryLimits(max_cost=501))
        with pytest.raises(ProblemError, match="costs 501"):
            check_query(query, QueryLimits(max_cost=500))
    # without `first`, the page's most (50); a list outside a connection still weighs as a list
    check_query(f"{{ {page} {{ edges {{ node {{ status version }} }} }} }}", QueryLimits(max_cost=201))
    with pytest.raises(ProblemError, match="costs 52"):
        check_query('{ tournament(tournamentId: "t") { games { gameId } } }', QueryLimits(max_cost=51))


def test_my_invitations_weigh_as_the_most_a_player_holds() -> None:
    with pytest.raises(ProblemError, match="costs 201"):
        check_query("{ myInvitations { invitationId gameId } }", QueryLimits(max_cost=200))


def test_the_introspection_query_is_14_deep() -> None:
    check_query(get_introspection_query(), QueryLimits(max_depth=14))
    with pytest.raises(ProblemError, match="depth is 14"):
        check_query(get_introspection_query(), QueryLimits(max_depth=13))


def test_a_fault_in_a_resolver_is_internal_error_and_its_message_is_hidden() -> None:
    fault = GraphQLError("Error 111 connecting to 127.0.0.1:6390", path=["game"], original_error=OSError(111))
    error = coded(fault)
    assert error.extensions == {"code": "internal_error", "status": 500, "classification": "INTERNAL_ERROR"}
    assert "127.0.0.1" not in error.message


def test_a_problem_raised_as_is_keeps_its_code() -> None:
    problem = ProblemError("game_not_found", "No game x.")
    error = coded(GraphQLError("x", path=["game"], original_error=problem))
    assert error.extensions is not None and error.extensions["code"] == "game_not_found"
    assert error.message == "No game x."


def test_fragments_on_different_types_cost_the_dearest_and_one_type_twice_costs_both() -> None:
    """An object is of one type: `... on RoughView { a b c }` and `... on EuchreView { d e }` at one
    place cost 3 (the dearest), not 5 — a client selects every game's fields and one applies. The
    same type twice still adds up, and so does a fragment with no type condition."""
    alternatives = parse(
        "query($id: ID!) { view(gameId: $id) { view { phase"
        " ... on RoughView { trump hand scores } ... on EuchreView { upcard hand } } } }"
    )
    check_document(alternatives, QueryLimits(max_cost=6))  # view, view, phase + 3
    with pytest.raises(ProblemError, match="costs 6"):
        check_document(alternatives, QueryLimits(max_cost=5))
    twice = parse(
        "query($id: ID!) { view(gameId: $id) { view { phase"
        " ... on RoughView { trump hand scores } ... on RoughView { upcard hand } } } }"
    )
    with pytest.raises(ProblemError, match="costs 8"):
        check_document(twice, QueryLimits(max_cost=7))
    untyped = parse(
        "query($id: ID!) { view(gameId: $id) { view { phase ... { trump hand } ... { hand } } } }"
    )
    with pytest.raises(ProblemError, match="costs 6"):
        check_document(untyped, QueryLimits(max_cost=5))
