"""The study report (``/report``): tables of counts (nothing that identifies anyone) with charts and CSV files; and,
for researchers, the export as a zip (the same code path as ``GET /api/v1/export``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from markupsafe import Markup

from promptpipe.study.report.tables import ReportTables, report_tables
from promptpipe.web.charts import bar_chart, line_chart, share_bars
from promptpipe.web.export_download import csv_download, export_zip
from promptpipe.web.pages._render import PageError, Visiting, Visitor, attempt, identified_only, render, signed_in

__all__ = ["router"]

router = APIRouter()
FORMATS = ("csv", "jsonl")


async def _tables(found: Visitor) -> ReportTables:
    ctx = found.ctx
    return await attempt(report_tables(ctx.reader, ctx.settings.study, now=found.now,
                                       today=found.now.astimezone(ctx.researcher_zone).date()))


def _adherence_chart(found: ReportTables) -> str:
    days = sorted({day.date for day in found.adherence_days})
    table = found.tables["adherence"]
    series: dict[str, list[float | None]] = {}
    at = table.columns.index("Answered share")
    for row in table.rows:
        day, arm, share = str(row[0]), str(row[1]), row[at]
        values = series.setdefault(arm, [None] * len(days))
        values[days.index(day)] = share if isinstance(share, float) else None
    return line_chart("Share of daily prompts answered, by day and arm", days, series)


def _compliance_chart(found: ReportTables) -> str:
    bars = [(str(qid), q.completion_rate, f"{q.completed} of {q.sent}")
            for qid, q in found.report.questionnaires.items()]
    if found.report.self_report_by_action is not None:
        bars += [(f"self-report after {action}", a.share, f"{a.answered} of {a.points}")
                 for action, a in found.report.self_report_by_action.items()]
    return share_bars("Questionnaires completed, and self-reports answered by drawn action", bars,
                      colour="#1a7f37")


@router.get("/report", response_class=HTMLResponse)
async def report(request: Request, found: Visiting) -> HTMLResponse:
    tables = await _tables(found)
    decisions = [(str(row[0]), int(row[1] or 0)) for row in tables.tables["decisions"].rows]
    return render(request, "report.html", found, section="report", report=tables.report, tables=tables.tables,
                  adherence_chart=Markup(_adherence_chart(tables)),  # escaped where it is drawn
                  decision_chart=Markup(bar_chart("Decision points by availability", decisions)),
                  compliance_chart=Markup(_compliance_chart(tables)), formats=FORMATS)


_researcher = identified_only("The export is for researchers and admins")


@router.get("/report/export.zip", response_class=FileResponse)
async def export(found: Annotated[Visitor, Depends(_researcher)], format: str = "csv",
                 identifiers: str = "") -> FileResponse:
    """The export as ``GET /api/v1/export`` gives it, audited as made through the dashboard."""
    if format not in FORMATS:
        raise PageError(400, "format: choose csv or jsonl.")
    return await attempt(export_zip(found.ctx, found.caller, fmt=format, include_identifiers=identifiers == "yes",
                                    via="dashboard"))


@router.get("/report/{table}.csv")
async def table_csv(table: str, found: Annotated[Visitor, Depends(signed_in)]) -> Response:
    tables = await _tables(found)
    if table not in tables.tables:
        raise PageError(404, f"The report has no table called {table[:40]}; its tables are "
                             f"{', '.join(tables.tables)}.")
    found_table = tables.tables[table]  # shares as fractions, nothing as an empty cell
    return csv_download([found_table.columns, *found_table.rows], f"report-{table}.csv")
