"""Probes, metrics and the shape of errors that are not about games."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.base.settings import Settings
from service.runtime.embedded_redis import free_port
from service.store import GameStore


def test_healthz_answers_without_redis(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_answers_when_redis_is_reachable_and_says_degraded_without_workers(client: TestClient) -> None:
    """Readiness is the API's own store; no worker is running here, which the body says plainly."""
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded" and body["store"] == "ok"
    assert body["workers"]["status"] == "stale"
    assert body["workers"]["queues"]["atout-bots"] == {
        "status": "missing",
        "workers": 0,
        "heartbeat_age_seconds": None,
    }


def test_readyz_is_503_problem_when_redis_is_down() -> None:
    settings = Settings(redis_url=f"redis://127.0.0.1:{free_port()}/0")
    with TestClient(create_app(settings)) as client:
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.headers["content-type"] == "application/problem+json"
        body = response.json()
        assert body["code"] == "store_unavailable" and response.headers["Retry-After"]
        assert "127.0.0.1" not in response.text and "Error" not in body["detail"]
        assert client.get("/healthz").status_code == 200


def test_unknown_path_is_a_404_problem(client: TestClient) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "not_found" and body["status"] == 404 and "/v1" in body["detail"]


def test_wrong_method_is_a_405_problem(client: TestClient) -> None:
    response = client.post("/healthz")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert set(response.headers["allow"].split(", ")) == {"GET", "HEAD"}


def test_metrics_count_requests_by_route_template(client: TestClient) -> None:
    client.get("/healthz")
    text = client.get("/metrics").text
    assert 'atout_http_requests_total{method="GET",route="/healthz",status="200"} 1.0' in text
    assert "atout_http_request_duration_seconds_bucket" in text


def test_the_app_refuses_to_start_without_redis_url() -> None:
    app = create_app(Settings(redis_url=None))
    try:
        with TestClient(app):
            pass
    except RuntimeError as exc:
        assert "REDIS_URL" in str(exc)
    else:
        raise AssertionError("expected the lifespan to fail")


def test_an_unexpected_failure_is_a_500_problem_that_reveals_nothing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: GameStore, gid: str) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(GameStore, "load", broken)
    with TestClient(client.app, raise_server_exceptions=False) as plain:
        response = plain.get("/v1/games/abc")
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "internal_error" and "secret" not in response.text


def test_web_front_ends_may_call_the_api_from_another_origin(client: TestClient) -> None:
    preflight = client.options(
        "/v1/games",
        headers={
            "Origin": "https://cards.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, idempotency-key",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] in {"*", "https://cards.example"}
    response = client.get("/v1/rules", headers={"Origin": "https://cards.example"})
    assert response.headers["access-control-allow-origin"] == "*"


def test_each_request_is_logged_as_structured_json(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    client.get("/v1/games/nope")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"request"' in line]
    assert any(
        line["event"] == "request" and line["route"] == "/v1/games/{game_id}" and line["status"] == 404
        for line in lines
    )
