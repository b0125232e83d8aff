"""The report page of a run: one self-contained HTML file (``templates/report.html``, everything escaped since
participants' words are untrusted); this module turns the records into what the page shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from statistics import mean
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jinja2

from promptpipe.domain.messages import MessageKind
from promptpipe.evaluation import records
from promptpipe.evaluation.gates import GateResult
from promptpipe.evaluation.records import ComparisonRow, Conversation, RunResult, Score, Source, Summary, Verdict
from promptpipe.evaluation.repeats import CriterionSpread, spreads

__all__ = ["REPORT_FILE", "worst_first", "write_report"]

REPORT_FILE = "report.html"
TEMPLATES = Path(__file__).resolve().parent / "templates"
_ENVIRONMENT = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                                  undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
LOW_KAPPA = 0.4
"""Below this weighted kappa the judges' agreement is called low on the page."""
KIND_LABELS = {
    "greeting": "greeting", "prompt": "daily prompt", "habit_prompt": "daily prompt", "poll": "poll",
    "questionnaire": "questionnaire", "questionnaire_poll": "questionnaire poll", "reminder": "reminder",
    "check_in": "check-in", "command": "command reply", "safety": "safety message", "apology": "apology",
    "closing": "closing message", "researcher": "research team", "poll_vote": "poll vote", "reaction": "reaction",
    "voice": "voice note", "unreadable": "unreadable message",
}
"""How the transcript names a message's kind (plain text gets no label)."""


@dataclass(frozen=True)
class Bar:
    """One row of a horizontal bar chart, in units of 0 to 1 of its width."""

    label: str
    value: float | None
    low: float | None
    high: float | None
    text: str


@dataclass(frozen=True)
class Chart:
    title: str
    description: str
    bars: tuple[Bar, ...]
    ticks: tuple[tuple[float, str], ...]


@dataclass(frozen=True)
class Message:
    said: records.Said
    local_time: str
    kind_label: str


@dataclass(frozen=True)
class ConversationPart:
    conversation: Conversation
    failed: tuple[records.CheckResult, ...]
    scores: tuple[Score, ...]
    mean_score: float | None
    messages: tuple[Message, ...]


def worst_first(run: RunResult) -> list[Conversation]:
    """Most failed checks first, then the lowest mean score (unscored ones after the scored), then by id."""
    failed = _failed_counts(run)
    means = {conversation.id: _mean_score(run.scores, conversation.id) for conversation in run.conversations}

    def key(conversation: Conversation) -> tuple[int, float, str]:
        score = means[conversation.id]
        return -failed.get(conversation.id, 0), float("inf") if score is None else score, conversation.id
    return sorted(run.conversations, key=key)


def _failed_counts(run: RunResult) -> Counter[str]:
    return Counter(check.conversation_id for check in run.checks if check.verdict is Verdict.FAIL)


def _mean_score(scores: Sequence[Score], conversation_id: str) -> float | None:
    given = [score.score for score in scores if score.conversation_id == conversation_id and score.score is not None]
    return mean(given) if given else None


def write_report(run: RunResult, summary: Summary, directory: Path, *, comparison: records.Comparison | None = None,
                 baseline: RunResult | None = None, criteria: Sequence[tuple[str, str, str]] = (),
                 check_meanings: Mapping[str, str] | None = None, breaches: Sequence[str] | None = None,
                 gate: GateResult | None = None) -> Path:
    """Write ``directory/report.html`` and return its path. ``criteria``: the rubric's (criterion, name shown, what it
    means); ``breaches``: None without thresholds, else those not met; ``baseline``: run A of ``comparison``."""
    directory.mkdir(parents=True, exist_ok=True)
    names = {key: name for key, name, _ in criteria}
    page = _ENVIRONMENT.get_template(REPORT_FILE).render(
        run=run, summary=summary, comparison=comparison, baseline=baseline, breaches=breaches,
        gate=gate.rows if gate else (), gate_source=gate.source if gate else "",
        criteria=criteria, criterion_names=names, check_meanings=check_meanings or {},
        tokens=_tokens(run), personas=len({c.subject for c in run.conversations if c.source is Source.PERSONA}),
        cases=len({c.subject for c in run.conversations if c.source is Source.CASE}),
        spreads=spreads(run, [item.criterion for item in summary.criteria]), spread_text=_spread_text,
        run_time=_duration(run.finished_at - run.started_at), check_chart=_check_chart(summary),
        score_chart=_score_chart(summary, names), groups=_groups(run, summary), low_kappa=LOW_KAPPA,
        persona_rows=_persona_rows(run), persona_chart=_persona_chart(_persona_rows(run)),
        conversations=[_part(run, conversation) for conversation in worst_first(run)],
        differs=_differs, rate=partial(_interval_text, show=_percent), percent=_percent,
        score_text=partial(_interval_text, show="{:.2f}".format), difference_text=_difference_text, utc=_utc,
    )
    path = directory / REPORT_FILE
    path.write_text(page, encoding="utf-8")
    return path


def _tokens(run: RunResult) -> dict[str, records.TokenCount]:
    coach, players = records.TokenCount(), records.TokenCount()
    for conversation in run.conversations:
        coach, players = coach + conversation.tokens, players + conversation.player_tokens
    return {"coach": coach, "participants": players, "judges": run.judge_tokens,
            "total": coach + players + run.judge_tokens}


def _duration(span: timedelta) -> str:
    minutes, seconds = divmod(max(0, round(span.total_seconds())), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min {seconds} s"
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def _utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f} %"


def _interval_text(interval: records.Interval, show: Callable[[float], str]) -> str:
    """E.g. "87 % (80 % to 92 %)"."""
    if interval.value is None:
        return "no data"
    if interval.low is None or interval.high is None:
        return show(interval.value)
    return f"{show(interval.value)} ({show(interval.low)} to {show(interval.high)})"



def _spread_text(spread: CriterionSpread | None) -> str:
    """A score over the repeats: "4.33 ± 0.58 (4 to 5)" (mean ± sd, lowest to highest)."""
    if spread is None or spread.mean is None or spread.low is None or spread.high is None:
        return "–"
    if spread.sd is None:
        return f"{spread.mean:.2f} (one scored repeat)"
    if spread.low == spread.high:
        return f"{spread.mean:.2f} in every repeat"
    return f"{spread.mean:.2f} ± {spread.sd:.2f} ({spread.low:g} to {spread.high:g})"


def _difference_text(row: ComparisonRow) -> str:
    """B − A: percentage points for a check's pass rate, points on the 1–5 scale for a criterion."""
    scale, unit = (100, " pp") if row.what == "check" else (1, "")

    def signed(value: float) -> str:
        return f"{value * scale:+.{0 if scale == 100 else 2}f}{unit}".replace("-", "−")
    return _interval_text(row.difference, signed)


def _differs(row: ComparisonRow) -> str:
    """"" where the interval of B − A includes 0 (or is unknown), else which run is better."""
    low, high = row.difference.low, row.difference.high
    if low is not None and low > 0:
        return "B higher"
    if high is not None and high < 0:
        return "B lower"
    return ""


def _check_chart(summary: Summary) -> Chart:
    bars = tuple(Bar(rate.check, rate.rate.value, rate.rate.low, rate.rate.high, _percent(rate.rate.value))
                 for rate in summary.checks)
    return Chart("Pass rate per check", "Horizontal bars: the share of conversations each check applies to that "
                 "passed it, from 0 to 100 %; the thin line across each bar is its 95 % confidence interval.",
                 bars, tuple((step / 4, f"{step * 25} %") for step in range(5)))


_SCORE_TICKS = tuple(((point - 1) / 4, str(point)) for point in range(1, 6))


def _place(score: float | None) -> float | None:
    return None if score is None else (score - 1) / 4


def _score_chart(summary: Summary, names: Mapping[str, str]) -> Chart:
    bars = tuple(Bar(names.get(item.criterion, item.criterion), _place(item.mean.value), _place(item.mean.low),
                     _place(item.mean.high), "–" if item.mean.value is None else f"{item.mean.value:.2f}")
                 for item in summary.criteria)
    return Chart("Mean judge score per criterion", "Horizontal bars: the mean score of each rubric criterion "
                 "on the scale from 1 (poor) to 5 (excellent); the thin line across each bar is its 95 % confidence "
                 "interval.", bars, _SCORE_TICKS)


@dataclass(frozen=True)
class PersonaRow:
    name: str
    trait: str
    mean: float | None
    failed: int


def _persona_rows(run: RunResult) -> list[PersonaRow]:
    """Each simulated participant's mean score and failed checks, in file order (each repeat its own row)."""
    failed = _failed_counts(run)
    return [PersonaRow(c.label if c.repeat is None else f"{c.label}, repeat {c.repeat}", c.group,
                       _mean_score(run.scores, c.id), failed.get(c.id, 0))
            for c in run.conversations if c.source is Source.PERSONA]


def _persona_chart(rows: Sequence[PersonaRow]) -> Chart:
    bars = tuple(Bar(f"{row.name} ({row.trait}): {row.failed} failed check(s)", _place(row.mean), None, None,
                     "–" if row.mean is None else f"{row.mean:.2f}") for row in rows)
    return Chart("Mean judge score per persona", "Horizontal bars: each simulated participant's mean score over every "
                 "criterion and judging pass, from 1 (poor) to 5 (excellent), with how many checks their conversation "
                 "failed.", bars, _SCORE_TICKS)


def _groups(run: RunResult, summary: Summary) -> dict[str, list[str]]:
    """The groups of the per-group tables, in order: personas' traits and cases' groups."""
    known = {group for item in summary.criteria for group in item.by_group}
    found: dict[str, list[str]] = {Source.PERSONA.value: [], Source.CASE.value: []}
    for conversation in run.conversations:
        bucket = found[conversation.source.value]
        if conversation.group in known and conversation.group not in bucket:
            bucket.append(conversation.group)
    return found


def _part(run: RunResult, conversation: Conversation) -> ConversationPart:
    failed = tuple(check for check in run.checks
                   if check.conversation_id == conversation.id and check.verdict is Verdict.FAIL)
    scores = tuple(score for score in run.scores if score.conversation_id == conversation.id)
    try:
        zone = ZoneInfo(conversation.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    messages = tuple(Message(said, said.at.astimezone(zone).strftime("%a %d %b %Y, %H:%M %Z"),
                             KIND_LABELS.get(said.kind,
                                             "" if said.kind == MessageKind.TEXT else said.kind.replace("_", " ")))
                     for said in conversation.messages)
    return ConversationPart(conversation, failed, scores, _mean_score(run.scores, conversation.id), messages)
