"""A name that starts like a spreadsheet formula (=, +, -, @; a leading tab is trimmed like any
space, and a line break is refused as a second line) is refused at every door of enrolment, with
the reason: the team's script, the API, the dashboard's form and a CSV file (its preview says so
on the row)."""

from __future__ import annotations

import re

import pytest

from promptpipe.errors import AdminError
from promptpipe.research import admin
from tests.markers import SQLITE_ONLY
from tests.web.browser import csrf_of, signed_in
from tests.web.conftest import Web
from tests.web.test_enrolment_pages import enrolled_phones, row_check

ANA, BEN = "+14165550141", "+14165550142"
FORMULAS = ["=HYPERLINK(\"http://x\")", "+1 Ana", "-Ana", "@SUM(A1)"]
REASON = "a name cannot start with =, +, - or @"


@SQLITE_ONLY
async def test_a_formula_like_name_is_refused_at_every_door(web: Web) -> None:
    for name in FORMULAS:
        with pytest.raises(AdminError, match=re.escape(REASON)):
            await admin.enroll(web.app.db, web.app.clock, admin.Enrolment(phone=ANA, name=name, timezone="UTC"))
    async with web.client("researcher") as api:
        for name in FORMULAS:
            answer = await api.post("/api/v1/participants", json={"phone": ANA, "name": name, "timezone": "UTC"})
            assert answer.status_code in (400, 422) and REASON in answer.text, answer.text
        csv = f"phone,name,timezone,background\n{ANA},Ana Lindqvist,UTC,\n{BEN},=cmd|' /C calc'!A0,UTC,\n"
        dry = await api.post("/api/v1/participants/import", json={"csv": csv, "dry_run": True})
        assert REASON in (dry.json()["rows"][1]["problem"] or "")
    async with signed_in(web, "researcher") as client:
        form = await client.get("/participants/new")
        refused = await client.post("/participants/new", data={"csrf": csrf_of(form.text), "phone": ANA,
                                                               "name": "=1+1", "timezone": "UTC"})
        assert refused.status_code == 400 and REASON in refused.text
        preview = await client.post("/participants/import",
                                    data={"csrf": csrf_of(form.text), "step": "check", "csv": csv})
        assert "ready" in row_check(preview.text, 2) and REASON in row_check(preview.text, 3)
    assert await enrolled_phones(web) == []
    # a name with such a character further on is a name like any other
    await admin.enroll(web.app.db, web.app.clock, admin.Enrolment(phone=ANA, name="Anne-Marie @ home", timezone="UTC"))
    assert await enrolled_phones(web) == [ANA]
