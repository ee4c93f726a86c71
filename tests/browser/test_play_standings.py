"""The standings page at /play/tournament: a round robin of the three built-in bots and a second
random bot, played by a real worker, followed live in Chromium until it ends."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from browser_helpers import OfflinePage, show_failure
from playwright.sync_api import Browser

ADMIN = {"Authorization": "Bearer admin-secret-for-tests"}  # tests/conftest.py's ADMIN_TOKEN


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Browser, live_server: str) -> Iterator[OfflinePage]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})  # under the page's own CSP
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield OfflinePage(tab, live_server)
    show_failure(request, tab)
    context.close()
    assert not errors, f"script errors in the page: {errors}"


def test_the_standings_page_follows_a_tournament_to_its_end(
    page: OfflinePage, live_server: str, rq_worker: str
) -> None:
    body = {
        "kind": "rough",
        "entrants": ["bot:random", "bot:heuristic", "bot:expert", "bot:random"],
        "target_score": 200,
        "name": "Browser cup",
    }
    created = httpx.post(f"{live_server}/v1/tournaments", json=body, headers=ADMIN, timeout=30)
    assert created.status_code == 201, created.text
    tour = created.json()
    page.page.goto(f"{live_server}/play/tournament?id={tour['tournament_id']}")
    page.page.wait_for_selector("h1:has-text('Browser cup')")
    assert tour["commitment"] in page.page.inner_text(".commitment")
    page.page.wait_for_selector(".status[data-status='finished']", timeout=120_000)
    final = httpx.get(f"{live_server}/v1/tournaments/{tour['tournament_id']}", timeout=30).json()
    assert page.page.inner_text(".key") == f"Key: {final['key']}"
    rows = page.page.locator("table.standings tbody tr")
    assert rows.count() == 4
    shown = [rows.nth(i).get_attribute("data-entrant") for i in range(4)]
    assert shown == [str(s["entrant"]) for s in final["standings"]]
    replays = page.page.locator("a.replay")
    assert replays.count() == 12
    assert replays.first.get_attribute("href") == final["games"][0]["replay"]
    assert page.page.locator("table.head-to-head tbody tr").count() == 12
    page.screenshot("tournament-standings")
    # The same page in French, the toggle the table has (and remembered, as the table's is).
    page.page.click("#lang")
    page.page.wait_for_selector(".key:has-text('Clé')")
    assert page.page.inner_text(".key") == f"Clé : {final['key']}"
    assert "terminé" in page.page.inner_text(".status") and "toutes rondes" in page.page.inner_text(".status")
    assert page.page.locator("table.standings th").first.inner_text() == "Rang"
    assert page.page.locator("a.replay").first.inner_text() == "reprise"
    assert page.page.evaluate("document.documentElement.lang") == "fr"
    page.page.reload()
    page.page.wait_for_selector("h2:has-text('Face-à-face')")
    assert not page.outside

    page.page.goto(f"{live_server}/play/tournament?id=nope")
    page.page.wait_for_selector("p.error:has-text('Aucun tournoi nope (404).')")
