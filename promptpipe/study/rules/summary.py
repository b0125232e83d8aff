"""A study protocol in words (checked before the study starts) and as JSON-ready values (the export's)."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction
from typing import Any

from promptpipe.domain.localtime import format_hhmm
from promptpipe.domain.setting_values import duration_words
from promptpipe.questionnaires.rules.definition import Questionnaire, QuestionnaireItem
from promptpipe.study.rules import protocol
from promptpipe.study.rules.protocol import FIXED_STYLE, Arm, Study

__all__ = ["SEED_IN_DATABASE_WARNING", "block_words", "describe", "study_as_dict"]

SEED_IN_DATABASE_WARNING = ("the randomisation seed is kept in the database: anyone who can read the database can "
                            "predict future arms and draws")
"""What ``study check`` and the study report say when the seed is kept in the database."""


def _setting_words(value: Any) -> str:
    """A duration as ``5h``, ``1h30m`` or ``90s``; a switch (and a zero duration) as ``on`` or ``off``."""
    if not isinstance(value, timedelta):
        return "on" if value else "off"
    return duration_words(value) if value else "off"


def _arm_words(study: Study, arm: Arm) -> str:
    own = "its own" if arm.fixed_prompts else "the study's"
    style = (f"fixed prompts ({len(study.fixed_texts(arm))} of {own} texts in turn)"
             if arm.prompt_style == FIXED_STYLE else "personalised prompts")
    settings = ", ".join(f"{key} {_setting_words(value)}" for key, value in arm.settings)
    return f"  {arm.name}: {style}; {settings or 'global settings'}"


def block_words(study: Study, *, unblind: bool) -> str:
    """The block sizes in words, or that they are concealed (whoever enrolls must not learn where a block ends)."""
    if not unblind:
        return "blocks of concealed size (shown with --unblind)"
    sizes = study.allocation.block_sizes
    if len(sizes) == 1:
        return f"blocks of {sizes[0]}"
    return "blocks of " + ", ".join(map(str, sizes[:-1])) + f" or {sizes[-1]} (each block's size drawn)"


def describe(study: Study, *, unblind: bool = False) -> str:
    """The protocol in plain lines (the block sizes only with ``unblind``)."""
    shares = [(arm.name, Fraction(arm.ratio, sum(other.ratio for other in study.arms))) for arm in study.arms]
    lines = [f"Study: {study.name or '(no study file)'}",
             "Length: " + (f"{study.length_days} days" if study.length_days else "open-ended"),
             f"Baseline: the first {study.baseline_days} day(s), without prompts" if study.baseline_days
             else "Baseline: none",
             "Day one: the participant's first local day after "
             + ("intake is complete" if study.day_one == protocol.AFTER_INTAKE else "enrollment"),
             "Quiet hours: " + (f"{study.quiet_hours.describe()}, nothing scheduled is sent"
                                if study.quiet_hours else "none"),
             "Arms: " + ", ".join(f"{name} {share.numerator}/{share.denominator}" for name, share in shares)
             + (" (everyone)" if len(shares) == 1 else ""),
             *(_arm_words(study, arm) for arm in study.arms)]
    strata = "; ".join(f"{field} ({', '.join(values)})" for field, values in study.allocation.strata)
    lines.append(f"Allocation: {block_words(study, unblind=unblind)}"
                 + (f" within each stratum of {strata}" if strata else ", no strata"))
    report = study.self_report
    lines.append("Self-report: none" if report is None else
                 f"Self-report: every study day at {format_hhmm(report.at)} their time, answers count for "
                 f"{_setting_words(report.window)}: {report.question} (a decision point at or after "
                 f"{format_hhmm(report.at)} is measured by the next day's question; on the last study day, by "
                 "none)")
    lines.append("Questionnaires: " + (str(len(study.questionnaires)) if study.questionnaires else "none"))
    lines.extend(_questionnaire_words(q) for q in study.questionnaires)
    lines.append(_template_words(study))
    lines.append("Ordinary words: " + (", ".join(sorted(study.ordinary_words)) + " (a stop phrase with one of them "
                 "gets a confirming question instead of an opt-out)" if study.ordinary_words else "none"))
    rule = study.decision
    lines.append("Decision: no randomisation: every available prompt is sent" if rule is None else
                 f"Decision: each daily prompt time: {rule.actions[0]} with probability {round(rule.p, 6):g}, "
                 f"{rule.actions[1]} {round(1 - rule.p, 6):g}; unavailable when "
                 + (", ".join(rule.unavailable_when) or "never (only outside the study days)"))
    lines.append(f"Seed: kept in the database (seed_in_database = true): {SEED_IN_DATABASE_WARNING}"
                 if study.seed_in_database else "Seed: kept outside the database (a 0600 file in the state directory, "
                 "or PROMPTPIPE_STUDY_SEED_FILE); the database keeps its fingerprint")
    return "\n".join(lines)


def _template_words(study: Study) -> str:
    """Which kinds go as a template outside the Cloud API's 24-hour service window."""
    if not study.whatsapp_templates:
        return ("WhatsApp templates: none (with the Cloud API, nothing can reach a participant who has not written "
                "in the last 24 hours)")
    named = ", ".join(f"{kind} as {template.name} ({template.language})" for kind, template in study.whatsapp_templates)
    return (f"WhatsApp templates (Cloud API, outside the 24-hour window): {named}; any other kind is sent only "
            "inside the window")


def _questionnaire_words(q: Questionnaire) -> str:
    reminders = f"{q.reminders} reminder{'s' if q.reminders != 1 else ''}" if q.reminders else "no reminders"
    seen = "the coach sees the answers" if q.coach_sees_answers else "the coach does not see the answers"
    return (f"  {q.id} ({len(q.items)} item{'s' if len(q.items) != 1 else ''}): {q.send.describe()}; open "
            f"for {duration_words(q.open_for)}, {reminders}; {seen}")


def _item_dict(item: QuestionnaireItem) -> dict[str, Any]:
    return {"id": item.id, "text": item.text, "type": item.type.value, "required": item.required,
            "options": [{"label": option.label, "code": option.code} for option in item.options],
            "min": item.low, "max": item.high, "min_label": item.low_label, "max_label": item.high_label,
            "asked_as": "poll" if item.is_poll else "typed", "unit": item.unit, "decimals": item.decimals,
            "max_chars": item.max_chars or None,
            "show_if": None if item.show_if is None else {"item": item.show_if.item,
                                                          "codes": list(item.show_if.codes)}}


def _questionnaire_dict(q: Questionnaire) -> dict[str, Any]:
    send = q.send
    return {
        "id": q.id, "title": q.title, "intro": q.intro, "closing": q.closing,
        "send": {"event": send.event.value if send.event else None, "delay": _seconds(send.delay),
                 "study_days": None if send.study_days is None else list(send.study_days),
                 "at": format_hhmm(send.at) if send.at else None,
                 "between": [format_hhmm(moment) for moment in send.between] if send.between else None,
                 "min_gap": _seconds(send.min_gap) if send.between else None},
        "open_for": _seconds(q.open_for), "reminders": q.reminders, "coach_sees_answers": q.coach_sees_answers,
        "items": [_item_dict(item) for item in q.items],
    }


def _seconds(value: Any) -> Any:
    """A duration in seconds (whole ones as an int); anything else as it is."""
    if not isinstance(value, timedelta):
        return value
    return value // timedelta(seconds=1) if not value.microseconds else value.total_seconds()


def study_as_dict(study: Study) -> dict[str, Any]:
    """The protocol as JSON-ready values (times "HH:MM", durations in seconds), for the export."""
    quiet, rule = study.quiet_hours, study.decision
    return {
        "name": study.name, "hash": study.hash, "length_days": study.length_days,
        "baseline_days": study.baseline_days, "day_one": study.day_one, "closing_message": study.closing_message,
        "fixed_prompts": list(study.fixed_prompts),
        "quiet_hours": {"start": format_hhmm(quiet.start), "end": format_hhmm(quiet.end)} if quiet else None,
        "arms": [{"name": arm.name, "ratio": arm.ratio, "prompt_style": arm.prompt_style,
                  "fixed_prompts": list(arm.fixed_prompts),
                  "settings": {key: _seconds(value) for key, value in arm.settings}} for arm in study.arms],
        "allocation": {"block_sizes": list(study.allocation.block_sizes),
                       "strata": {field: list(values) for field, values in study.allocation.strata}},
        "self_report": None if study.self_report is None else {
            "time": format_hhmm(study.self_report.at), "window": _seconds(study.self_report.window),
            "question": study.self_report.question},
        "decision": None if rule is None else {"actions": list(rule.actions), "p": rule.p,
                                               "unavailable_when": list(rule.unavailable_when)},
        "questionnaires": [_questionnaire_dict(q) for q in study.questionnaires],
        "ordinary_words": sorted(study.ordinary_words),
    }
