"""/docs (Swagger UI) and /graphql (GraphiQL) render and work in a real browser with no network
but the service: every asset is served by the service itself."""

from __future__ import annotations

import httpx
from browser_helpers import OfflinePage


def test_swagger_ui_renders_the_api_offline(offline_page: OfflinePage, live_server: str) -> None:
    page = offline_page.page
    page.goto(f"{live_server}/docs")
    page.wait_for_selector(".swagger-ui .info .title", timeout=20_000)
    assert "Atout" in page.inner_text(".swagger-ui .info .title")
    page.get_by_text("/v1/games/{game_id}/actions").first.wait_for(timeout=10_000)
    offline_page.screenshot("docs-swagger")
    assert offline_page.outside == []


def test_graphiql_runs_a_query_offline(offline_page: OfflinePage, live_server: str) -> None:
    created = httpx.post(f"{live_server}/v1/games", json={"kind": "rough", "seats": ["open"] * 4})
    gid = created.json()["game"]["game_id"]
    page = offline_page.page
    page.goto(f"{live_server}/graphql")
    page.wait_for_selector(".graphiql-query-editor", timeout=20_000)
    page.click(".graphiql-execute-button")
    page.locator(".graphiql-response").get_by_text(gid).wait_for(timeout=20_000)
    offline_page.screenshot("docs-graphiql")
    assert offline_page.outside == []
