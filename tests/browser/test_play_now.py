"""/play's "Play now" (the lobby's button a game): the page queues its guest player for a casual table
(POST /v1/matchmaking/tickets with the player's token), shows "Looking for players…" with a way out
(DELETE the ticket), reads the ticket every second, and opens the table found at the player's seat.
A real `atout matchmaker` process seats the ticket, with bots in the empty chairs after a short wait
(``ATOUT_MATCHMAKING_BOT_FILL_SECONDS``), and a real worker plays the bots. Chromium, the public API
only."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import OfflinePage, show_failure
from play_helpers import axe_violations, play_one, settle, wait_for_turn
from playwright.sync_api import Browser, Page

from service.base.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
PLAYER = "JSON.parse(localStorage.getItem('atout:player'))"
GAME_IN_URL = "new URLSearchParams(location.search).get('game')"
BOT_FILL = 3.0  # seconds alone before bots fill the table: long enough to see the wait, short for a test


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The served app's settings (its tickets' estimate says the bot fill the matcher applies)."""
    return settings.model_copy(update={"matchmaking_bot_fill_seconds": BOT_FILL})


@pytest.fixture
def matchmaker(settings: Settings, tmp_path: Path) -> Iterator[None]:
    """A real `atout matchmaker` (the matcher `atout serve` runs) against the test Redis, bot fill fast,
    a pass every half second. The served app runs none: without this fixture tickets only wait."""
    env = {
        **os.environ,
        "REDIS_URL": settings.redis_url or "",
        "ATOUT_REDIS_CLUSTER": "1" if settings.redis_cluster else "0",
        "ATOUT_QUEUE_URL": settings.queue_url or "",  # the bots' first turn goes to the worker's queue
        "ATOUT_MATCHMAKING_BOT_FILL_SECONDS": str(BOT_FILL),
        "ATOUT_MATCHMAKING_INTERVAL": "0.5",
        "PYTHONPATH": str(ROOT),
    }
    log = open(tmp_path / "matchmaker.log", "wb")  # noqa: SIM115
    command = [sys.executable, "-m", "service.runtime.cli", "matchmaker", "--metrics-port", "0"]
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    try:
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture
def play(request: pytest.FixtureRequest, browser: Browser, live_server: str) -> Iterator[OfflinePage]:
    # bypass_csp: Playwright's wait_for_function evaluates with eval (see test_play_table's `table`)
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    offline = OfflinePage(page, live_server)
    yield offline
    show_failure(request, page)
    context.close()
    assert not errors, f"script errors in the page: {errors}"
    assert not offline.outside, "the page reached another address"


def queue_from_the_lobby(page: Page, base: str, kind: str, name: str) -> tuple[dict[str, Any], str]:
    """Click "Play now" for ``kind`` in the lobby: the ticket is asked with the player's token (the
    guest made now), casual, a party of one. Returns the player and the ticket's id."""
    page.goto(f"{base}/play")
    page.fill("#name", name)
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/v1/matchmaking/tickets")
    ) as queued:
        page.click(f"#play-now-{kind}")
    answer = queued.value
    assert answer.status == 201, answer.text()
    assert answer.request.post_data_json == {"kind": kind, "rated": False}
    player: dict[str, Any] = page.evaluate(PLAYER)
    assert player["token"].startswith("atp_") and player["name"] == name
    assert answer.request.headers["authorization"] == f"Bearer {player['token']}"
    ticket: dict[str, Any] = answer.json()
    assert ticket["status"] == "waiting" and ticket["members"] == [f"player:{player['id']}"]
    return player, ticket["ticket_id"]


def test_play_now_seats_a_guest_at_a_le_rough_table_with_bots_and_opens_it(
    play: OfflinePage, matchmaker: None, rq_worker: str
) -> None:
    page, base = play.page, play.base
    page.goto(f"{base}/play")
    button = page.get_by_role("button", name="Play now Le Rough")  # one a game, named with its game
    assert button.get_attribute("id") == "play-now-rough"
    assert page.locator("#play-now button.play-now").count() == 3
    asked: list[str] = []
    page.on("request", lambda r: asked.append(f"{r.method} {r.url.split('?')[0].removeprefix(base)}"))

    player, tid = queue_from_the_lobby(page, base, "rough", "dee")
    # the wait, with a way out, until the matcher seats the ticket (bots after BOT_FILL seconds alone)
    page.wait_for_selector("#searching")
    assert page.locator("#searching [role=status]").inner_text() == "Looking for players…"
    assert page.locator("#cancel-search").inner_text() == "Cancel"
    assert page.locator("#searching").get_attribute("data-ticket") == tid
    play.screenshot("play-now-searching")

    # matched: the table opens at the player's seat, its URL the game's (as My games opens one)
    page.wait_for_selector(".table-head", timeout=30_000)
    gid = page.evaluate(GAME_IN_URL)
    auth = {"Authorization": f"Bearer {player['token']}"}
    with httpx.Client(base_url=base, timeout=10, headers=auth) as client:
        ticket = client.get(f"/v1/matchmaking/tickets/{tid}").json()
        assert ticket["status"] == "matched" and ticket["game_id"] == gid, ticket
        seat = ticket["seat"]
        summary = client.get(f"/v1/games/{gid}").json()
        kinds = [s["seat_kind"] for s in summary["seats"]]
        assert kinds[seat] == "human" and summary["seats"][seat]["name"] == "dee"
        assert kinds.count("bot") == 3, summary["seats"]  # nobody else waited: three bots
        read = client.get(f"/v1/games/{gid}/view").json()  # the player's own token holds the seat
        assert read["seat"] == seat
        hand = sorted(read["view"]["hand"])
    shown = page.locator(".hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert hand and sorted(shown) == hand
    assert page.locator(f'.seats li[data-seat="{seat}"]').inner_text().startswith("dee (you)")
    play.screenshot("play-now-table")

    # the seat is played with the player's token, no join and no seat token: one move as a person would
    assert wait_for_turn(page) == "turn"
    version = httpx.get(f"{base}/v1/games/{gid}", timeout=10).json()["version"]
    before = page.locator("body").inner_text()
    assert play_one(page) in {"pass", "bid", "keep", "card", "discard"}
    settle(page, before)
    assert httpx.get(f"{base}/v1/games/{gid}", timeout=10).json()["version"] > version
    assert not [a for a in asked if a.endswith("/join")]
    assert f"GET /v1/matchmaking/tickets/{tid}" in asked  # read while it waited
    assert "GET /v1/me/events" in asked  # the player's stream (match_found) was followed too


def test_play_now_waits_in_either_language_and_cancels_back_to_the_lobby(play: OfflinePage) -> None:
    """No matcher runs: the ticket waits until the player cancels it (DELETE), and the lobby comes back."""
    page, base = play.page, play.base
    player, tid = queue_from_the_lobby(page, base, "five_hundred", "eve")
    page.wait_for_selector("#searching")
    assert axe_violations(page) == []
    # the wait in French, then back in English: the same ticket, still waiting
    page.click("#lang")
    page.wait_for_function(
        "document.querySelector('#searching [role=status]')?.innerText === 'Recherche de joueurs…'"
    )
    assert page.locator("#cancel-search").inner_text() == "Annuler"
    assert page.locator("#searching h1").inner_text() == "Jouer maintenant — Le 500"
    page.click("#lang")
    page.wait_for_function("document.querySelector('#cancel-search')?.innerText === 'Cancel'")
    page.wait_for_timeout(1_500)  # a read or two of the ticket: it still waits
    assert page.locator("#searching").count() == 1

    with page.expect_response(lambda r: r.request.method == "DELETE") as cancelled:
        page.click("#cancel-search")
    assert cancelled.value.url.endswith(f"/v1/matchmaking/tickets/{tid}") and cancelled.value.status == 200
    page.wait_for_selector("#play-now-five_hundred")
    assert page.locator("#searching").count() == 0
    assert page.locator("#error").inner_text() == ""
    auth = {"Authorization": f"Bearer {player['token']}"}
    ticket = httpx.get(f"{base}/v1/matchmaking/tickets/{tid}", headers=auth, timeout=10).json()
    assert ticket["status"] == "cancelled" and ticket["game_id"] is None
    assert axe_violations(page) == []  # the lobby with its Play-now buttons
    play.screenshot("play-now-lobby")
    # the reads stopped with the wait
    reads: list[str] = []
    page.on("request", lambda r: r.url.endswith(f"/tickets/{tid}") and reads.append(r.url))
    page.wait_for_timeout(2_500)
    assert reads == []
