"""A micro-randomised trial simulated through the real service, analysed from its export alone.

Forty participants, ten study days, each morning's decision point sends a prompt with
probability 0.5, and the end-of-day self-report asks every evening whether they did their habit.
The simulated participants carry a planted effect: a prompt they received raises the chance of
"yes" from 0.25 to 0.65. The model is down for two whole days, so on those days no drawn prompt
can be written. Read back from ``decisions.csv``: the effect of the drawn action on the
self-report is the planted one (diluted by the prompts the outage cost) within its standard
error, every day of every participant was asked, and whether a day's answer is missing does not
depend on the action drawn.
"""

from __future__ import annotations

import csv
import math
import random
from collections import Counter, defaultdict
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from promptpipe.export.files import export_study
from promptpipe.study.report.reading import study_report
from promptpipe.study.report.text import format_report
from promptpipe.study.rules.protocol import SELF_REPORT_OPTIONS, SELF_REPORT_QUESTION
from promptpipe.transport.base import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, QUIET, at
from tests.study_helpers import enroll_walkers, with_study

STUDY = """
name = "Simulated evening walks"
length_days = 10

[quiet_hours]
start = "22:30"
end = "07:00"

[decision]
actions = ["send", "no_send"]
p = 0.5

[self_report]
time = "20:00"
window = "3h"
"""
PEOPLE, DAYS = 40, 10
TORONTO = ZoneInfo("America/Toronto")
DAY_ONE = date(2026, 1, 6)
OUTAGE_DAYS = (3, 7)
BASE, EFFECT, ANSWERS = 0.25, 0.40, 0.85
"""P(yes) without a prompt that day, what a received prompt adds, P(answering at all)."""
YES, NO = SELF_REPORT_OPTIONS
MOMENTS = (time(7), time(8, 55), time(12), time(20, 1), time(22), time(23, 30))
"""Where the simulation looks each day: the prompts (08:50), a model retrying, the question
(20:00), the answers, its end (23:00)."""
SEED = "5eed" * 16
"""A fixed secret seed (the draws still differ from run to run: they are keyed by participant ids,
which are random)."""
Z = 3.5
"""How many standard errors an estimate may stray: a run by chance fails about once in 2,000,
while the bias this test was written against (no question on the days the model was down and a
prompt was drawn) shows as a difference of about 4.5 of them."""


class Participants:
    """How the simulated people answer the evening question: with a planted effect of a prompt
    received that day, whatever was drawn; some tap, some type."""

    def __init__(self, transport: MemoryTransport) -> None:
        self.transport, self.seen = transport, 0
        self.prompted: set[tuple[str, date]] = set()
        self.rng = random.Random(20261126)

    async def answer_new_messages(self, today: date) -> None:
        """What came since the last look (the clock moves an hour at a time: it came today)."""
        new, self.seen = self.transport.sent[self.seen:], len(self.transport.sent)
        self.prompted |= {(item.to.phone, today) for item in new if item.text == NUDGE}
        for item in new:
            if item.kind != "poll" or item.text != SELF_REPORT_QUESTION or self.rng.random() >= ANSWERS:
                continue
            who = item.to.phone
            did = self.rng.random() < BASE + (EFFECT if (who, today) in self.prompted else 0.0)
            if int(who[-2:]) % 4 == 0:  # a quarter of them type their answer
                await self.transport.inject(who, "yes" if did else "no")
            else:
                await self.transport.inject(who, "", vote=PollVote(item.message_id,
                                                                   (poll_option_hash(YES if did else NO),)))


def difference(rows: list[dict[str, str]], value: str, column: str) -> tuple[float, float]:
    """send minus no_send in the share of rows whose ``column`` is ``value``, and its standard error."""
    shares, sizes = {}, {}
    for action in ("send", "no_send"):
        group = [row for row in rows if row["action"] == action]
        sizes[action] = len(group)
        shares[action] = sum(row[column] == value for row in group) / len(group)
    error = math.sqrt(sum(shares[a] * (1 - shares[a]) / sizes[a] for a in shares))
    return shares["send"] - shares["no_send"], error


@pytest.mark.long
async def test_the_planted_effect_comes_back_from_the_export_and_missingness_does_not_follow_the_action(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **{**QUIET, **with_study(STUDY), "STUDY_SEED": SEED})
    if "postgresql" in app.settings.database_url:
        pytest.skip("the flow is the same on both databases: SQLite keeps the run short")
    await enroll_walkers(app, fake_openai, ["America/Toronto"] * PEOPLE)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    people = Participants(transport)
    moments = [datetime.combine(DAY_ONE + timedelta(days=day), moment, TORONTO)
               for day in range(DAYS + 1) for moment in MOMENTS]  # a day more: an intake may finish late
    down = False
    for now in moments:
        number = (now.date() - DAY_ONE).days + 1
        if (number in OUTAGE_DAYS) != down:
            down = not down
            fake_openai.reset()
            if down:
                fake_openai.fail(503, message="model down", match="scheduled daily nudge", repeat=True)
            else:
                fake_openai.always(NUDGE, match="scheduled daily nudge")
        await at(app, now)
        await people.answer_new_messages(now.date())
        await app.run_until_idle()

    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        rows = [row for row in csv.DictReader(stream) if row["study_day"] and 1 <= int(row["study_day"]) <= DAYS]
    assert len(rows) == PEOPLE * DAYS, Counter(row["study_day"] for row in rows)
    by_day: dict[int, set[str]] = defaultdict(set)
    for row in rows:
        by_day[int(row["study_day"])].add(row["not_sent_reason"])
    # the outage cost the drawn prompts: none went out after that day's 20:00 question
    assert all("after_outcome_question" in by_day[day] for day in OUTAGE_DAYS)
    assert {row["self_report_status"] for row in rows} <= {"answered", "expired"}  # every day was asked

    answered = [row for row in rows if row["self_report"] in ("yes", "no")]
    effect, error = difference(answered, "yes", "self_report")
    sends = [row for row in rows if row["action"] == "send"]
    planted = EFFECT * sum(row["prompt_sent"] == "1" for row in sends) / len(sends)  # what the drawn action did
    assert abs(effect - planted) < Z * error, (effect, planted, error)
    assert effect > 2 * error  # and it is there to be found

    missing, missing_error = difference(rows, "answered", "self_report_status")
    assert abs(missing) < Z * missing_error, (missing, missing_error)

    # the study lead sees the same in the report, without an export
    report = await study_report(app.db, app.settings.study)
    shares = report.self_report_by_action
    assert shares is not None and set(shares) == {"send", "no_send"}
    assert shares["send"].share is not None and shares["no_send"].share is not None
    assert shares["send"].points + shares["no_send"].points == sum(row["available"] == "true" for row in rows)
    assert abs(shares["send"].share - shares["no_send"].share) < Z * missing_error
    own = report.questionnaires["self_report"]
    assert own.completed == sum(row["self_report_status"] == "answered" for row in rows) and own.not_sent == 0
    assert "Self-report answered at available decision points, by drawn action: no_send" in format_report(report)
