"""A pilot of a stratified study (bug: its sandbox participant was enrolled without the stratum
the study asks for, so the pilot could not start)."""

from __future__ import annotations

from pathlib import Path

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.pilot import Pilot
from promptpipe.pilot.engine import PILOT_PHONE
from promptpipe.research import reports
from tests.conftest import make_settings
from tests.fakes.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]


async def test_a_stratified_study_can_be_piloted(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'study.db'}", tmp_path / "state", fake_openai.url,
                             PROMPTPIPE_STUDY_FILE=str(ROOT / "study.example.toml"))
    assert settings.study.allocation.strata, "the example study stratifies"
    fake_openai.say("Hi Robin, welcome!", match="Robin")
    pilot = await Pilot.start(settings, App.build, ManualClock(), owner="ana", name="Robin", zone="America/Toronto")
    try:
        shown = await reports.show(pilot.db, PILOT_PHONE)
        assert shown.strata == {"site": settings.study.allocation.strata[0][1][0]}  # the first level
        assert [m.text for m in (await pilot.view()).messages] == ["Hi Robin, welcome!"]
    finally:
        await pilot.stop()
