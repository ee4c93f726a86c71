"""The rendered reference, /reference (Redoc) and /reference/graphql, works in a real browser with no
network but the service: Redoc's bundle and the spec come from the service, its search runs, an
operation and a GraphQL type render, and nothing leaves the service. The docs site (``make docs``)
carries the same reference and finds a guide with its search, served as plain files, offline too."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from browser_helpers import OfflinePage
from playwright.sync_api import Browser

ROOT = Path(__file__).resolve().parents[2]

REDOC_ATTRIBUTION_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
"""Redoc's bundle always tries the "API docs by Redocly" logo from its CDN (no option turns it off);
the page's policy (img-src 'self') refuses it before any request, and Redoc then hides the image."""


def refused_by_policy(offline_page: OfflinePage) -> list[str]:
    """The console's Content-Security-Policy refusals, gathered from now on (a refused address never
    reaches the network, so OfflinePage.outside would not see it)."""
    refused: list[str] = []

    def note(text: str) -> None:
        if "Content Security Policy" in text:
            refused.append(text)

    offline_page.page.on("console", lambda message: note(message.text))
    return refused


def test_the_rest_reference_renders_and_searches_offline(offline_page: OfflinePage, live_server: str) -> None:
    page = offline_page.page
    refused = refused_by_policy(offline_page)
    page.goto(f"{live_server}/reference")
    operation = page.locator("[data-section-id$='/operation/submitAction']")
    operation.wait_for(timeout=20_000)
    assert "Submit an action for the caller's seat" in operation.inner_text()
    assert "/v1/games/{game_id}/actions" in operation.inner_text()
    # the search runs in a worker the bundle makes from a blob (the page's policy allows that alone)
    page.fill("input[placeholder='Search...']", "legal actions")
    results = page.locator("[data-role='search:results'] [data-item-id$='/operation/getLegalActions']")
    results.wait_for(timeout=10_000)
    results.click()
    page.wait_for_function("() => location.hash.endsWith('/operation/getLegalActions')", timeout=10_000)
    offline_page.screenshot("reference-rest")
    assert all(REDOC_ATTRIBUTION_LOGO in text for text in refused), refused
    assert offline_page.outside == []


def test_the_graphql_reference_renders_the_schema_offline(
    offline_page: OfflinePage, live_server: str
) -> None:
    page = offline_page.page
    refused = refused_by_policy(offline_page)
    page.goto(f"{live_server}/reference/graphql")
    game = page.locator("section#Game")
    assert "object type" in game.locator("h3").inner_text()
    assert "seats: [Seat!]!" in game.inner_text()
    page.locator("nav a[href='#mutation-submitAction']").click()
    page.wait_for_function("() => location.hash === '#mutation-submitAction'")
    act = page.locator("section#mutation-submitAction")
    assert "Mutation" in act.locator("h3").inner_text()
    act.locator("a[href='#SubmitActionInput']").first.click()
    page.wait_for_function("() => location.hash === '#SubmitActionInput'")
    assert page.locator("section#SubmitActionInput").is_visible()
    offline_page.screenshot("reference-graphql")
    assert refused == []
    assert offline_page.outside == []


class QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """No line per request on the test's output."""


@pytest.fixture
def docs_site(tmp_path: Path) -> Iterator[str]:
    """The docs site built as ``make docs`` builds it, served as plain files (any static host)."""
    mkdocs = Path(sys.executable).parent / "mkdocs"
    site = tmp_path / "site"
    command = [str(mkdocs), "build", "--strict", "--site-dir", str(site)]
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietFiles, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_docs_site_searches_and_carries_the_reference_offline(browser: Browser, docs_site: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    offline = OfflinePage(context.new_page(), docs_site)
    page = offline.page
    try:
        page.goto(f"{docs_site}/index.html")
        page.keyboard.press("/")  # Material's shortcut to the search box
        page.keyboard.type("webhook", delay=30)
        results = page.locator(".md-search-result__item")
        results.first.wait_for(timeout=20_000)
        assert results.count() > 1
        offline.screenshot("docs-site-search")
        page.keyboard.press("Escape")
        page.locator(".md-nav__link", has_text="API reference").first.click()
        page.get_by_role("link", name="REST reference").click()
        page.locator("[data-section-id$='/operation/submitAction']").wait_for(timeout=20_000)
        assert offline.outside == []
    finally:
        context.close()
