"""Fuzzing beyond one request: schemathesis walks the OpenAPI links (create -> join -> act with the
seat token the join returned), and a raw fuzzer throws bytes no schema describes at every endpoint.
Either way: no answer of 500 or more, ever.

Bounded and derandomized like tests/service/test_fuzz.py (ATOUT_FUZZ_RANDOM=1 explores anew).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import hypothesis
import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import positive_data_acceptance
from starlette.testclient import TestClient

from service.api.app import create_app
from service.api.rest import OPS, openapi_document
from service.base.settings import Settings

DERANDOMIZE = not os.environ.get("ATOUT_FUZZ_RANDOM")
STREAMS = ["streamEvents", "streamBotTurns"]  # they stay open: fuzzed below with follow=false


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Room for a fuzzer creating many games from one address (the caps are tested in test_bounded)."""
    return settings.model_copy(
        update={"rate_limits": False, "max_open_games_per_creator": 100_000, "sse_block_ms": 50}
    )


# --- stateful: the OpenAPI links ------------------------------------------------------------

schema = schemathesis.openapi.from_dict(openapi_document()).exclude(operation_id=STREAMS)
# Valid requests only (the raw fuzzer below sends what no schema allows): the point here is to get
# deep, create -> join -> act, and only our own links carry the seat token (inferred ones dilute them).
schema.config.generation.update(modes=[schemathesis.GenerationMode.POSITIVE])
schema.config.phases.stateful.inference.algorithms = []
Workflow = schema.as_state_machine()


def test_linked_calls_never_fail_and_match_the_spec(live_server: str, redis_client: redis.Redis) -> None:
    seen: Counter[tuple[str, int]] = Counter()
    tokens: set[str] = set()  # the seat tokens joinGame handed out
    seated: Counter[str] = Counter()  # calls that carried one of them (by a link) and were let in

    class APIWorkflow(Workflow):  # type: ignore[misc, valid-type]
        def setup(self) -> None:
            # Each scenario starts from an empty store, so what it draws from the answers (the games
            # listed, the ids) does not depend on the scenarios before it.
            redis_client.flushall()

        def get_call_kwargs(self, case: schemathesis.Case[Any]) -> dict[str, Any]:
            return {"base_url": live_server, "timeout": 30}

        def validate_response(
            self,
            response: Any,
            case: schemathesis.Case[Any],
            additional_checks: Any = None,
            **kwargs: Any,
        ) -> None:
            assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text}"
            operation = case.operation.definition.raw["operationId"]
            seen[(operation, response.status_code)] += 1
            if operation == "joinGame" and response.status_code == 201:
                tokens.add(response.json()["token"])
            sent: dict[str, str] = dict(case.headers or {})
            authorization = sent.get("Authorization", "")
            if authorization.removeprefix("Bearer ") in tokens and response.status_code != 401:
                seated[operation] += 1
            case.validate_response(
                response, excluded_checks=[positive_data_acceptance], transport_kwargs=kwargs
            )

    APIWorkflow.run(
        settings=hypothesis.settings(
            max_examples=int(os.environ.get("ATOUT_FUZZ_SCENARIOS", "80")),
            stateful_step_count=10,
            # no shrinking: a scenario runs against a live server whose state it changed, so a replay
            # may draw differently (hypothesis calls that flaky); the first failure is reported as is
            phases=[Phase.explicit, Phase.generate],
            database=None,
            deadline=None,
            derandomize=DERANDOMIZE,
            suppress_health_check=list(HealthCheck),
        )
    )
    # the links carried the seat token from the join to the calls that need one
    assert seen[("joinGame", 201)] > 0
    assert seated, "no call carried a seat token from joinGame"


# --- raw bodies over every endpoint ---------------------------------------------------------

CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
    "",
    "application/json; charset=latin-1",
    "\u00e9/\u00e9",
]
UNICODE_JUNK = st.text(
    alphabet=st.sampled_from(
        ["\x00", "\u202e", "\u2066", "\ufeff", "\ud7ff", "\U0001f0a1", "\u0301", "a", '"']
    ),
    max_size=40,
)


def json_values() -> st.SearchStrategy[Any]:
    """JSON of the right names and the wrong types (and the right types, sometimes)."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        UNICODE_JUNK,
        st.sampled_from(["rough", "euchre5", "five_hundred", "open", "bot:random", "play", "AS", "pass"]),
    )
    keys = st.sampled_from(
        ["game", "seats", "seat", "name", "action", "type", "card", "options", "seed", "x"]
    )
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4)
    )


def deep(depth: int, kind: str) -> bytes:
    if kind == "list":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


GRAPHQL_QUERIES = [
    'mutation($a: ActionInput!) { submitAction(input: {gameId: "g", action: $a}) { version } }',
    "mutation($g: GameKind!, $s: [String!]) { createGame(input: {kind: $g, seats: $s}) { game { gameId } } }",
    "query($id: ID!) { game(gameId: $id) { gameId seats { name } } }",
    "{ __typename }",
]


def graphql_body(query: str, value: bytes) -> bytes:
    """A GraphQL request whose variables are ``value`` (raw JSON: it may be 20,000 deep)."""
    names = ("a", "g", "s", "id")
    variables = b"{" + b",".join(b'"%s": %s' % (n.encode(), value) for n in names) + b"}"
    return b'{"query": ' + json.dumps(query).encode() + b', "variables": ' + variables + b"}"


RAW_JSON = st.one_of(
    json_values().map(lambda v: json.dumps(v).encode()),
    st.tuples(st.integers(1, 20_000), st.sampled_from(["list", "dict"])).map(lambda t: deep(*t)),
    st.integers(1, 6000).map(lambda n: b"9" * n),
    UNICODE_JUNK.map(lambda s: json.dumps(s).encode()),
)

BODIES = st.one_of(
    st.tuples(st.sampled_from(GRAPHQL_QUERIES), RAW_JSON).map(lambda t: graphql_body(*t)),
    st.binary(max_size=300),
    json_values().map(lambda v: json.dumps(v).encode()),
    json_values().map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.tuples(json_values(), st.integers(0, 50)).map(
        lambda t: json.dumps(t[0]).encode()[: t[1]]
    ),  # truncated
    st.tuples(st.integers(1, 20_000), st.sampled_from(["list", "dict"])).map(lambda t: deep(*t)),
    st.integers(1, 6000).map(lambda n: b'{"seed": ' + b"9" * n + b"}"),  # a huge integer
    st.integers(60_000, 200_000).map(lambda n: b'{"name": "' + b"x" * n + b'"}'),  # over the size limit
    UNICODE_JUNK.map(lambda s: json.dumps({"kind": "rough", "name": s, "seats": [s]}).encode()),
    st.just(b'{"kind": "rough", "kind": "euchre5"}'),
    st.just(b'\xef\xbb\xbf{"kind": "rough"}'),
)


@pytest.fixture
def raw_client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


def test_raw_bodies_never_get_a_server_error(raw_client: TestClient) -> None:
    """Every operation of the REST table and /graphql, with bodies no schema allows, any content type,
    and no token, a junk token or a real seat token."""
    game = raw_client.post("/v1/games", json={"kind": "rough"}).json()["game"]["game_id"]
    seat_token = raw_client.post(f"/v1/games/{game}/join", json={"seat": 0}).json()["token"]
    targets = [(op.method, op.path) for op in OPS] + [("POST", "/graphql")] * 4 + [("GET", "/graphql")]

    @given(
        target=st.sampled_from(targets),
        body=BODIES,
        content_type=st.sampled_from(CONTENT_TYPES),
        token=st.sampled_from([None, seat_token, "junk", "atb_x_y", "\u202e"]),
        path_id=st.sampled_from([game, "nope", "x" * 300, "%00", "..%2f"]),
    )
    @hypothesis.settings(
        max_examples=int(os.environ.get("ATOUT_FUZZ_EXAMPLES", "250")),
        deadline=None,
        derandomize=DERANDOMIZE,
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(
        target: tuple[str, str], body: bytes, content_type: str, token: str | None, path_id: str
    ) -> None:
        method, path = target
        url = path.replace("{game_id}", path_id).replace("{bot_id}", path_id)
        headers: dict[bytes, bytes] = {b"Content-Type": content_type.encode()} if content_type else {}
        if token:  # raw bytes, even non-ASCII
            headers[b"Authorization"] = f"Bearer {token}".encode()
        params = {"follow": "false"} if url.endswith(("/events", "/stream")) else {}
        response = raw_client.request(method, url, content=body, headers=headers, params=params)
        assert response.status_code < 500, f"{method} {url} [{content_type}] {body[:200]!r}: {response.text}"

    fuzz()
