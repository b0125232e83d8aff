"""The admin script's questionnaire commands, as a team pilots a questionnaire: a clear refusal
for an id the study file does not have, a send queued for the service, and the counts by state."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.flow.test_questionnaires import STUDY
from tests.research.test_admin_cli import ENROLL, run_admin
from tests.study_helpers import study_file


async def test_send_and_status_from_the_admin_script(
    cli_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PROMPTPIPE_STUDY_FILE", study_file(STUDY))
    assert (await asyncio.to_thread(run_admin, capsys, *ENROLL))[0] == 0
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "questionnaire", "status")
    assert code == 0 and out.strip() == "no questionnaire has been scheduled or sent yet"

    code, _, err = await asyncio.to_thread(run_admin, capsys, "questionnaire", "send", "--phone", ENROLL[2], "mood")
    assert code != 0
    assert "questionnaire 'mood' is not in the study file in force (its questionnaires: evening)" in err

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "questionnaire", "send", "--phone", ENROLL[2], "evening")
    assert code == 0 and "questionnaire evening queued as instance 1" in out
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "questionnaire", "status")
    assert out.split() == ["evening", "scheduled", "1"]  # the service sends it when it runs
