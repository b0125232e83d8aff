"""``promptpipe evaluate``: vet the coach before launch, on the study's own settings and prompts; exits 3 when the gate
is not met, so a team can gate a prompt or model change in its own CI."""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from promptpipe.app import App
from promptpipe.app.parts import load_prompts, load_safety
from promptpipe.cli._evaluate_args import add_arguments
from promptpipe.config import Settings
from promptpipe.errors import AdminError
from promptpipe.evaluation.calibration import load_calibration
from promptpipe.evaluation.cases import Case, load_cases
from promptpipe.evaluation.checks import CHECK_MEANINGS, CHECK_NAMES
from promptpipe.evaluation.conversations import RunPlan
from promptpipe.evaluation.gates import GateResult, gate_rows
from promptpipe.evaluation.judge import CRITERIA, Judge
from promptpipe.evaluation.personas import Persona, load_personas
from promptpipe.evaluation.player import ModelPlayer
from promptpipe.evaluation.records import Expectation
from promptpipe.evaluation.repeats import MAX_REPEATS, repeat_seed
from promptpipe.evaluation.report import write_report
from promptpipe.evaluation.run import RunOptions, evaluate
from promptpipe.evaluation.run_files import load_run, save_run
from promptpipe.evaluation.stats import compare, summarise
from promptpipe.evaluation.thresholds import Thresholds, default_thresholds, load_thresholds
from promptpipe.llm import LLM, OpenAILLM
from promptpipe.pilot.sandbox import Compose

__all__ = ["GATE_FAILED", "Models", "add_arguments", "evaluate_command", "models_from", "only"]

GATE_FAILED = 3
"""The exit status when the thresholds are not met (1 stays "could not run")."""
DEFAULT_START = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)
"""A Monday, 09:00 in Toronto: every run starts on the same virtual day, so reruns compare."""


@dataclass(frozen=True)
class Models:
    coach: LLM
    player: LLM | None
    judges: tuple[tuple[str, LLM], ...]
    """(pass name, model) per judging pass."""
    coach_name: str
    player_name: str | None


def models_from(settings: Settings, *, judge: bool) -> Models:
    """The coach's model; the participants' and the judge's from EVAL_*, each falling back to the coach's."""
    settings.require_llm()

    def client(base_url: str | None, key: str | None, model: str | None, temperature: float) -> tuple[str, LLM]:
        name = model or settings.genai_model
        return name, OpenAILLM(replace(settings, openai_base_url=base_url or settings.openai_base_url,
                                       openai_api_key=key or settings.openai_api_key, genai_model=name,
                                       genai_temperature=temperature))

    player_name, player = client(settings.eval_player_base_url, settings.eval_player_api_key,
                                 settings.eval_player_model, settings.eval_player_temperature)
    judges: list[tuple[str, LLM]] = []
    if judge:
        first_name, first = client(settings.eval_judge_base_url, settings.eval_judge_api_key,
                                   settings.eval_judge_model, settings.eval_judge_temperature)
        judges = ([(first_name, first), client(settings.eval_judge_base_url, settings.eval_judge_api_key,
                                               settings.eval_judge_second_model, settings.eval_judge_temperature)]
                  if settings.eval_judge_second_model else [(f"{first_name}#1", first), (f"{first_name}#2", first)])
    return Models(coach=OpenAILLM(settings), player=player, judges=tuple(judges), coach_name=settings.genai_model,
                  player_name=player_name)


async def evaluate_command(settings: Settings, args: argparse.Namespace, *, models: Models | None = None,
                           compose: Compose = App.build, start: datetime = DEFAULT_START,
                           say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)) -> int:
    """Run it, write the files, print where they are and whether the gate passed."""
    _check_numbers(args)
    personas: Sequence[Persona] = load_personas(args.personas) if args.personas else ()
    cases: Sequence[Case] = load_cases(args.cases, builtin=not args.no_builtin_cases)
    if args.only.strip():
        personas, cases = only(args.only, personas, cases)
    if not personas and not cases:
        raise AdminError("Nothing to run: give --personas, or keep the built-in cases (or --cases FILE).")
    thresholds = _thresholds(args)
    baseline = load_run(args.compare_with) if args.compare_with else None
    models = models or models_from(settings, judge=not args.no_judge)
    prompts = load_prompts(settings)
    system_texts = (prompts.intake, prompts.feedback, prompts.prompt_generator)
    label = args.label or f"{models.coach_name}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    each = "" if args.repeats == 1 else f", each {args.repeats} times ({_seeds(args)})"
    say(f"Evaluating {label!r}: {len(personas)} persona(s) over {args.days} study day(s), {len(cases)} hard "
        f"case(s){each}.")
    plan = RunPlan(settings=settings, compose=compose, coach=models.coach, start=start, days=args.days,
                   seed=args.seed, player=ModelPlayer(models.player) if models.player is not None else None)
    judges = [Judge(llm, name) for name, llm in models.judges]
    safety = load_safety(settings)
    try:
        run = await evaluate(plan, RunOptions(
            label=label, concurrency=args.concurrency or settings.eval_concurrency, system_texts=system_texts,
            safety_text=safety.message, screen=safety.screen,
            models=(models.coach_name, models.player_name if personas else None),
            about=_about(settings, system_texts, args), repeats=args.repeats,
        ), personas=personas, cases=cases, judges=judges, progress=say,
            calibration=load_calibration() if judges else ())
    finally:
        for llm in {id(llm): llm for llm in (models.coach, models.player, *(j for _, j in models.judges))}.values():
            if (closer := getattr(llm, "close", None)) is not None:
                await closer()
    summary = summarise(run)
    comparison = compare(baseline, run) if baseline is not None else None
    gate = GateResult(thresholds.source, tuple(gate_rows(thresholds, summary, comparison)))
    failed = gate.breaches
    save_run(run, args.out)
    page = write_report(run, summary, args.out, comparison=comparison, baseline=baseline,
                        criteria=[(c.name, c.title, c.meaning) for c in CRITERIA], check_meanings=CHECK_MEANINGS,
                        breaches=failed, gate=gate)
    tokens = summary.tokens
    say(f"Done: {len(run.conversations)} conversations, {tokens.total:,} tokens in {tokens.requests:,} requests. "
        f"Report: {page}")
    for check in summary.checks:
        if check.failed:
            say(f"  {check.check}: {check.failed} of {check.passed + check.failed} failed")
    say(f"Gate: {thresholds.source}.")
    if failed:
        say("Thresholds NOT met:")
        for line in failed:
            say(f"  - {line}")
        return GATE_FAILED
    say("Thresholds met.")
    return 0


def only(names: str, personas: Sequence[Persona], cases: Sequence[Case]) -> tuple[list[Persona], list[Case]]:
    """The personas and cases ``names`` (comma-separated) picks; a name that picks nothing is an error."""
    wanted = {name.strip() for name in names.split(",") if name.strip()}
    known = {persona.name for persona in personas} | {case.id for case in cases} | {case.group for case in cases}
    unknown = sorted(wanted - known)
    if unknown:
        groups = sorted({case.group for case in cases})
        raise AdminError(f"--only: no case group, case id or persona is called {', '.join(map(repr, unknown))}. "
                         f"Case groups: {', '.join(groups) or 'none'}.")
    return ([persona for persona in personas if persona.name in wanted],
            [case for case in cases if case.id in wanted or case.group in wanted])


def _thresholds(args: argparse.Namespace) -> Thresholds:
    """The file's gate, or the default gate; without the judge's gates for a run with no judge."""
    known = CHECK_NAMES + tuple(f"expect_{name}" for name in Expectation.__dataclass_fields__)
    thresholds = (load_thresholds(args.thresholds, known_checks=known) if args.thresholds
                  else default_thresholds(known_checks=known))
    return thresholds.without_judge() if args.no_judge else thresholds


def _check_numbers(args: argparse.Namespace) -> None:
    if not 1 <= args.days <= 120:
        raise AdminError("--days: give 1 to 120 study days.")
    if not 1 <= args.repeats <= MAX_REPEATS:
        raise AdminError(f"--repeats: give 1 to {MAX_REPEATS} runs of each conversation (1 runs each once).")


def _seeds(args: argparse.Namespace) -> str:
    return f"seeds {args.seed} to {repeat_seed(args.seed, args.repeats - 1)}"


def _about(settings: Settings, system_texts: Sequence[str], args: argparse.Namespace) -> dict[str, str]:
    """The report header's configuration: study, prompts' fingerprint (do two reports' prompts differ?), seed(s)."""
    prompts = hashlib.sha256("\0".join(system_texts).encode()).hexdigest()[:12]
    about = {"study": settings.study.name or "", "prompts": prompts, "seed": str(args.seed)}
    if args.repeats > 1:
        about["repeats"] = f"{args.repeats}, {_seeds(args)}"
    return about
