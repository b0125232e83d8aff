"""The dashboard's pure parts, without a server: the SVG charts, times in two zones, where a
sign-in may lead back to, and the filter form."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from promptpipe.domain.adherence import CELL_OUTCOMES
from promptpipe.web.charts import OUTCOME_COLOURS, OUTCOME_LABELS, HeatmapRow, bar_chart, heatmap, heatmap_legend
from promptpipe.web.pages._lists import Pager, read_filter
from promptpipe.web.pages._times import from_label, time_label
from promptpipe.web.pages.signin import safe_next

TORONTO, BERLIN = ZoneInfo("America/Toronto"), ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)


def test_every_outcome_has_a_colour_and_a_label() -> None:
    assert set(OUTCOME_COLOURS) == set(OUTCOME_LABELS) == set(CELL_OUTCOMES)
    assert len(set(OUTCOME_COLOURS.values())) == len(CELL_OUTCOMES)


def test_the_heatmap_has_a_cell_per_day_with_its_outcome_and_title() -> None:
    svg = heatmap([HeatmapRow("p_00000000000000aa", ["done", "not_this_time", "no_prompt"]),
                   HeatmapRow("p_00000000000000bb", ["no_reply"])], 3, link=lambda pid: f"/participants/{pid}")
    cells = re.findall(r'data-outcome="(\w+)" data-day="(\d)".*?<title>([^<]+)</title>', svg)
    assert cells == [("done", "1", "p_00000000000000aa day 1: done"),
                     ("not_this_time", "2", "p_00000000000000aa day 2: not this time"),
                     ("no_prompt", "3", "p_00000000000000aa day 3: no prompt"),
                     ("no_reply", "1", "p_00000000000000bb day 1: no reply")]
    assert '<a href="/participants/p_00000000000000bb">' in svg
    assert f'fill="{OUTCOME_COLOURS["done"]}"' in svg


def test_charts_escape_what_they_are_given() -> None:
    evil = '<script>alert("x")</script>&'
    for svg in (heatmap([HeatmapRow(evil, [evil])], 1, link=lambda pid: pid), bar_chart(evil, [(evil, 3)]),
                heatmap_legend([evil])):
        assert "<script" not in svg and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in svg


def test_bars_are_scaled_to_the_largest_count() -> None:
    svg = bar_chart("by status", [("active", 40), ("paused", 10), ("withdrawn", 0)])
    widths = [int(w) for w in re.findall(r'<rect x="\d+" y="\d+" width="(\d+)"', svg)]
    assert widths[0] == 4 * widths[1] and widths[2] == 0
    assert "nothing yet" in bar_chart("empty", [])


def test_the_day_header_marks_day_one_every_week_and_the_last_day() -> None:
    def marks(days: int) -> list[str]:
        return re.findall(r'class="heatmap-day" x="[\d.]+" y="\d+" text-anchor="middle"[^>]*>(\d+)<', heatmap([], days))

    assert marks(1) == ["1"]
    assert marks(3) == ["1", "2", "3"]  # a short row: every day
    assert marks(16) == ["1", "7", "14", "16"]
    assert marks(15) == ["1", "7", "14"]  # 15 would crowd 14


@pytest.mark.parametrize(("instant", "participant", "researcher"), [
    (datetime(2026, 3, 10, 14, 5, tzinfo=timezone.utc), "10:05", "15:05"),  # today in both zones
    (datetime(2026, 3, 10, 3, 30, tzinfo=timezone.utc), "Mon 9 Mar 23:30", "04:30"),  # yesterday in Toronto
    (datetime(2025, 12, 31, 23, 0, tzinfo=timezone.utc), "31 Dec 2025 18:00", "Thu 1 Jan 00:00"),
])
def test_times_show_in_both_zones_with_the_date_when_it_is_not_today(
    instant: datetime, participant: str, researcher: str,
) -> None:
    label = time_label(instant.isoformat(), TORONTO, BERLIN, NOW)
    assert label is not None and (label.participant, label.researcher) == (participant, researcher)
    assert str(label) == (f"{participant} participant time (America/Toronto) · {researcher} your time "
                          "(Europe/Berlin)")
    assert time_label(None, TORONTO, BERLIN, NOW) is None


def test_a_schedule_label_reads_back_as_its_instant() -> None:
    assert from_label("Tuesday 2026-03-10 08:50 (America/Toronto)", TORONTO) == datetime(2026, 3, 10, 8, 50,
                                                                                          tzinfo=TORONTO)
    assert from_label("soon", TORONTO) is None and from_label(None, TORONTO) is None


@pytest.mark.parametrize(("raw", "goes_to"), [
    ("/participants?status=paused", "/participants?status=paused"), ("/participants/p_0123456789abcdef",
                                                                     "/participants/p_0123456789abcdef"),
    ("", "/"), ("https://example.org/", "/"), ("//example.org", "/"), ("/\\example.org", "/"),
    ("javascript:alert(1)", "/"), ("/login?next=/", "/"), ("/ok\r\nSet-Cookie: x=1", "/"), ("x" * 10, "/"),
])
def test_a_sign_in_only_leads_back_to_a_page_of_this_site(raw: str, goes_to: str) -> None:
    assert safe_next(raw) == goes_to


def test_a_filter_keeps_what_is_right_and_explains_what_is_wrong() -> None:
    form = read_filter("paused", "NAPPING", " coach ", "soon")
    assert (form.flt.status, form.flt.stage, form.flt.arm, form.flt.silent_days) == ("paused", None, "coach", None)
    assert form.query == {"status": "paused", "arm": "coach"}
    assert len(form.problems) == 2 and form.problems[0].startswith("silent days:")
    assert read_filter("", "", "", "3").flt.silent_days == 3
    assert read_filter("", "", "", "0").problems == ["silent days: give a whole number of days from 1 to 3650"]


def test_the_pager_links_the_pages_around_this_one() -> None:
    pager = Pager.build(2, 120, lambda n: f"?page={n}")
    assert (pager.pages, pager.first_item, pager.last_item, pager.prev_url, pager.next_url) == (
        3, 51, 100, "?page=1", "?page=3")
    last = Pager.build(3, 120, lambda n: f"?page={n}")
    assert (last.next_url, last.first_item, last.last_item) == (None, 101, 120)
    assert Pager.build(1, 0, str).pages == 1
