"""The report page's charts, drawn on the server as inline SVG like :mod:`promptpipe.web.charts`:
shares over days, one line per arm, and shares as horizontal bars. Every text from the study is
escaped here; colours are presentation attributes (the pages allow no inline ``style``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from promptpipe.web.charts import _e

__all__ = ["SERIES_COLOURS", "line_chart", "share_bars"]

SERIES_COLOURS = ("#3b7dd8", "#c4551a", "#1a7f37", "#6e4a9e", "#8a6d00", "#b0306f")
"""One colour per arm, in the report's order of arms (told apart by the legend's words too)."""
WIDTH, HEIGHT, LEFT, TOP, BOTTOM = 640, 220, 44, 12, 40
BAR_LABEL_PX, BAR_MAX_PX, BAR_ROW_PX = 170, 260, 22


def _pct(share: float) -> str:
    return f"{100 * share:.0f}%"


def line_chart(title: str, days: Sequence[str], series: Mapping[str, Sequence[float | None]]) -> str:
    """A share (0 to 1) per day for each series (an arm): a line through its days with a value,
    a dot with a hover title on each, the first and last day labelled under the axis."""
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
    """Horizontal bars of shares (0 to 1) against a full-width 100 %, each labelled and followed
    by its words (e.g. ``12 of 16``); a bar with no share says "none yet"."""
    height = max(len(bars), 1) * BAR_ROW_PX + 4
    width = BAR_LABEL_PX + BAR_MAX_PX + 150
    parts = [f'<svg class="bars" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">'
             f"<title>{_e(title)}</title>"]
    if not bars:
        parts.append('<text x="0" y="15" font-size="12" fill="#57606a">nothing yet</text>')
    for index, (label, share, words) in enumerate(bars):
        y = index * BAR_ROW_PX + 2
        length = round(BAR_MAX_PX * share) if share else 0
        said = f"{_pct(share)} ({words})" if share is not None else "none yet"
        box = f'x="{BAR_LABEL_PX}" y="{y + 2}" height="{BAR_ROW_PX - 6}" rx="2"'
        parts.append(
            f'<text x="{BAR_LABEL_PX - 8}" y="{y + 14}" text-anchor="end" font-size="12" fill="#1f2328">'
            f"{_e(label)}</text>"
            f'<rect {box} width="{BAR_MAX_PX}" fill="#eef0f3"/>'
            f'<rect {box} width="{length}" fill="{_e(colour)}">'
            f"<title>{_e(label)}: {_e(said)}</title></rect>"
            f'<text x="{BAR_LABEL_PX + BAR_MAX_PX + 6}" y="{y + 14}" font-size="12" fill="#1f2328">{_e(said)}</text>')
    parts.append("</svg>")
    return "".join(parts)
