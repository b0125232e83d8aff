"""The adherence heatmap (``/adherence``): a page of participants × their study days, each cell
that day's outcome, drawn as inline SVG; filtered and paged like the participant list."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from promptpipe.domain.adherence import CELL_OUTCOMES
from promptpipe.research import monitoring
from promptpipe.web.charts import OUTCOME_LABELS, HeatmapRow, heatmap, heatmap_legend
from promptpipe.web.pages._lists import PER_PAGE, Pager, page_number, read_filter
from promptpipe.web.pages._render import Visitor, attempt, render, url, visitor
from promptpipe.web.pages.participants import participant_url

__all__ = ["router"]

router = APIRouter()


@router.get("/adherence", response_class=HTMLResponse)
async def adherence(request: Request, found: Annotated[Visitor, Depends(visitor)], status: str = "",
                    stage: str = "", arm: str = "", silent: str = "", page: str = "1") -> HTMLResponse:
    form = read_filter(status, stage, arm, silent)
    number = page_number(page)
    data = await attempt(monitoring.adherence(found.ctx.reader, found.ctx.clock, form.flt, limit=PER_PAGE,
                                              offset=(number - 1) * PER_PAGE,
                                              receipt_window=found.ctx.settings.delivery_receipt_window))
    rows = [HeatmapRow(row.participant_id, row.cells) for row in data.rows]
    pager = Pager.build(number, data.total, lambda n: url("/adherence", **form.query, page=n))
    chart = Markup(heatmap(rows, data.days, link=participant_url)) if rows else None  # charts escape
    return render(request, "adherence.html", found, section="adherence", form=form, pager=pager, chart=chart,
                  legend=Markup(heatmap_legend(CELL_OUTCOMES)),
                  outcomes=[OUTCOME_LABELS[outcome] for outcome in CELL_OUTCOMES], days=data.days)
