"""/play as a guest player (issue 23): the page makes a guest at its first seat and keeps the token in
localStorage; the lobby lists the player's games with a your-turn mark kept current by the player's
stream, a page at a time; a game opened in a second tab, or after a reload, goes on with the same
token. Chromium, a real worker playing the bots, the public API only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_helpers import OfflinePage, show_failure
from play_helpers import axe_violations, create, play_one, settle, wait_for_turn
from playwright.sync_api import Browser, BrowserContext, Page, Request

PLAYER = "JSON.parse(localStorage.getItem('atout:player'))"
PAGE = 10  # mygames.js: games a page of the lobby's list


class Tabs:
    """One browser context (one localStorage, as one person's browser) whose pages are tabs, each cut
    off from every address but the service's; it records script errors and requests of every tab."""

    def __init__(self, context: BrowserContext, base: str) -> None:
        self.context, self.base = context, base
        self.errors: list[str] = []
        self.requests: list[Request] = []
        self.tabs: list[OfflinePage] = []
        context.on("request", lambda request: self.requests.append(request))

    def open(self) -> Page:
        page = self.context.new_page()
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.tabs.append(OfflinePage(page, self.base))
        return page

    def asked(self, method: str, ending: str) -> list[Request]:
        return [r for r in self.requests if r.method == method and r.url.split("?")[0].endswith(ending)]


@pytest.fixture
def tabs(request: pytest.FixtureRequest, browser: Browser, live_server: str) -> Iterator[Tabs]:
    # bypass_csp: Playwright's wait_for_function evaluates with eval (see test_play_table's `table`)
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)
    opened = Tabs(context, live_server)
    yield opened
    for tab in opened.tabs:
        show_failure(request, tab.page)
    context.close()
    assert not opened.errors, f"script errors in the page: {opened.errors}"
    assert not [url for tab in opened.tabs for url in tab.outside], "a tab reached another address"


def my_game(page: Page, gid: str, condition: str = "") -> str:
    return f'#my-games li.my-game[data-game="{gid}"]{condition}'


def hand_of(page: Page) -> list[str]:
    return sorted(page.locator(".hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))


def test_a_guest_plays_one_game_from_two_tabs_and_after_a_reload_to_its_end(
    tabs: Tabs, rq_worker: str
) -> None:
    base = tabs.base
    first = tabs.open()
    with first.expect_request(lambda r: r.url.endswith("/join")) as joining:
        gid = create(first, base, "rough", name="ann")
    player: dict[str, Any] = first.evaluate(PLAYER)
    assert player["token"].startswith("atp_") and player["name"] == "ann"
    # the seat was taken with the player's token: it is the player's, the seat token is not kept
    assert joining.value.headers["authorization"] == f"Bearer {player['token']}"
    assert first.evaluate("Object.keys(sessionStorage).filter(k => k.includes(':seat:'))") == []
    auth = {"Authorization": f"Bearer {player['token']}"}
    me = httpx.get(f"{base}/v1/me", headers=auth, timeout=10).json()
    assert me["player_id"] == player["id"] and me["name"] == "ann"

    # The lobby lists the game; the player's stream brings the your-turn mark (the bots play until
    # our seat is to act, and no clock plays it for us).
    first.click("#home")
    first.wait_for_selector(my_game(first, gid))
    mark = first.locator(my_game(first, gid, '[data-your-turn="true"]') + " .mark.your-turn")
    mark.wait_for(timeout=60_000)
    assert mark.inner_text() == "Your turn"
    listed = httpx.get(f"{base}/v1/me/games", headers=auth, timeout=10).json()["games"]
    assert [(g["game_id"], g["your_turn"]) for g in listed] == [(gid, True)]
    tabs.tabs[0].screenshot("play-player-lobby")
    assert axe_violations(first) == []
    first.click(my_game(first, gid) + " a")  # the table opens from My games, at our turn
    first.wait_for_selector(".table-head")
    assert wait_for_turn(first) == "turn"
    hand = hand_of(first)

    # A second tab of the same browser: the same player, no new guest; it opens the game from its
    # lobby and plays our turn; the first tab follows the move on its own stream.
    second = tabs.open()
    second.goto(f"{base}/play")
    second.click(my_game(second, gid) + " a")
    second.wait_for_selector(".table-head")
    assert second.evaluate(PLAYER) == first.evaluate(PLAYER)
    assert second.evaluate("new URLSearchParams(location.search).get('game')") == gid
    assert wait_for_turn(second) == "turn" and hand_of(second) == hand
    version = httpx.get(f"{base}/v1/games/{gid}", timeout=10).json()["version"]
    before_first = first.locator("body").inner_text()
    before = second.locator("body").inner_text()
    assert play_one(second) in {"pass", "bid", "keep", "card", "discard"}
    settle(second, before)
    assert httpx.get(f"{base}/v1/games/{gid}", timeout=10).json()["version"] > version
    first.wait_for_function(
        "(before) => document.body.innerText !== before", arg=before_first, timeout=30_000
    )
    tabs.tabs[1].screenshot("play-player-second-tab")

    # A reload of the first tab: the table comes back from the URL with the stored token, and the
    # match goes on there to its end.
    first.bring_to_front()  # a person looks at the tab they play in (a tab behind draws slowly)
    first.reload()
    first.wait_for_selector(".table-head")
    assert first.evaluate("new URLSearchParams(location.search).get('game')") == gid
    for _ in range(400):  # bounded: a short match is well under a hundred of our moves
        if wait_for_turn(first) == "over":
            break
        before = first.locator("body").inner_text()
        play_one(first)
        settle(first, before)
    else:
        raise AssertionError("the match did not end within 400 of our moves")
    assert "Winners" in first.locator(".over").inner_text()
    tabs.tabs[0].screenshot("play-player-over")
    # the second tab followed the match to its end too
    second.wait_for_selector(".over", timeout=30_000)

    # the lobby shows the game over; one guest was made for both tabs, and no tab asked for its legal
    # actions apart (they come with the view, the move's answer, or the player's stream)
    first.click("#home")
    over = first.locator(my_game(first, gid, '[data-status="finished"]') + " .mark")
    over.wait_for(timeout=30_000)
    assert over.inner_text() == "Over"
    assert len(tabs.asked("POST", "/v1/players")) == 1
    assert not tabs.asked("GET", "/actions")
    assert tabs.asked("GET", "/v1/me/events"), "the player's stream was never followed"


def test_the_lobby_reads_my_games_a_page_at_a_time(tabs: Tabs) -> None:
    """More games than a page: "More games" reads the next page (next_cursor) until the last, each game
    once. The page makes the guest at its first table; the test seats it at more through REST, with
    the token the page stored."""
    base = tabs.base
    page = tabs.open()
    first = create(page, base, "rough", friends=True, name="bea")  # no bots: it waits for players
    bearer = {"Authorization": f"Bearer {page.evaluate(PLAYER)['token']}"}
    games = {first}
    with httpx.Client(base_url=base, timeout=10) as client:
        for _ in range(2 * PAGE + 2):
            created = client.post("/v1/games", json={"kind": "rough"})
            assert created.status_code == 201, created.text
            gid = created.json()["game"]["game_id"]
            joined = client.post(f"/v1/games/{gid}/join", json={}, headers=bearer)
            assert joined.status_code == 201, joined.text
            games.add(gid)
    page.click("#home")
    rows = page.locator("#my-games li.my-game")
    page.wait_for_function(f"document.querySelectorAll('#my-games li.my-game').length === {PAGE}")
    assert page.locator("#more-games").count() == 1
    tabs.tabs[0].screenshot("play-player-my-games")
    for shown in (2 * PAGE, 2 * PAGE + 3):
        page.click("#more-games")
        page.wait_for_function(f"document.querySelectorAll('#my-games li.my-game').length === {shown}")
    assert page.locator("#more-games").count() == 0  # the last page
    ids = rows.evaluate_all("els => els.map(e => e.dataset.game)")
    assert len(ids) == len(set(ids)) and set(ids) == games
    marks = page.locator("#my-games .mark").all_inner_texts()
    assert set(marks) == {"Waiting for players"}
    # in French, from the same list
    page.click("#lang")
    page.wait_for_function("document.querySelector('#my-games h2').innerText === 'Mes parties'")
    assert set(page.locator("#my-games .mark").all_inner_texts()) == {"En attente de joueurs"}


def test_the_lobby_mark_comes_live_from_the_players_stream(tabs: Tabs) -> None:
    """The lobby stays open while friends (REST clients here) play until it is our turn: the mark turns
    to "Your turn" with no reload, from the player's stream alone."""
    base = tabs.base
    page = tabs.open()
    gid = create(page, base, "rough", friends=True, name="cy")
    link = page.input_value("#invite-link")
    invite = link.split("invite=")[1]
    page.click("#home")
    page.wait_for_selector(my_game(page, gid, '[data-status="waiting"]'))
    page.evaluate("window.stayed = true")  # gone if the page were loaded again
    with httpx.Client(base_url=base, timeout=10) as client:
        friends: dict[int, str] = {}
        for _ in range(3):
            joined = client.post(f"/v1/games/{gid}/join", json={"invite_code": invite})
            assert joined.status_code == 201, joined.text
            friends[joined.json()["seat"]] = joined.json()["token"]
        assert 0 not in friends  # the page took seat 0
        for _ in range(40):  # bounded: a few passes bring the turn round to seat 0
            game = client.get(f"/v1/games/{gid}").json()
            if game["to_act"] == 0:
                break
            seat = game["to_act"]
            mine = {"Authorization": f"Bearer {friends[seat]}"}
            legal = client.get(f"/v1/games/{gid}/actions", headers=mine).json()["legal_actions"]
            action = next((a for a in legal if a["type"] == "pass"), legal[0])
            moved = client.post(
                f"/v1/games/{gid}/actions",
                json={"action": action, "expected_version": game["version"]},
                headers=mine,
            )
            assert moved.status_code == 200, moved.text
        else:
            raise AssertionError("the turn never came to seat 0")
    mark = page.locator(my_game(page, gid, '[data-your-turn="true"]') + " .mark.your-turn")
    mark.wait_for(timeout=30_000)
    assert page.evaluate("window.stayed") is True
