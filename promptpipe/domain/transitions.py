"""Every change of a participant's conversation stage, status or time zone, declared once: code changes them only with
:func:`apply` and a declared name (anything else raises :class:`UndeclaredTransition`). :func:`apply` cancels the timers
a status change ends; the flow and the app run the other :attr:`Transition.effects`, which need settings and alarms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from promptpipe.domain.consent import ConsentKind, ConsentRecord, ConsentSource, overtaken
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.states import INTAKE_STAGES, Stage, Status
from promptpipe.domain.timers import RUNS_WHILE_PAUSED, TimerKind
from promptpipe.domain.transition_log import Actor, PendingTransition, TransitionKind

__all__ = ["MOVE_TO", "REGISTRY", "Actor", "PendingTransition", "Transition", "TransitionKind", "UndeclaredTransition",
           "apply", "derive_status", "markdown_table", "stage_effects"]

CANCEL_ALL_TIMERS = "cancel every pending timer"
RESYNC_ALARMS = "re-sync the participant's alarms"
CANCEL_AUTO_FEEDBACK = "cancel the auto-feedback timer"
ARM_CHECK_IN = ("arm the feedback check-in (not when the participant's own answer moved them, nor when the server "
                "did because a prompt came due before study day 1)")
CANCEL_FEEDBACK_TIMERS = "cancel the feedback check-in and follow-up"
CANCEL_INTAKE_TIMERS = "cancel the intake inactivity and intake reminder timers"
ARM_INTAKE_REMINDER = "arm an intake reminder (INTAKE_REMINDER_DELAY, outside quiet hours, at most INTAKE_REMINDER_MAX)"
CANCEL_INTAKE_REMINDER = "cancel the intake reminder"
ARM_STUDY_END = "arm the end of the last study day"
GREET_IF_NEVER_GREETED = ("greet them if they were never greeted (the pause cancelled a greeting held for quiet "
                          "hours)")


class UndeclaredTransition(ValueError):
    """A change no transition declares (a bug, never a participant's doing)."""


Guard = Callable[[TurnState], str | None]
"""Why the transition would change nothing here (None: it applies)."""


@dataclass(frozen=True)
class Transition:
    name: str
    kind: TransitionKind
    sources: tuple[str, ...]
    """States it may start from (``*``: any); being at the target already is a no-op."""
    target: str
    """The state it leads to (for a status change, as :func:`derive_status` settles it)."""
    triggers: tuple[Actor, ...]
    summary: str
    guard: Guard | None = None
    guard_text: str = ""
    consent: ConsentKind | None = None
    """The consent ledger event it records, if any."""
    effects: tuple[str, ...] = ()


def derive_status(*, withdrawn: bool, opted_out: bool, researcher_paused: bool,
                  completed: bool = False) -> tuple[str, str | None]:
    """The status and ``paused_by`` that follow: an opt-out and a researcher's pause are each lifted only by its own
    side; a completed participant stays completed whatever else holds (only an extension reopens it)."""
    if withdrawn:
        return Status.WITHDRAWN, None
    if completed:
        return Status.COMPLETED, None
    holders = [who for who, holds in (("participant", opted_out), ("researcher", researcher_paused)) if holds]
    return (Status.PAUSED, "+".join(holders)) if holders else (Status.ACTIVE, None)


def _unless(condition: Callable[[TurnState], bool], why: str) -> Guard:
    return lambda state: why if condition(state) else None


_STATUS_SOURCES = (Status.ACTIVE, Status.PAUSED, Status.COMPLETED)

REGISTRY: dict[str, Transition] = {t.name: t for t in (
    Transition("intake_to_feedback", TransitionKind.SUB_STATE, INTAKE_STAGES, Stage.FEEDBACK,
               (Actor.PARTICIPANT, Actor.MODEL, Actor.TIMER, Actor.SERVER),
               "the plan is set: what they say next is feedback",
               effects=(CANCEL_AUTO_FEEDBACK, ARM_CHECK_IN, CANCEL_INTAKE_TIMERS)),
    Transition("intake_suspended", TransitionKind.SUB_STATE, (Stage.INTAKE,), Stage.INTAKE_SUSPENDED,
               (Actor.PARTICIPANT, Actor.MODEL, Actor.TIMER),
               "intake on hold: they said later (an escape word, or in their own words) or went quiet",
               effects=(CANCEL_INTAKE_TIMERS, ARM_INTAKE_REMINDER)),
    Transition("intake_resumed", TransitionKind.SUB_STATE, (Stage.INTAKE_SUSPENDED,), Stage.INTAKE,
               (Actor.PARTICIPANT,),
               "they wrote again: intake picks up where it stopped", effects=(CANCEL_INTAKE_REMINDER,)),
    Transition("feedback_to_intake", TransitionKind.SUB_STATE, (Stage.FEEDBACK,), Stage.INTAKE,
               (Actor.MODEL, Actor.TIMER, Actor.SERVER),
               "back to intake: the habit changed, or the plan lacks what a prompt needs",
               effects=(CANCEL_FEEDBACK_TIMERS,)),
    Transition("opted_out", TransitionKind.STATUS, (*_STATUS_SOURCES, Status.WITHDRAWN), Status.PAUSED,
               (Actor.PARTICIPANT, Actor.MODEL),
               "they asked for no more messages (STOP, or in their own words); someone withdrawn stays "
               "withdrawn, their STOP kept (an erasure remembers it)",
               guard=_unless(lambda s: s.opted_out, "already opted out"), guard_text="not opted out already",
               consent=ConsentKind.OPTED_OUT, effects=(CANCEL_ALL_TIMERS, RESYNC_ALARMS)),
    Transition("opted_in", TransitionKind.STATUS, (Status.PAUSED, Status.WITHDRAWN), Status.ACTIVE,
               (Actor.PARTICIPANT,),
               "they switched messages back on (START); paused still while the team's pause holds, withdrawn "
               "still if withdrawn",
               guard=_unless(lambda s: not s.opted_out, "not opted out"), guard_text="opted out",
               consent=ConsentKind.OPTED_IN, effects=(RESYNC_ALARMS, GREET_IF_NEVER_GREETED)),
    Transition("paused_by_researcher", TransitionKind.STATUS, _STATUS_SOURCES, Status.PAUSED, (Actor.RESEARCHER,),
               "the research team paused every scheduled message",
               guard=_unless(lambda s: s.researcher_paused, "already paused by the team"),
               guard_text="not paused by the team already", consent=ConsentKind.PAUSED,
               effects=(CANCEL_ALL_TIMERS, RESYNC_ALARMS)),
    Transition("resumed_by_researcher", TransitionKind.STATUS, (Status.PAUSED,), Status.ACTIVE, (Actor.RESEARCHER,),
               "the team lifted its pause; paused still while the participant's STOP holds",
               guard=_unless(lambda s: not s.researcher_paused, "not paused by the team"),
               guard_text="paused by the team", consent=ConsentKind.RESUMED,
               effects=(RESYNC_ALARMS, GREET_IF_NEVER_GREETED)),
    Transition("withdrawn_by_researcher", TransitionKind.STATUS, _STATUS_SOURCES, Status.WITHDRAWN, (Actor.RESEARCHER,),
               "withdrawn from the study: final, nothing is sent again",
               consent=ConsentKind.WITHDRAWN, effects=(CANCEL_ALL_TIMERS, RESYNC_ALARMS)),
    Transition("timezone_changed", TransitionKind.TIMEZONE, ("*",), "the new zone", (Actor.MODEL, Actor.RESEARCHER),
               "their local time changed: prompts follow the new zone", effects=(RESYNC_ALARMS,)),
    Transition("number_changed", TransitionKind.NUMBER, ("*",), "the new number", (Actor.RESEARCHER,),
               "the team moved them to another of the deployment's WhatsApp numbers: everything goes from it"),
    Transition("enrolled", TransitionKind.STATUS, ("(new)",), Status.ACTIVE, (Actor.RESEARCHER, Actor.SERVER),
               "enrolled by a researcher, or on a first message when auto-enrolment is on",
               consent=ConsentKind.ENROLLED),
    Transition("erased_by_researcher", TransitionKind.STATUS, ("*",), Status.WITHDRAWN, (Actor.RESEARCHER,),
               "their personal data was erased; a pseudonymous tombstone stays",
               consent=ConsentKind.ERASED, effects=(CANCEL_ALL_TIMERS, RESYNC_ALARMS)),
    Transition("study_started", TransitionKind.STUDY, ("(no day one)",), "day one", (Actor.SERVER,),
               "study day 1 is set: the day after intake completes (or after enrollment, as the study file says)",
               effects=(ARM_STUDY_END,)),
    Transition("study_completed", TransitionKind.STATUS, (Status.ACTIVE, Status.PAUSED), Status.COMPLETED,
               (Actor.TIMER,),
               "their last study day is over: the closing message (unless paused), then nothing is scheduled",
               effects=(CANCEL_ALL_TIMERS, RESYNC_ALARMS)),
    Transition("study_extended", TransitionKind.STUDY, ("*",), "the new length", (Actor.RESEARCHER,),
               "a researcher added days to this participant's study", effects=(ARM_STUDY_END,)),
    Transition("reopened_by_researcher", TransitionKind.STATUS, (Status.COMPLETED,), Status.ACTIVE, (Actor.RESEARCHER,),
               "an extension brought a completed participant back into the study; paused still if a pause holds",
               effects=(RESYNC_ALARMS,)),
)}

MOVE_TO: dict[str, str] = {Stage.FEEDBACK: "intake_to_feedback", Stage.INTAKE: "feedback_to_intake",
                           Stage.INTAKE_SUSPENDED: "intake_suspended"}
"""The transition that leads to each conversation stage."""

_FIELDS = {TransitionKind.TIMEZONE: "timezone", TransitionKind.NUMBER: "number"}
_APPLIED_WITH_THE_STATE = ("enrolled",)
"""Recorded by the storage code that creates a participant, not by :func:`apply`."""


def declared(name: str, actor: str) -> Transition:
    transition = REGISTRY.get(name)
    if transition is None:
        raise UndeclaredTransition(f"no transition is declared as {name!r}")
    if actor not in transition.triggers:
        raise UndeclaredTransition(f"{name!r} cannot be triggered by {actor!r} (only {', '.join(transition.triggers)})")
    return transition


def apply(state: TurnState, name: str, *, actor: Actor, reason: str, value: str | None = None, words: str = "",
          actor_name: str = "") -> bool:
    """Apply the declared transition ``name`` to ``state``; False when it changes nothing. ``value``: the new value;
    ``words``: what caused it, kept in the consent ledger; ``actor_name``: the researcher's name."""
    transition = declared(name, actor)
    if name in _APPLIED_WITH_THE_STATE:
        raise UndeclaredTransition(f"{name!r} is recorded by the storage code that creates participants")
    if transition.kind in _FIELDS:
        return _change_field(state, transition, value, reason, actor, _FIELDS[transition.kind])
    if transition.kind == TransitionKind.STUDY:
        return _change_study(state, transition, value, reason, actor)
    current = state.sub_state if transition.kind == TransitionKind.SUB_STATE else state.status
    if (transition.kind == TransitionKind.STATUS and current == Status.WITHDRAWN
            and transition.consent not in (*_SUPERSEDED, ConsentKind.ERASED)):
        return False  # a withdrawal is final (their own STOP or START is still kept, an erasure recorded)
    if transition.kind == TransitionKind.SUB_STATE and current == transition.target:
        return False
    if transition.kind == TransitionKind.STATUS and current == transition.target and name == "study_completed":
        return False
    if "*" not in transition.sources and current not in transition.sources:
        raise UndeclaredTransition(f"{name!r} does not start from {current!r} (only {', '.join(transition.sources)})")
    if transition.guard is not None and transition.guard(state) is not None:
        return False
    if _overtaken(state, transition, actor, words or reason):
        return False
    if transition.kind == TransitionKind.SUB_STATE:
        state.transitions.append(PendingTransition(TransitionKind.SUB_STATE, name, current, transition.target, reason,
                                                   actor))
        state.sub_state = transition.target
        return True
    _change_status(state, transition, reason, actor, words or reason, actor_name)
    return True


_OWN = (Actor.PARTICIPANT, Actor.MODEL)
"""Who makes a participant's own opt-out or opt-in (the model, on their words)."""
_SUPERSEDED = {ConsentKind.OPTED_OUT: ConsentKind.OPT_OUT_SUPERSEDED,
               ConsentKind.OPTED_IN: ConsentKind.OPT_IN_SUPERSEDED}


def _overtaken(state: TurnState, transition: Transition, actor: Actor, words: str) -> bool:
    """Their own opt-out or opt-in sent before their latest applied one changes nothing (recorded as superseded)."""
    if transition.consent not in _SUPERSEDED or actor not in _OWN:
        return False
    if not overtaken(state.said_at, state.own_consent_at):
        return False
    state.consent.append(ConsentRecord(_SUPERSEDED[transition.consent], ConsentSource(actor), words,
                                       said_at=state.said_at))
    return True


def _change_status(state: TurnState, transition: Transition, reason: str, actor: Actor, words: str,
                   actor_name: str) -> None:
    opted_out, paused = state.opted_out, state.researcher_paused
    withdrawn = transition.target == Status.WITHDRAWN or state.status == Status.WITHDRAWN
    completed = state.completed
    if transition.consent in _SUPERSEDED:  # the participant's own opt-out or opt-in
        opted_out = transition.consent == ConsentKind.OPTED_OUT
    elif transition.name in ("paused_by_researcher", "resumed_by_researcher"):
        paused = transition.name == "paused_by_researcher"
    elif transition.name in ("study_completed", "reopened_by_researcher"):
        completed = transition.name == "study_completed"
    status, paused_by = derive_status(withdrawn=withdrawn, opted_out=opted_out, researcher_paused=paused,
                                      completed=completed)
    state.transitions.append(PendingTransition(TransitionKind.STATUS, transition.name, state.status, status, reason,
                                               actor))
    if transition.consent is not None:
        said_at = state.said_at if transition.consent in _SUPERSEDED and actor in _OWN else None
        state.consent.append(ConsentRecord(transition.consent, ConsentSource(actor), words, actor_name, said_at))
        state.own_consent_at = max((at for at in (state.own_consent_at, said_at) if at is not None), default=None)
    state.status, state.paused_by, state.opted_out, state.researcher_paused = status, paused_by, opted_out, paused
    state.completed = completed
    if GREET_IF_NEVER_GREETED in transition.effects and status == Status.ACTIVE:
        state.greet_if_never_greeted = True
    if CANCEL_ALL_TIMERS in transition.effects and status != Status.ACTIVE:
        # A pause leaves the study's own clock running; an ending, a withdrawal or an erasure stops it all.
        kinds = tuple(TimerKind) if status != Status.PAUSED else tuple(
            k for k in TimerKind if k not in RUNS_WHILE_PAUSED)
        state.cancel_timers(*kinds, reason=f"status changed: {transition.name}")


def _change_field(state: TurnState, transition: Transition, value: str | None, reason: str, actor: Actor,
                  field: str) -> bool:
    """``timezone_changed``, ``number_changed``: the state's ``field`` takes ``value``."""
    if not value:
        raise UndeclaredTransition(f"{transition.name} needs {transition.target}")
    before = getattr(state, field)
    if value == before:
        return False
    state.transitions.append(PendingTransition(transition.kind, transition.name, before, value, reason, actor))
    setattr(state, field, value)
    return True


def _change_study(state: TurnState, transition: Transition, value: str | None, reason: str, actor: Actor) -> bool:
    """``study_started``: ``value`` is day one (YYYY-MM-DD); ``study_extended``: their extra days in all."""
    if not value:
        raise UndeclaredTransition(f"{transition.name} needs the new value")
    if transition.name == "study_started":
        if state.day_one is not None:
            return False
        state.transitions.append(PendingTransition(TransitionKind.STUDY, transition.name, None, value, reason, actor))
        state.day_one = date.fromisoformat(value)
        return True
    before, after = state.extra_days, int(value)
    if before == after:
        return False
    state.transitions.append(PendingTransition(TransitionKind.STUDY, transition.name, f"{before} extra days",
                                               f"{after} extra days", reason, actor))
    state.extra_days = after
    return True


def stage_effects(state: TurnState) -> tuple[str, ...]:
    """The side effects the turn's last change of stage declares (no check-in when their own answer moved them)."""
    moves = [t for t in state.transitions if t.kind == TransitionKind.SUB_STATE]
    if not moves:
        return ()
    effects = REGISTRY[moves[-1].name].effects
    return tuple(e for e in effects if not (e == ARM_CHECK_IN and moves[-1].actor in (Actor.PARTICIPANT, Actor.SERVER)))


def markdown_table() -> str:
    """The registry as the README shows it."""
    rows = ["| Transition | Kind | From | To | Triggered by | Only if | Consent record | Side effects |",
            "|---|---|---|---|---|---|---|---|"]
    rows += [f"| `{t.name}`: {t.summary} | {t.kind} | {', '.join(t.sources)} | {t.target} | "
             f"{', '.join(t.triggers)} | {t.guard_text or '-'} | {t.consent or '-'} | {'; '.join(t.effects) or '-'} |"
             for t in REGISTRY.values()]
    return "\n".join(rows)

