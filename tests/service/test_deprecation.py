"""Deprecating a REST operation (issue 21): the endpoint table marks it with a sunset at least
MINIMUM_NOTICE after its deprecation, the OpenAPI document says `deprecated: true`, and every answer
of it, problems included, carries `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a `Link`.
Served here through a test-only table entry, and the table's own: ``GET …/actions``, which the v1
contract keeps for older clients."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient
from svc_helpers import auth, create, seated

from service.api.app import create_app
from service.api.rest import OPS, openapi, routing
from service.api.rest.deprecation import MINIMUM_NOTICE, V1_LEGACY, Deprecation
from service.base.settings import Settings

SINCE = datetime(2027, 1, 1, tzinfo=UTC)
SUNSET = datetime(2027, 7, 1, tzinfo=UTC)
GET_GAME = next(op for op in OPS if op.operation_id == "getGame")
LEGACY = replace(
    GET_GAME,
    path="/v1/legacy/games/{game_id}",
    operation_id="getGameLegacy",
    summary="The old path of getGame (test only)",
    deprecation=Deprecation(SINCE, SUNSET, "/v1/games/{game_id}"),
)
"""getGame at an old path, deprecated: its credentials, errors and headers are getGame's."""


@pytest.fixture
def legacy_client(settings: Settings) -> Iterator[TestClient]:
    """The app with the test-only deprecated operation routed as the table routes any operation."""
    app = create_app(settings.model_copy(update={"cors_origins": "https://app.example"}))
    served = routing.routes((LEGACY,))
    route = next(r for r in served if isinstance(r, Route) and r.path == LEGACY.path)
    app.router.routes.insert(0, route)
    with TestClient(app) as client:
        yield client


def assert_announced(response: object) -> None:
    headers = response.headers  # type: ignore[attr-defined]
    assert headers["deprecation"] == f"@{int(SINCE.timestamp())}" == "@1798761600"
    assert headers["sunset"] == "Thu, 01 Jul 2027 00:00:00 GMT"
    assert parsedate_to_datetime(headers["sunset"]) == SUNSET
    assert headers["link"] == '</v1/games/{game_id}>; rel="deprecation"'


def test_every_answer_of_a_deprecated_operation_announces_its_sunset(legacy_client: TestClient) -> None:
    table = seated(legacy_client, "rough")
    path = f"/v1/legacy/games/{table.game_id}"
    answered = legacy_client.get(path, headers=auth(table.tokens[0]))
    assert answered.status_code == 200 and answered.json()["game_id"] == table.game_id
    assert_announced(answered)
    assert answered.headers["etag"]  # the operation's own headers stay
    revalidated = legacy_client.get(path, headers={**auth(table.tokens[0]), "If-None-Match": "*"})
    assert revalidated.status_code == 304
    assert_announced(revalidated)
    for refused, status in (
        (legacy_client.get("/v1/legacy/games/nosuchgame"), 404),
        (legacy_client.get(path, headers=auth("not-a-token")), 401),
    ):
        assert refused.status_code == status and refused.headers["content-type"] == "application/problem+json"
        assert_announced(refused)
    # the operations that are not deprecated say nothing of it
    current = legacy_client.get(f"/v1/games/{table.game_id}")
    assert current.status_code == 200
    assert not {"deprecation", "sunset", "link"} & set(current.headers)


def test_a_browser_may_read_the_deprecation_and_the_etag(legacy_client: TestClient) -> None:
    gid = create(legacy_client, "rough")["game"]["game_id"]
    answered = legacy_client.get(f"/v1/legacy/games/{gid}", headers={"Origin": "https://app.example"})
    exposed = {h.strip().lower() for h in answered.headers["access-control-expose-headers"].split(",")}
    assert {"deprecation", "sunset", "link", "etag"} <= exposed
    preflight = legacy_client.options(
        f"/v1/games/{gid}",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match",
        },
    )
    assert preflight.status_code == 200, preflight.text


def test_the_document_marks_a_deprecated_operation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openapi, "OPS", (*OPS, LEGACY))
    document = openapi.openapi_document()
    assert document["paths"][LEGACY.path]["get"]["deprecated"] is True
    marked = [
        op["operationId"]
        for path in document["paths"].values()
        for op in path.values()
        if op.get("deprecated")
    ]
    assert marked == ["getLegalActions", "getGameLegacy"]  # the table's own: what v1 keeps for older clients


def test_the_legacy_legal_actions_announce_their_sunset(legacy_client: TestClient) -> None:
    """``GET …/actions``, kept for older clients of the v1 contract (the view holds ``legal_actions``):
    deprecated with V1_LEGACY, each answer says so, its problems too."""
    table = seated(legacy_client, "rough")
    answered = legacy_client.get(f"/v1/games/{table.game_id}/actions", headers=auth(table.tokens[0]))
    refused = legacy_client.get(f"/v1/games/{table.game_id}/actions")
    forged = legacy_client.get(f"/v1/games/{table.game_id}/actions", headers=auth("not-a-token"))
    unknown = legacy_client.get("/v1/games/nosuchgame/actions", headers=auth(table.tokens[0]))
    for response, status in ((answered, 200), (refused, 401), (forged, 401), (unknown, 404)):
        assert response.status_code == status, response.text
        assert response.headers["deprecation"] == f"@{int(V1_LEGACY.since.timestamp())}"
        assert parsedate_to_datetime(response.headers["sunset"]) == V1_LEGACY.sunset
        assert response.headers["link"] == '</openapi.json>; rel="deprecation"'
    assert V1_LEGACY.sunset - V1_LEGACY.since >= MINIMUM_NOTICE


def test_a_sunset_needs_the_minimum_notice_and_dates_with_a_zone() -> None:
    assert timedelta(days=180) == MINIMUM_NOTICE
    Deprecation(SINCE, SINCE + MINIMUM_NOTICE, "/v1/x")  # exactly the notice: allowed
    with pytest.raises(ValueError, match="at least 180 days"):
        Deprecation(SINCE, SINCE + MINIMUM_NOTICE - timedelta(seconds=1), "/v1/x")
    with pytest.raises(ValueError, match="timezone-aware"):
        Deprecation(datetime(2027, 1, 1), datetime(2028, 1, 1), "/v1/x")
