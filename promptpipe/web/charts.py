"""Dashboard charts as server-drawn inline SVG: pure functions from plain data to markup, so no page needs a script.
Every study text is escaped here (markup goes in as is); colours are SVG attributes (pages' CSP: no inline style)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from html import escape

from promptpipe.domain.adherence import CELL_OUTCOMES

__all__ = ["OUTCOME_COLOURS", "OUTCOME_LABELS", "OUTCOME_SYMBOLS", "SERIES_COLOURS", "HeatmapRow", "bar_chart",
           "heatmap", "heatmap_legend", "line_chart", "share_bars"]

OUTCOME_LABELS = {
    "done": "done", "not_this_time": "not this time", "replied": "replied", "no_reply": "no reply",
    "not_delivered": "not delivered", "no_prompt": "no prompt",
}
"""How each day's outcome reads in titles and the legend."""
OUTCOME_COLOURS = {
    "done": "#1a7f37", "not_this_time": "#e3a008", "replied": "#3b7dd8", "no_reply": "#e8a0a0",
    "not_delivered": "#6e4a9e", "no_prompt": "#eef0f3",
}
"""Fill of each outcome's cell: easy to tell apart, also for the common kinds of colour blindness
(green and red never stand side by side without a difference in lightness)."""
OUTCOME_SYMBOLS = {
    "done": "✓", "not_this_time": "✗", "replied": "✎", "no_reply": "?", "not_delivered": "!", "no_prompt": "–",
}
"""Drawn in each cell, so the heatmap reads without colour (and in print)."""
_DARK_FILLS = frozenset({"done", "replied", "not_delivered"})
"""Outcomes whose fill needs a white symbol."""

CELL_PX, GAP_PX, LABEL_PX, HEADER_PX = 16, 2, 150, 22
NAMED_LABEL_PX, STATUS_PX = 190, 100
"""The column of row labels when they are names; the column of status words, when the rows have them."""
LABEL_CHARS = 22
"""A longer row label (a name) is cut short; its link's title has it whole."""
BAR_MAX_PX, BAR_LABEL_PX, BAR_ROW_PX = 200, 110, 22
SHORT_DAYS = 10
"""Up to this many days, every day is numbered over its column."""
SERIES_COLOURS = ("#3b7dd8", "#c4551a", "#1a7f37", "#6e4a9e", "#8a6d00", "#b0306f")
"""One colour per arm, in the report's order of arms (told apart by the legend's words too)."""
WIDTH, HEIGHT, LEFT, TOP, BOTTOM = 640, 220, 44, 12, 40
SHARE_LABEL_PX, SHARE_MAX_PX = 170, 260
"""The report's share bars: a wider label column, bars against a full-width 100 %."""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


@dataclass(frozen=True)
class HeatmapRow:
    participant_id: str
    cells: Sequence[str]
    """One outcome per day from column 1 (see :data:`promptpipe.domain.adherence.CELL_OUTCOMES`)."""
    label: str = ""
    """What the row is called (a researcher sees the name); the id when empty."""
    status: str = ""
    """A word or two beside the label (paused, STOP, withdrawn …)."""
    first_day: date | None = None
    """The date of column 1: with it, each cell links to its day."""


CellLink = Callable[[str, date], str]
"""A day's page, from the participant's id and the date."""


def heatmap(rows: Sequence[HeatmapRow], days: int, *, link: Callable[[str], str] | None = None,
            cell_link: CellLink | None = None) -> str:
    """Participants (rows) × study days (columns), each cell coloured and marked by that day's outcome; ``link``
    gives each row label's URL, ``cell_link`` each cell's (for rows with a first day)."""
    days = max(days, 1)
    label_px = NAMED_LABEL_PX if any(row.label for row in rows) else LABEL_PX
    left = label_px + (STATUS_PX if any(row.status for row in rows) else 0)
    width = left + days * (CELL_PX + GAP_PX)
    height = HEADER_PX + max(len(rows), 1) * (CELL_PX + GAP_PX)
    parts = [f'<svg class="heatmap" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-labelledby="heatmap-title">',  # not role=img: its links count
             '<title id="heatmap-title">Outcome of each study day, one row per participant</title>']
    parts.extend(_day_header(days, left))
    for index, row in enumerate(rows):
        parts.extend(_heatmap_row(row, HEADER_PX + index * (CELL_PX + GAP_PX), label_px, left, link, cell_link))
    parts.append("</svg>")
    return "".join(parts)


def _day_header(days: int, left: int = LABEL_PX) -> list[str]:
    """Day numbers over the columns: day 1, every 7th day, and the last (unless it is crowded)."""
    marks = [day for day in range(1, days + 1) if day == 1 or day % 7 == 0 or days <= SHORT_DAYS]
    if days - marks[-1] >= 2:
        marks.append(days)
    labels = []
    for day in marks:
        x = left + (day - 1) * (CELL_PX + GAP_PX) + CELL_PX / 2
        labels.append(f'<text class="heatmap-day" x="{x:g}" y="{HEADER_PX - 8}" text-anchor="middle" '
                      f'font-size="11" fill="#444">{day}</text>')
    labels.append(f'<text class="heatmap-day" x="{left - 8}" y="{HEADER_PX - 8}" text-anchor="end" '
                  'font-size="11" fill="#444">day</text>')
    return labels


def _row_label(row: HeatmapRow, y: int, label_px: int, link: Callable[[str], str] | None) -> list[str]:
    pid = _e(row.participant_id)
    name = row.label or row.participant_id
    shown = name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "…"
    font = ' font-family="monospace"' if not row.label else ""
    label = (f'<text class="heatmap-label" x="{label_px - 8}" y="{y + CELL_PX - 4}" text-anchor="end" '
             f'font-size="12"{font} fill="#1f2328">{_e(shown)}</text>')
    whole = f"<title>{_e(name)} ({pid})</title>" if row.label else ""
    parts = [f'<a href="{_e(link(row.participant_id))}">{whole}{label}</a>' if link else label]
    if row.status:
        parts.append(f'<text class="heatmap-status" x="{label_px}" y="{y + CELL_PX - 4}" font-size="11" '
                     f'fill="#57606a">{_e(row.status)}</text>')
    return parts


def _heatmap_row(row: HeatmapRow, y: int, label_px: int, left: int, link: Callable[[str], str] | None,
                 cell_link: CellLink | None) -> list[str]:
    pid = _e(row.participant_id)
    parts = _row_label(row, y, label_px, link)
    for day, outcome in enumerate(row.cells, start=1):
        x = left + (day - 1) * (CELL_PX + GAP_PX)
        word = OUTCOME_LABELS.get(outcome, outcome)
        dark = outcome in _DARK_FILLS
        cell = (f'<rect class="cell cell-{_e(outcome)}" data-outcome="{_e(outcome)}" data-day="{day}" '
                f'x="{x}" y="{y}" width="{CELL_PX}" height="{CELL_PX}" rx="2" '
                f'fill="{OUTCOME_COLOURS.get(outcome, "#ffffff")}" stroke="#d0d7de" stroke-width="0.5">'
                f"<title>{pid} day {day}: {_e(word)}</title></rect>"
                f'<text class="cell-symbol{" on-dark" if dark else ""}" x="{x + CELL_PX / 2:g}" y="{y + CELL_PX - 4}" '
                f'text-anchor="middle" font-size="11" fill="{"#ffffff" if dark else "#1f2328"}" aria-hidden="true">'
                f"{_e(OUTCOME_SYMBOLS.get(outcome, '·'))}</text>")
        if cell_link is not None and row.first_day is not None:
            when = row.first_day + timedelta(days=day - 1)
            cell = (f'<a class="cell-link" href="{_e(cell_link(row.participant_id, when))}" '
                    f'aria-label="{pid} day {day} ({when.isoformat()}): {_e(word)}">{cell}</a>')
        parts.append(cell)
    return parts


def heatmap_legend(outcomes: Sequence[str] = CELL_OUTCOMES) -> str:
    """A swatch and a word for each outcome, in the heatmap's order (best first), three to a row:
    narrow enough for a phone's screen, where it would otherwise be cut off or shrunk unreadable."""
    step, per_row, row_px = 115, 3, 20
    width = step * min(per_row, len(outcomes))
    height = row_px * max(1, -(-len(outcomes) // per_row))
    parts = [f'<svg class="legend" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="legend-title">',
             '<title id="legend-title">Legend: what each colour and symbol means</title>']
    for index, outcome in enumerate(outcomes):
        x, y = (index % per_row) * step, (index // per_row) * row_px
        symbol = OUTCOME_SYMBOLS.get(outcome, "·")
        parts.append(f'<rect data-outcome="{_e(outcome)}" x="{x}" y="{y + 3}" width="{CELL_PX}" height="{CELL_PX}" '
                     f'rx="2" fill="{OUTCOME_COLOURS.get(outcome, "#ffffff")}" stroke="#d0d7de" stroke-width="0.5"/>'
                     f'<text x="{x + CELL_PX / 2:g}" y="{y + 15}" text-anchor="middle" font-size="11" '
                     f'fill="{"#ffffff" if outcome in _DARK_FILLS else "#1f2328"}">{_e(symbol)}</text>'
                     f'<text x="{x + CELL_PX + 6}" y="{y + 14}" font-size="12" fill="#1f2328">'
                     f"{_e(OUTCOME_LABELS.get(outcome, outcome))}</text>")
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(title: str, bars: Sequence[tuple[str, int]], *, colour: str = "#3b7dd8") -> str:
    """Horizontal bars, one per (label, count), scaled to the largest count, each with its count."""
    height = max(len(bars), 1) * BAR_ROW_PX + 4
    width = BAR_LABEL_PX + BAR_MAX_PX + 60
    top = max((count for _, count in bars), default=0)
    parts = [f'<svg class="bars" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img"><title>{_e(title)}</title>']
    if not bars:
        parts.append('<text x="0" y="15" font-size="12" fill="#57606a">nothing yet</text>')
    for index, (label, count) in enumerate(bars):
        y = index * BAR_ROW_PX + 2
        length = round(BAR_MAX_PX * count / top) if top else 0
        parts.append(
            f'<text x="{BAR_LABEL_PX - 8}" y="{y + 14}" text-anchor="end" font-size="12" fill="#1f2328">'
            f"{_e(label)}</text>"
            f'<rect x="{BAR_LABEL_PX}" y="{y + 2}" width="{max(length, 1) if count else 0}" height="{BAR_ROW_PX - 6}" '
            f'rx="2" fill="{_e(colour)}"><title>{_e(label)}: {count}</title></rect>'
            f'<text x="{BAR_LABEL_PX + length + 6}" y="{y + 14}" font-size="12" fill="#1f2328">{count}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _pct(share: float) -> str:
    return f"{100 * share:.0f}%"


def line_chart(title: str, days: Sequence[str], series: Mapping[str, Sequence[float | None]]) -> str:
    """A share (0 to 1) per day for each series (an arm): a line, and a titled dot on each day with a value."""
    plot_w, plot_h = WIDTH - LEFT - 12, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(days) - 1, 1)
    parts = [f'<svg class="line-chart" width="{WIDTH}" height="{HEIGHT + 20 * len(series)}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT + 20 * len(series)}" role="img"><title>{_e(title)}</title>']
    for tick in (0.0, 0.5, 1.0):
        y = TOP + plot_h * (1 - tick)
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:g}" y2="{y:g}" stroke="#d0d7de" stroke-width="1"/>'
                     f'<text x="{LEFT - 6}" y="{y + 4:g}" text-anchor="end" font-size="11" fill="#57606a">'
                     f"{_pct(tick)}</text>")
    if not days:
        parts.append(f'<text x="{LEFT + 8}" y="{TOP + plot_h / 2:g}" font-size="12" fill="#57606a">nothing yet</text>')
    for index, label in ((0, days[0]), (len(days) - 1, days[-1])) if days else ():
        parts.append(f'<text x="{LEFT + index * step:g}" y="{TOP + plot_h + 16}" font-size="11" fill="#57606a" '
                     f'text-anchor="{"start" if index == 0 else "end"}">{_e(label)}</text>')
    for number, (name, values) in enumerate(series.items()):
        colour = SERIES_COLOURS[number % len(SERIES_COLOURS)]
        points = [(LEFT + i * step, TOP + plot_h * (1 - v), days[i], v) for i, v in enumerate(values) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in points)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}" data-series="{_e(name)}">'
                     f"<title>{_e(name)} {_e(day)}: {_pct(v)}</title></circle>" for x, y, day, v in points)
        y = HEIGHT + 20 * number + 4
        parts.append(f'<rect x="{LEFT}" y="{y}" width="14" height="4" fill="{colour}"/>'
                     f'<text x="{LEFT + 20}" y="{y + 6}" font-size="12" fill="#1f2328">{_e(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def share_bars(title: str, bars: Sequence[tuple[str, float | None, str]], *, colour: str = "#3b7dd8") -> str:
    """Horizontal bars of shares (0 to 1) against a full-width 100 %, each followed by its words (``12 of 16``)."""
    height = max(len(bars), 1) * BAR_ROW_PX + 4
    width = SHARE_LABEL_PX + SHARE_MAX_PX + 150
    parts = [f'<svg class="bars" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">'
             f"<title>{_e(title)}</title>"]
    if not bars:
        parts.append('<text x="0" y="15" font-size="12" fill="#57606a">nothing yet</text>')
    for index, (label, share, words) in enumerate(bars):
        y = index * BAR_ROW_PX + 2
        length = round(SHARE_MAX_PX * share) if share else 0
        said = f"{_pct(share)} ({words})" if share is not None else "none yet"
        box = f'x="{SHARE_LABEL_PX}" y="{y + 2}" height="{BAR_ROW_PX - 6}" rx="2"'
        parts.append(
            f'<text x="{SHARE_LABEL_PX - 8}" y="{y + 14}" text-anchor="end" font-size="12" fill="#1f2328">'
            f"{_e(label)}</text>"
            f'<rect {box} width="{SHARE_MAX_PX}" fill="#eef0f3"/>'
            f'<rect {box} width="{length}" fill="{_e(colour)}">'
            f"<title>{_e(label)}: {_e(said)}</title></rect>"
            f'<text x="{SHARE_LABEL_PX + SHARE_MAX_PX + 6}" y="{y + 14}" font-size="12" fill="#1f2328">'
            f"{_e(said)}</text>")
    parts.append("</svg>")
    return "".join(parts)
