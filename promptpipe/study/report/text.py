"""The study report as lines for a terminal (``promptpipe-admin report``)."""

from __future__ import annotations

from collections.abc import Sequence

from promptpipe.domain.text import for_terminal
from promptpipe.study.report.counts import StudyReport

__all__ = ["format_report"]


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=False)]
    return [indent + "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
            for line in (header, *rows)]


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{for_terminal(name)} {count}" for name, count in counts.items()) or "none"


def _header_lines(report: StudyReport) -> list[str]:
    study, people, days = report.study, report.participants, report.study_days
    name = (f"{for_terminal(study.name)} (protocol {(study.hash or '')[:12]}…)" if study.name
            else "(no study file: one arm, no randomisation)")
    lines = [f"Study: {name}", f"Participants: {people.total} ({_counts(people.by_status)})",
             f"  by arm: {_counts(people.by_arm)}"]
    if days.with_day_one:
        of = f" of {days.length_days}" if days.length_days else ""
        lines.append(f"Study days: {days.with_day_one} participant(s) with a day one ({days.without_day_one} "
                     f"without); day reached: min {days.min}, median {days.median:g}, max {days.max}{of}; "
                     f"completed {days.completed}")
    else:
        lines.append(f"Study days: nobody has a day one yet; completed {days.completed}")
    return lines


def _prompt_lines(report: StudyReport) -> list[str]:
    rows = []
    for arm, p in report.prompts.items():
        delivered = (f"{p.delivered} ({_pct(p.delivered, p.sent)})" if p.receipts_expected or not p.sent
                     else "n/a (no receipts)")
        answered = f"{p.answered} ({_pct(p.answered, p.sent)})"
        rows.append([for_terminal(arm), str(p.sent), delivered, answered])
    return ["Prompts (delivered: a receipt for the prompt itself; answered: a vote or a reply):",
            *_table(["ARM", "SENT", "DELIVERED", "ANSWERED"], rows)]


def _decision_lines(report: StudyReport) -> list[str]:
    d = report.decisions
    if not d.total:
        return ["Decision points: none yet"]
    lines = [f"Decision points: {d.total}, available {d.available} ({_pct(d.available, d.total)})",
             f"  unavailable: {_counts(d.unavailable_reasons)}",
             "  actions drawn at available decision points, against the design:"]
    rows = []
    for arm, data in d.by_arm.items():
        for index, (action, a) in enumerate(data.actions.items()):
            expected = a.expected_range
            rows.append([for_terminal(arm) if index == 0 else "", str(data.available) if index == 0 else "",
                         action, str(a.count), _pct(a.count, data.available),
                         "-" if a.designed is None else f"{100 * a.designed:.0f}%",
                         "-" if expected is None or not data.available
                         else f"{100 * expected[0]:.0f}–{100 * expected[1]:.0f}%"])
    return lines + _table(["ARM", "AVAILABLE", "ACTION", "COUNT", "SHARE", "DESIGNED", "95% RANGE"], rows, "    ")


def _seed_lines(report: StudyReport) -> list[str]:
    seed = report.seed
    if seed.warning is not None:
        return [f"Seed: WARNING: {seed.warning}"]
    if seed.kept == "outside":
        return ["Seed: kept outside the database (the database holds only its fingerprint)"]
    return ["Seed: none made yet"] if report.study.name else []


def _questionnaire_lines(report: StudyReport) -> list[str]:
    lines = []
    if report.self_report_by_action is not None:
        shares = report.self_report_by_action
        lines.append("Self-report answered at available decision points, by drawn action: " + (", ".join(
            f"{for_terminal(action)} {a.answered} of {a.points} ({_pct(a.answered, a.points)})"
            for action, a in shares.items()) or "none yet")
            + (" (if these differ, whether the outcome is missing depends on the action)" if len(shares) > 1 else ""))
    if report.questionnaires:
        rows = [[for_terminal(qid), str(q.sent), f"{q.completed} ({_pct(q.completed, q.sent)})", str(q.partial),
                 str(q.expired), str(q.stopped), str(q.not_sent)] for qid, q in report.questionnaires.items()]
        lines += ["Questionnaires:", *_table(["QUESTIONNAIRE", "SENT", "COMPLETED", "PARTIAL", "EXPIRED", "STOPPED",
                                              "NOT SENT"], rows)]
    return lines


def format_report(report: StudyReport) -> str:
    """The report as lines for a terminal (arm and study names shown with control characters escaped)."""
    return "\n".join([*_header_lines(report), *_prompt_lines(report), *_decision_lines(report),
                      *_questionnaire_lines(report), *_seed_lines(report)])
