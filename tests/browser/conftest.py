"""Browser tests: Playwright for Python drives Debian's ``chromium`` (``make browser`` installs it),
launched by its path: nothing is downloaded. Every page runs with the network cut off but for the
service under test, and each test writes screenshots under ``var/screens/``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, sync_playwright

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    assert executable, "Debian's chromium is missing: `make browser` installs it"
    with sync_playwright() as playwright:
        # --no-sandbox: the tests may run as root (CI containers), where Chromium's sandbox cannot start
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


class OfflinePage:
    """A page that may reach only ``base``: any other request is aborted and remembered."""

    def __init__(self, page: Page, base: str) -> None:
        self.page, self.base, self.outside = page, base, list[str]()
        page.route("**/*", self._only_base)

    def _only_base(self, route: Route) -> None:
        url = route.request.url
        if url.startswith(self.base) or url.startswith("data:"):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def screenshot(self, name: str) -> Path:
        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path


@pytest.fixture
def offline_page(browser: Browser, live_server: str) -> Iterator[OfflinePage]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    offline = OfflinePage(page, live_server)
    yield offline
    context.close()
    assert not errors, f"script errors in the page: {errors}"
