"""What the browser tests share: a page cut off from every address but the service's, and where
screenshots go (``var/screens/``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, Route

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens"
FAILED = pytest.StashKey[bool]()  # set by conftest.py on a test whose body failed


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


def show_failure(request: pytest.FixtureRequest, page: Page) -> None:
    """After a failed test: a screenshot of the page (``var/screens/failed-<test>.png``) and the
    text it showed, so a run elsewhere (CI) says what the page looked like."""
    if not request.node.stash.get(FAILED, False):
        return
    SCREENS.mkdir(parents=True, exist_ok=True)
    shot = SCREENS / f"failed-{request.node.name}.png"
    try:
        page.screenshot(path=str(shot))
        print(f"\nthe page at the failure ({shot}):\n{page.locator('body').inner_text()}")
    except Exception as error:  # the page may be gone: say so, do not hide the test's own failure
        print(f"\nno screenshot of the failed page: {error}")
