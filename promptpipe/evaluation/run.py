"""A whole evaluation: every persona and hard case run (a few at once, each ``repeats`` times), checked, then judged."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from promptpipe.domain.safety import CrisisScreen
from promptpipe.errors import LLMRejected, LLMUnavailable
from promptpipe.evaluation import records
from promptpipe.evaluation.calibration import Labelled
from promptpipe.evaluation.cases import Case
from promptpipe.evaluation.checks import run_checks
from promptpipe.evaluation.conversations import RunPlan, run_case, run_persona
from promptpipe.evaluation.finding_checks import finding_checks
from promptpipe.evaluation.judge import CRITERIA, Judge
from promptpipe.evaluation.personas import Persona
from promptpipe.evaluation.records import CheckResult, Conversation, Finding, RunResult, Score, TokenCount, Verdict
from promptpipe.evaluation.repeats import pass_seed, repeat_id, repeat_seed
from promptpipe.logging import get_logger

__all__ = ["Progress", "RunOptions", "evaluate", "for_judging"]

log = get_logger("promptpipe.evaluation")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    """``concurrency`` bounds the conversations (then judge requests) under way at once; ``system_texts``,
    ``safety_text`` and ``screen`` go to :func:`~.checks.run_checks`; ``models``: the coach's and the players'."""

    label: str
    concurrency: int
    system_texts: Sequence[str] = ()
    safety_text: str | None = None
    screen: CrisisScreen | None = None
    models: tuple[str, str | None] = ("", None)
    about: Mapping[str, str] | None = None
    repeats: int = 1


@dataclass(frozen=True)
class _Job:
    name: str
    """``persona Maya``, ``case crisis-es (repeat 2 of 3)``."""
    run: Callable[[], Awaitable[Conversation]]
    repeat: int
    seed: int


def _jobs(plan: RunPlan, personas: Sequence[Persona], cases: Sequence[Case], repeats: int) -> list[_Job]:
    jobs = []
    subjects = ([(f"persona {persona.name}", functools.partial(run_persona, persona=persona, place=place))
                 for place, persona in enumerate(personas)]
                + [(f"case {case.id}", functools.partial(run_case, case=case)) for case in cases])
    for name, runner in subjects:
        for index in range(repeats):
            seeded = dataclasses.replace(plan, seed=repeat_seed(plan.seed, index))
            shown = name if repeats == 1 else f"{name} (repeat {index + 1} of {repeats})"
            jobs.append(_Job(shown, functools.partial(runner, seeded), index + 1, seeded.seed))
    return jobs


async def evaluate(plan: RunPlan, options: RunOptions, *, personas: Sequence[Persona], cases: Sequence[Case],
                   judges: Sequence[Judge], progress: Progress = lambda _: None,
                   calibration: Sequence[Labelled] = ()) -> RunResult:
    """Run, check and judge; the judges also score the ``calibration`` set, to be measured against its labels."""
    started, clock_start = datetime.now(UTC), time.monotonic()
    slots = asyncio.Semaphore(max(1, options.concurrency))
    repeats = max(1, options.repeats)
    jobs = _jobs(plan, personas, cases, repeats)
    total, done = len(jobs), 0
    tokens = TokenCount()

    async def one(job: _Job) -> tuple[Conversation, list[CheckResult]]:
        nonlocal done, tokens
        async with slots:
            conversation = await job.run()
        conversation = dataclasses.replace(conversation, id=repeat_id(conversation.id, job.repeat, repeats),
                                           repeat=job.repeat if repeats > 1 else None, seed=job.seed)
        done += 1
        tokens = tokens + conversation.tokens + conversation.player_tokens
        checked = run_checks(conversation, system_texts=options.system_texts, safety_text=options.safety_text,
                             screen=options.screen)
        failed = sum(1 for check in checked if check.verdict is Verdict.FAIL)
        state = f"failed: {conversation.error}" if conversation.error else f"{failed} check(s) failed"
        progress(f"[{done}/{total}] {job.name}: {len(conversation.messages)} messages, {state}; "
                 f"{tokens.total:,} tokens so far ({time.monotonic() - clock_start:.0f} s)")
        return conversation, checked

    ran = await asyncio.gather(*(one(job) for job in jobs))
    conversations = [conversation for conversation, _ in ran]
    checks = [check for _, checked in ran for check in checked]
    scores, findings, judge_tokens = await _judge(conversations, judges, slots, progress, plan.seed)
    if judges:  # the judges' crisis and opt-out findings, held to what must follow them
        checks += [check for conversation in conversations
                   for check in finding_checks(conversation, findings, safety_text=options.safety_text)]
    calibrated, _, calibration_tokens = await _judge([item.conversation for item in calibration], judges, slots,
                                                     lambda line: progress(f"calibration: {line}"), plan.seed)
    log.info("evaluation_done", conversations=len(conversations), seconds=round(time.monotonic() - clock_start, 1))
    return RunResult(label=options.label, started_at=started, finished_at=datetime.now(UTC),
                     coach_model=options.models[0], player_model=options.models[1],
                     judge_models=tuple(judge.name for judge in judges), study_days=plan.days,
                     conversations=tuple(conversations), checks=tuple(checks), scores=tuple(scores),
                     judge_tokens=judge_tokens + calibration_tokens, about=dict(options.about or {}),
                     calibration=tuple(calibrated),
                     calibration_labels={item.conversation.id: item.expect for item in calibration} if judges else {},
                     repeats=repeats)


def for_judging(conversation: Conversation) -> Conversation:
    """A hard case from its first scripted message on (its set-up is not the coach's work); a persona whole."""
    if conversation.source is records.Source.CASE and conversation.case_from:
        return dataclasses.replace(conversation, messages=conversation.messages[conversation.case_from:], case_from=0)
    return conversation


async def _judge(conversations: Sequence[Conversation], judges: Sequence[Judge], slots: asyncio.Semaphore,
                 progress: Progress, seed: int) -> tuple[list[Score], list[Finding], TokenCount]:
    """Every pass's scores and findings of every conversation, seeded by the conversation's seed (else ``seed``)."""
    if not judges or not conversations:
        return [], [], TokenCount()
    tokens = TokenCount()
    total, done = len(conversations) * len(judges), 0

    async def one(judge: Judge, conversation: Conversation) -> tuple[list[Score], list[Finding]]:
        nonlocal tokens, done
        async with slots:
            try:
                ran_with = seed if conversation.seed is None else conversation.seed
                judged = await judge.judge(for_judging(conversation), seed=pass_seed(ran_with, judge.name))
                scores, findings, used = judged.scores, judged.findings, judged.tokens
            except (LLMUnavailable, LLMRejected) as exc:
                scores, findings, used = [Score(conversation.id, criterion.name, judge.name, None, "", False,
                                                f"the judge could not be reached: {exc}") for criterion in CRITERIA], \
                    [], TokenCount()
        tokens = tokens + used
        done += 1
        if done % 10 == 0 or done == total:
            progress(f"judged {done}/{total}; {tokens.total:,} judge tokens")
        return ([dataclasses.replace(score, conversation_id=conversation.id) for score in scores],
                [dataclasses.replace(finding, conversation_id=conversation.id) for finding in findings])

    found = await asyncio.gather(*(one(judge, conversation) for conversation in conversations for judge in judges))
    return ([score for scores, _ in found for score in scores],
            [finding for _, findings in found for finding in findings], tokens)
