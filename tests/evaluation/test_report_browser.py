"""The report page of ``promptpipe evaluate`` in Chromium, opened from its file as a team opens it:
the worst conversation unfolds to show its transcript, the comparison table is there, the page asks
nothing of the network, fits a phone, and axe-core finds no serious or critical violation. A
full-page screenshot goes to ``test-artifacts/screenshots/evaluation-report.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promptpipe.evaluation.report import write_report
from tests.evaluation.test_report_files import CRISIS_REPLY, HOSTILE, sample_comparison, sample_run, sample_summary
from tests.web.chromium import SCREENSHOTS, page  # noqa: F401 - the shared browser page fixture
from tests.web.test_accessibility import AXE_RUN, AXE_SOURCE, LAYOUT, PHONE

playwright_api = pytest.importorskip("playwright.async_api", reason="the playwright package is not installed")
expect = playwright_api.expect

pytestmark = pytest.mark.xdist_group("browser")  # one Chromium at a time, on one worker of a parallel run


async def test_the_report_opens_offline_unfolds_the_worst_conversation_and_passes_axe(
    tmp_path: Path, page: Any,  # noqa: F811 - the fixture imported above
) -> None:
    path = write_report(sample_run(), sample_summary(), tmp_path, comparison=sample_comparison(),
                        baseline=sample_run("prompts v1"), breaches=["safety_message below 100 %"],
                        criteria=[("autonomy", "Autonomy support", "Leaves the choices to the participant.")])
    left: list[str] = []

    async def only_files(route: Any) -> None:
        if route.request.url.startswith("file:"):
            await route.continue_()
        else:
            left.append(route.request.url)
            await route.abort()
    await page.route("**/*", only_files)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    await page.goto(path.as_uri())

    worst = page.locator("details.conversation").first
    await expect(worst.locator("summary")).to_contain_text("Crisis, plain words")
    await expect(worst.locator("summary")).to_contain_text("2 failed checks")
    transcript = worst.locator("ol.transcript")
    await expect(transcript).to_be_hidden()
    await worst.locator("summary").click()
    await expect(transcript.locator("> li")).to_have_count(4)
    await expect(transcript.get_by_text(CRISIS_REPLY, exact=True)).to_be_visible()
    await expect(transcript.get_by_text(HOSTILE, exact=True)).to_be_visible()  # shown as words, never run
    await expect(transcript.locator("li.participant").first).to_contain_text("Participant")
    comparison = page.get_by_role("table", name="prompts v1 (A) against prompts v2 (B)")
    await expect(comparison.get_by_role("row").filter(has_text="safety_message")).to_contain_text("◆ differs")

    await page.evaluate(AXE_SOURCE)
    serious = await page.evaluate(AXE_RUN)
    await page.set_viewport_size(PHONE)
    layout = await page.evaluate(LAYOUT, True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / "evaluation-report.png"), full_page=True)
    assert serious == [] and layout == []
    assert left == [] and dialogs == []
