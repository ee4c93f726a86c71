"""Bad input from schemathesis against the committed contracts: no 5xx, every response as documented.

Bounded (a few dozen examples per operation) so it runs in CI on every commit.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st
from hypothesis_graphql import nodes
from schemathesis.specs.openapi.checks import positive_data_acceptance

from service.base.problems import CODES

ROOT = Path(__file__).resolve().parents[2]


def cards() -> st.SearchStrategy[Any]:
    """GraphQL literals for the Card scalar: real cards, sometimes one no game has or no card at all."""
    return st.one_of(
        st.sampled_from(["AS", "KD", "TH", "4C", "BJ", "RJ", "9S"]),
        st.sampled_from(["ZZ", "1S", "A", "ASS", ""]),
        st.text(max_size=3),
    ).map(nodes.String)


schemathesis.graphql.scalar("Card", cards())
rest = schemathesis.openapi.from_path(ROOT / "openapi" / "openapi.json")
graphql = schemathesis.graphql.from_path(ROOT / "schema" / "schema.graphql")
# The coverage phase builds its cases while pytest collects, in every process that collects (each
# xdist worker, the serial pass): some 20 s here, most of it the regex of the display-name pattern.
# tests/service/test_schemathesis_cli.py runs that phase (every phase) against a live service.
for fuzzed in (rest, graphql):
    fuzzed.config.phases.coverage.enabled = False
# Schema-valid is not always acceptable: a seat list of the wrong length for the game, an option
# value the game does not allow or an illegal card are refused with a documented 4xx problem.
SEMANTIC: list[Any] = [positive_data_acceptance]
# Derandomized: CI explores the same examples on every run (set ATOUT_FUZZ_RANDOM=1 to explore anew).
BOUNDED = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=not os.environ.get("ATOUT_FUZZ_RANDOM"),
)


TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def sendable(headers: Any) -> bool:
    """Headers an HTTP client library can send as they are: a name that is an RFC 9110 token, and no
    framing header of the fuzzer's (an empty ``Content-Length`` on a GET). Others never reach the
    service: uvicorn's parser answers 400 itself, a status of HTTP, not of any operation."""
    return all(
        TOKEN.match(name) and name.lower() not in ("content-length", "transfer-encoding")
        for name in (headers or {})
    )


@rest.exclude(path="/v1/games/{game_id}/events").parametrize()
@BOUNDED
def test_rest_operations_never_fail_and_match_the_spec(
    case: schemathesis.Case[Any], live_server: str
) -> None:
    assume(sendable(case.headers))
    case.call_and_validate(base_url=live_server, excluded_checks=SEMANTIC)


def expected_failures_only(ctx: Any, response: Any, case: schemathesis.Case[Any]) -> bool:
    """Every GraphQL error is an expected one: a known problem code below 500, or a query refused by
    validation (no path); never an unexpected exception in a resolver."""
    assert response.status_code < 500, response.text
    for error in response.json().get("errors") or []:
        if "path" not in error:
            continue
        code = (error.get("extensions") or {}).get("code")
        assert code in CODES and CODES[code].status < 500, f"unexpected resolver error: {error}"
    return True


@graphql.parametrize()
@BOUNDED
def test_graphql_operations_never_fail(case: schemathesis.Case[Any], live_server: str) -> None:
    case.call_and_validate(
        base_url=f"{live_server}/graphql",
        checks=[expected_failures_only],
    )
