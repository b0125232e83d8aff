"""The API as a contract, checked the way someone outside the project would: schemathesis' own
command line (`st run`) against the served API, with an admin token, every check it has, over all
its phases: the coverage phase's boundary values for every operation, then 5 fuzzed examples per
operation (10 cost a third more CPU: the in-process test fuzzes deeper) and the stateful phase. It must find nothing:
no request outside the schema accepted (ST201), none inside it refused (ST202), no 5xx, every
answer as the schema says. The in-process test (test_api_contract.py) goes deeper into existing
participants; this one is the outside view, with schemathesis' checks exactly as shipped."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.web.conftest import Web
from tests.web.test_api_contract import _study, database_url  # noqa: F401 - SQLite only, as there

EXAMPLES = 5
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.long
async def test_schemathesis_with_every_check_finds_nothing(web: Web, fake_openai: FakeOpenAIServer,
                                                           tmp_path: Path) -> None:
    fake_openai.always("Hello!", match="")
    await _study(web)
    st = Path(sys.executable).parent / "st"
    output = tmp_path / "st.out"
    with output.open("w") as out:  # the server answers on this event loop while st runs
        process = await asyncio.create_subprocess_exec(
            str(st), "run", f"{web.url}/openapi.json", "--checks", "all", "--max-examples", str(EXAMPLES),
            "--header", f"Authorization: Bearer {web.tokens['admin']}", "--generation-deterministic",
            "--no-shrink", "--continue-on-failure", "--workers", "1", "--report-dir", str(tmp_path / "report"),
            stdout=out, stderr=asyncio.subprocess.STDOUT, cwd=tmp_path,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.web.schemathesis_phone_hook",
                 "PYTHONPATH": str(ROOT)})
        code = await asyncio.wait_for(process.wait(), timeout=900)
    text = output.read_text()
    assert code == 0, text[-12000:]
    assert "No issues found" in text or "passed" in text, text[-3000:]
