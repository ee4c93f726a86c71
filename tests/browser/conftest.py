"""Browser tests: Playwright for Python drives Debian's ``chromium`` (``make browser`` installs it),
launched by its path: nothing is downloaded. Every page runs with the network cut off but for the
service under test, and each test writes screenshots under ``var/screens/``."""

from __future__ import annotations

import shutil
from collections.abc import Generator, Iterator

import pytest
from browser_helpers import FAILED, OfflinePage, show_failure
from playwright.sync_api import Browser, sync_playwright


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember on the test item whether its body failed, for the page fixtures' teardown."""
    report = yield
    if report.when == "call" and report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium per test module: Playwright's sync API runs an event loop on this thread while
    it is open, so it is closed before the other test folders (which call asyncio.run) start."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    assert executable, "Debian's chromium is missing: `make browser` installs it"
    with sync_playwright() as playwright:
        # --no-sandbox: the tests may run as root (CI containers), where Chromium's sandbox cannot start
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def offline_page(request: pytest.FixtureRequest, browser: Browser, live_server: str) -> Iterator[OfflinePage]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    offline = OfflinePage(page, live_server)
    yield offline
    show_failure(request, page)
    context.close()
    assert not errors, f"script errors in the page: {errors}"
