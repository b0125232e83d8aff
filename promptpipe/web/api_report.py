"""``GET /api/v1/report``: the study report as the dashboard's report page shows it, table by table (the same
:func:`~promptpipe.study.report.tables.report_tables`, so the API, the page and its CSV files cannot disagree). Counts,
shares, arms, statuses and questionnaire ids only: nothing that identifies anyone, so a viewer reads it too."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from promptpipe.study.report.tables import report_tables
from promptpipe.web.api import ERRORS
from promptpipe.web.auth import Context, Viewer

__all__ = ["ReportOut", "router"]

router = APIRouter(prefix="/api/v1", responses=ERRORS)


class ReportTableOut(BaseModel):
    key: str = Field(description="its name: the page's anchor and /report/{key}.csv")
    title: str
    columns: list[str]
    rows: list[list[int | float | str | None]]
    share_columns: list[int] = Field(description="the columns (by index) holding a share from 0 to 1")


class ReportOut(BaseModel):
    study: str
    generated_at: str = Field(description="when it was counted (UTC)")
    tables: list[ReportTableOut]


@router.get("/report", response_model=ReportOut, tags=["study"])
async def report(ctx: Context, caller: Viewer) -> ReportOut:
    """Participants by status and arm, study days reached, prompts per arm, adherence per day and
    arm, decision points by availability and action, questionnaire and self-report compliance."""
    now = ctx.clock.now()
    found = await report_tables(ctx.reader, ctx.settings.study, now=now,
                                today=now.astimezone(ctx.researcher_zone).date())
    return ReportOut(study=ctx.settings.study.name, generated_at=now.isoformat(),
                     tables=[ReportTableOut(key=table.key, title=table.title, columns=list(table.columns),
                                            rows=[list(row) for row in table.rows], share_columns=sorted(table.shares))
                             for table in found.tables.values()])
