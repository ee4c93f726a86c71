"""What the browser tests share: a page cut off from every address but the service's, and where
screenshots go (``var/screens/``)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, Route

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens"


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
