"""Playing /play as a person would, shared by the browser tests of the table: create a table from the
lobby, wait for our turn, take one legal action by clicking the control the page offers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

import engine

NODE_AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
TURN = ".turn"
OVER = ".over"


def lowest(game: str, option: str) -> str:
    return str(min(engine.games()[game]["options"][option]["allowed"]))


def create(page: Page, base: str, game: str, *, friends: bool = False, name: str = "ann") -> str:
    """Create a table from the lobby (the shortest match the rules allow) and return its id."""
    page.goto(f"{base}/play")
    page.select_option("#game", game)
    page.select_option("#option-target_score", lowest(game, "target_score"))
    page.check("#mode-friends" if friends else "#mode-bots")
    page.fill("#name", name)
    page.click("#create")
    page.wait_for_selector(".table-head")
    return page.evaluate("new URLSearchParams(location.search).get('game')")


def wait_for_turn(page: Page, timeout_ms: int = 60_000) -> str:
    """Wait until the seat is to act or the match is over: "turn" or "over"."""
    page.wait_for_selector(f"{TURN}, {OVER}", timeout=timeout_ms)
    return "over" if page.locator(OVER).count() else "turn"


def play_one(page: Page, prefer: str = "") -> str:
    """Take one legal action as a person would: the discard (the first cards offered), a called
    card, a highlighted card, or the first action button (``prefer`` chooses one by its action
    type). Returns what was done. The table may be drawn again meanwhile (an event arrived): look
    again, a bounded number of times."""
    for _ in range(50):
        done = try_one(page, prefer)
        if done:
            return done
        if page.locator(OVER).count():
            return "over"  # the match ended meanwhile: nothing left to play
        page.wait_for_timeout(100)
    raise AssertionError(
        "the seat is to act but the page offers no control: " + page.locator("body").inner_text()
    )


def try_one(page: Page, prefer: str) -> str | None:
    buttons = page.locator(".actions button.action")
    if prefer:
        wanted = page.locator(f'.actions button.action[data-action*=\'"type":"{prefer}"\']')
        if wanted.count():
            return prefer if click(wanted.first) else None
    if page.locator("#discard-confirm").count():
        count = page.locator("#discard-confirm").inner_text()
        wanted_count = int("".join(ch for ch in count if ch.isdigit()))
        for button in page.locator(".discard button.card").all()[:wanted_count]:
            if not click(button):
                return None
        return "discard" if click(page.locator("#discard-confirm")) else None
    if page.locator(".calls button.card").count():
        return "call_partner" if click(page.locator(".calls button.card").first) else None
    playable = page.locator(".hand button.card.playable")
    if playable.count():
        return "card" if click(playable.first) else None
    if buttons.count():
        action = json.loads(buttons.first.get_attribute("data-action") or "{}")
        return str(action.get("type")) if click(buttons.first) else None
    return None


def click(control: Locator) -> bool:
    """Click a control the page still shows. An event may draw the table again meanwhile (the same
    control comes back, and Playwright finds it again) or move the game on (it is gone: False, and
    the caller looks at the page again)."""
    try:
        control.click(timeout=5_000)
    except PlaywrightTimeoutError:
        return False
    return True


def settle(page: Page, before: str) -> None:
    """Wait until the page has moved on from the state whose version text was ``before``."""
    page.wait_for_function(
        "(before) => !document.querySelector('.turn') || document.body.innerText !== before",
        arg=before,
        timeout=30_000,
    )


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """The serious and critical accessibility violations axe-core finds in the page as it is."""
    page.add_script_tag(content=NODE_AXE.read_text())
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
    )
    serious = [v for v in found if v.get("impact") in ("serious", "critical")]
    return [{"id": v["id"], "nodes": [n["html"][:200] for n in v["nodes"]][:3]} for v in serious]
