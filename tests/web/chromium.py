"""Debian's Chromium for the browser tests, and the shared ``page`` fixture: a fresh browser page
in a laptop-sized window which, when the test using it fails, leaves a full-page screenshot of what
it showed at that moment in ``test-artifacts/screenshots/<test name>-failure.png``.

A pytest plugin: tests/web/conftest.py imports the fixture and the hook, and the test of the hook
loads it with ``-p tests.web.chromium``."""

from __future__ import annotations

import re
import warnings
from collections.abc import AsyncIterator, Generator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
LAPTOP = {"width": 1280, "height": 800}

CALL_REPORT = pytest.StashKey[pytest.TestReport]()
"""The report of a test's call phase, kept on the item so that fixtures can read it at teardown."""


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    return report


def failure_screenshot(test_name: str) -> Path:
    """Where the screenshot of a failed test goes (its parameters made safe for a file name)."""
    return SCREENSHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', test_name).strip('-')}-failure.png"


async def save_failure_screenshot(page: Any, test_name: str) -> None:
    """The page as it is, whole; a page that can no longer be drawn costs a warning, never the
    test's own failure."""
    path = failure_screenshot(test_name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(path), full_page=True)
    except Exception as problem:  # the test's own error is the one to report
        warnings.warn(f"no failure screenshot for {test_name}: {problem}", stacklevel=1)


@pytest.fixture
async def page(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A fresh Chromium page (its own cookies) in a window of a laptop's size."""
    playwright_api = pytest.importorskip("playwright.async_api", reason="the playwright package is not installed")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium) for the browser tests")
    async with playwright_api.async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        opened = await (await browser.new_context(viewport=LAPTOP)).new_page()
        try:
            yield opened
            report = request.node.stash.get(CALL_REPORT, None)
            if report is not None and report.failed:
                await save_failure_screenshot(opened, request.node.name)
        finally:
            await browser.close()
