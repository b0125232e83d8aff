"""The adherence heatmap (``/adherence``): participants × their study days, filtered, sorted and paged like the
participant list. An inline SVG rather than a table: one drawing of 50 × 120 cells is lighter than 6,000 table cells,
and its links and titles still work without a script, for the keyboard and for a screen reader."""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from promptpipe.domain.adherence import CELL_OUTCOMES
from promptpipe.domain.participant_filter import ParticipantSort
from promptpipe.domain.states import Stage, Status
from promptpipe.research import monitoring
from promptpipe.web.charts import OUTCOME_LABELS, OUTCOME_SYMBOLS, HeatmapRow, heatmap, heatmap_legend
from promptpipe.web.pages._lists import PER_PAGE, Pager, page_number, read_filter
from promptpipe.web.pages._render import Visiting, attempt, render, url
from promptpipe.web.pages.participants import participant_url

__all__ = ["SORTS", "day_url", "router", "status_word"]

router = APIRouter()
SORTS = {
    "enrolled": "enrolment, oldest first", "-enrolled": "enrolment, newest first",
    "answered": "adherence, lowest first", "-answered": "adherence, highest first",
    "last_in": "silence: last message from them longest ago first",
}
"""The orders offered (a sort key of the participant list, ``-`` for descending) and their words."""
DEFAULT_SORT = "enrolled"


def day_url(participant_id: str, day: date) -> str:
    return f"/participants/{participant_id}/days/{day.isoformat()}"


def status_word(status: str, stage: str, paused_by: str | None) -> str:
    """A row's state in a word or two (STOP is their own pause, paused the team's)."""
    if status == Status.PAUSED:
        return "STOP" if paused_by and "participant" in paused_by else "paused"
    if status in (Status.WITHDRAWN, Status.COMPLETED):
        return status
    words: dict[str, str] = {Stage.INTAKE_SUSPENDED: "intake on hold", Stage.INTAKE: "in intake"}
    return words.get(stage, "active")


@router.get("/adherence", response_class=HTMLResponse)
async def adherence(request: Request, found: Visiting, status: str = "",
                    stage: str = "", arm: str = "", silent: str = "", sort: str = "",
                    page: str = "1") -> HTMLResponse:
    form = read_filter(status, stage, arm, silent)
    chosen = sort if sort in SORTS else DEFAULT_SORT
    number = page_number(page)
    data = await attempt(monitoring.adherence(found.ctx.reader, found.ctx.clock, form.flt, limit=PER_PAGE,
                                              offset=(number - 1) * PER_PAGE,
                                              receipt_window=found.ctx.settings.delivery_receipt_window,
                                              order=ParticipantSort.parse(chosen)))
    rows = [HeatmapRow(row.participant_id, row.cells, label=row.name if found.identified else "",
                       status=status_word(row.status, row.stage, row.paused_by),
                       first_day=date.fromisoformat(row.first_day)) for row in data.rows]
    keep = {**form.query, "sort": chosen if chosen != DEFAULT_SORT else ""}
    pager = Pager.build(number, data.total, lambda n: url("/adherence", **keep, page=n))
    chart = Markup(heatmap(rows, data.days, link=participant_url, cell_link=day_url)) if rows else None  # escaped
    return render(request, "adherence.html", found, section="adherence", form=form, pager=pager, chart=chart,
                  legend=Markup(heatmap_legend(CELL_OUTCOMES)), sorts=SORTS, sort=keep["sort"], chosen=chosen,
                  outcomes=[f"{OUTCOME_SYMBOLS[outcome]} {OUTCOME_LABELS[outcome]}" for outcome in CELL_OUTCOMES],
                  days=data.days)
