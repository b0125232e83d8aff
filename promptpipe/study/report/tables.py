"""The study report as tables: a page and its CSV are made from the same one, so they cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from promptpipe.research.monitoring import MAX_STATS_DAYS, DayStats, prompt_stats
from promptpipe.storage.db import Database
from promptpipe.study.report.counts import StudyReport
from promptpipe.study.report.reading import study_report
from promptpipe.study.rules.protocol import DEFAULT_ARM, Study

__all__ = ["Cell", "ReportTable", "ReportTables", "report_tables"]

Cell = int | float | str | None
"""A count, a share (0 to 1), a name, or nothing to show."""


@dataclass(frozen=True)
class ReportTable:
    key: str
    """Its name in the page's anchors and in ``/report/{key}.csv``."""
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    shares: frozenset[int] = frozenset()
    """The columns (by index) that hold a share from 0 to 1 (a page shows them as percentages)."""


@dataclass(frozen=True)
class ReportTables:
    report: StudyReport
    tables: dict[str, ReportTable]
    adherence_days: list[DayStats]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _participants(report: StudyReport) -> list[ReportTable]:
    people, days = report.participants, report.study_days
    return [
        ReportTable("participants-by-status", "Participants by status", ("Status", "Participants"),
                    tuple((status, count) for status, count in people.by_status.items())),
        ReportTable("participants-by-arm", "Participants by arm", ("Arm", "Participants"),
                    tuple((arm, count) for arm, count in people.by_arm.items())),
        ReportTable("study-days", "Study days reached", ("Measure", "Value"), (
            ("participants with a day one", days.with_day_one),
            ("participants without a day one", days.without_day_one),
            ("lowest day reached", days.min), ("median day reached", days.median), ("highest day reached", days.max),
            ("days in the study", days.length_days), ("completed the study", days.completed))),
    ]


def _prompts(report: StudyReport) -> ReportTable:
    """The delivered share is left empty where no prompt could show a receipt (as the terminal's n/a)."""
    rows = tuple((arm, p.sent, p.delivered, _share(p.delivered, p.receipts_expected and p.sent), p.answered,
                  _share(p.answered, p.sent), p.receipts_expected) for arm, p in report.prompts.items())
    return ReportTable("prompts", "Daily prompts by arm",
                       ("Arm", "Sent", "Delivered", "Delivered share", "Answered", "Answered share",
                        "Could show a receipt"), rows, frozenset({3, 5}))


def _adherence(days: list[DayStats]) -> ReportTable:
    rows = tuple((day.date, day.arm or DEFAULT_ARM.name, day.sent, day.delivered, day.read, day.answered, day.done,
                  _share(day.answered, day.sent), _share(day.done, day.sent)) for day in days)
    return ReportTable("adherence", "Adherence by day and arm",
                       ("Day", "Arm", "Sent", "Delivered", "Read", "Answered", "Done", "Answered share", "Done share"),
                       rows, frozenset({7, 8}))


def _decisions(report: StudyReport) -> list[ReportTable]:
    d = report.decisions
    rows: list[tuple[Cell, ...]] = [("available", d.available, _share(d.available, d.total))]
    rows += [(f"unavailable: {reason.replace('_', ' ')}", count, _share(count, d.total))
             for reason, count in d.unavailable_reasons.items()]
    by_arm = tuple((arm, a.total, a.available, _share(a.available, a.total)) for arm, a in d.by_arm.items())
    actions = tuple((arm, a.available, action, draw.count, draw.share, draw.designed,
                     *(draw.expected_range if draw.expected_range is not None and a.available else (None, None)))
                    for arm, a in d.by_arm.items() for action, draw in a.actions.items())
    return [
        ReportTable("decisions", "Decision points by availability", ("Availability", "Decision points", "Share"),
                    tuple(rows) if d.total else (), frozenset({2})),
        ReportTable("decisions-by-arm", "Decision points by arm",
                    ("Arm", "Decision points", "Available", "Available share"), by_arm, frozenset({3})),
        ReportTable("actions", "Actions drawn at available decision points, against the design",
                    ("Arm", "Available", "Action", "Drawn", "Share", "Designed", "95% range from", "95% range to"),
                    actions, frozenset({4, 5, 6, 7})),
    ]


def _questionnaires(report: StudyReport) -> list[ReportTable]:
    tables = [ReportTable(
        "questionnaires", "Questionnaires by outcome",
        ("Questionnaire", "Sent", "Completed", "Partly answered", "Expired", "Stopped", "Not sent", "Completion rate"),
        tuple((qid, q.sent, q.completed, q.partial, q.expired, q.stopped, q.not_sent, q.completion_rate)
              for qid, q in report.questionnaires.items()), frozenset({7}))]
    if report.self_report_by_action is not None:
        tables.append(ReportTable(
            "self-report", "Self-report answered at available decision points, by drawn action",
            ("Drawn action", "Available points", "Self-report answered", "Share"),
            tuple((action, a.points, a.answered, a.share) for action, a in report.self_report_by_action.items()),
            frozenset({3})))
    return tables


async def report_tables(db: Database, study: Study, *, now: datetime, today: date) -> ReportTables:
    """The report and adherence up to ``today`` (a day more for zones ahead), as tables in the page's order."""
    report = await study_report(db, study, now=now)
    last = today + timedelta(days=1)
    stats = await prompt_stats(db, first_day=last - timedelta(days=MAX_STATS_DAYS - 1), last_day=last)
    tables = [*_participants(report), _prompts(report), _adherence(stats.days), *_decisions(report),
              *_questionnaires(report)]
    return ReportTables(report, {table.key: table for table in tables}, stats.days)
