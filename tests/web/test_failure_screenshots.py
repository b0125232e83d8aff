"""A browser test that fails leaves a screenshot of its page (tests/web/chromium.py's ``page``
fixture): a failing test run in a pytest of its own leaves a picture of what its page showed, and
its own failure is still the one reported. (Chromium starts in about 1.5 s: a passing test, which
leaves none, is left out to save it; every other browser test passes and leaves none.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.web.chromium import CHROMIUM

pytestmark = [
    pytest.mark.xdist_group("browser"),  # one Chromium at a time, on one worker of a parallel run
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)"),
]
ROOT = Path(__file__).resolve().parents[2]

TESTS = '''
from pathlib import Path
import tests.web.chromium as chromium

chromium.SCREENSHOTS = Path(__file__).parent / "shots"


async def test_a_page_that_shows_the_wrong_thing(page):
    await page.set_content("<h1>The wrong page</h1>")
    assert await page.title() == "the right page"

'''


def test_a_failing_browser_test_leaves_a_screenshot_of_its_page(tmp_path: Path) -> None:
    pytest.importorskip("playwright.async_api", reason="the playwright package is not installed")
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\n", encoding="utf-8")
    (tmp_path / "test_pages.py").write_text(TESTS, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "pytest_asyncio.plugin", "-p", "tests.web.chromium",
               "-p", "no:cacheprovider", "-q", "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path),
               str(tmp_path / "test_pages.py")]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
                         env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})  # no other plugin: a quick start
    assert "1 failed in" in run.stdout, run.stdout + run.stderr
    assert "the right page" in run.stdout  # the test's own failure, not the screenshot's
    shots = sorted(path.name for path in (tmp_path / "shots").iterdir())
    assert shots == ["test_a_page_that_shows_the_wrong_thing-failure.png"]
    assert (tmp_path / "shots" / shots[0]).read_bytes().startswith(b"\x89PNG")
