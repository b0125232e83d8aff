"""``transition_state``: hand the conversation between intake and feedback, now or later."""

from __future__ import annotations

from datetime import timedelta

from promptpipe.domain import transitions
from promptpipe.domain.localtime import local_label, zone_or_utc
from promptpipe.domain.states import Stage
from promptpipe.domain.timers import TimerKind
from promptpipe.domain.transition_log import Actor
from promptpipe.domain.transitions import MOVE_TO
from promptpipe.errors import ToolArgumentError
from promptpipe.tools.base import Tool, ToolArguments, ToolContext, arguments, optional_string

MAX_DELAY_MINUTES = 7 * 24 * 60


def _delay(args: ToolArguments) -> float:
    raw = args.get("delay_minutes")
    if raw is None or raw == "":
        return 0.0
    try:
        minutes = float(raw if isinstance(raw, (int, float, str)) else "not a number")
    except ValueError:
        raise ToolArgumentError("'delay_minutes' must be a number of minutes") from None
    if not 0 <= minutes <= MAX_DELAY_MINUTES:
        raise ToolArgumentError(f"'delay_minutes' must be between 0 and {MAX_DELAY_MINUTES} (a week)")
    return minutes


async def _transition(ctx: ToolContext, args: ToolArguments) -> str:
    target = optional_string(args, "target_state").upper()
    if target not in tuple(Stage):
        raise ToolArgumentError(f"'target_state' must be one of {', '.join(Stage)}")
    reason = optional_string(args, "reason") or "requested by the assistant"
    minutes = _delay(args)
    state = ctx.state
    if target == Stage.INTAKE_SUSPENDED:
        if state.sub_state != Stage.INTAKE:
            raise ToolArgumentError("only intake can be put on hold (INTAKE_SUSPENDED); the conversation is in "
                                    f"{state.sub_state}")
        if minutes > 0:
            raise ToolArgumentError("intake is put on hold at once: leave out delay_minutes")
    if minutes > 0:
        due = ctx.now() + timedelta(minutes=minutes)
        replaced = state.timer_pending_after_commit(TimerKind.TRANSITION)
        state.arm_timer(TimerKind.TRANSITION, due, {"target": target, "reason": reason}, reason=reason)
        when = local_label(due, zone_or_utc(state.timezone))
        return (f"Scheduled: the conversation moves to {target} at {when}, in {minutes:g} minutes."
                + (" This replaces the delayed move that was pending." if replaced else ""))
    cancelled = ""
    if state.timer_pending_after_commit(TimerKind.TRANSITION):
        state.cancel_timers(TimerKind.TRANSITION, reason="replaced by an immediate transition")
        cancelled = " The delayed move that was pending is cancelled."
    if not transitions.apply(state, MOVE_TO[target], actor=Actor.MODEL, reason=reason):
        return f"The conversation is already in {target}; nothing changed.{cancelled}"
    return f"Done: the conversation is now in {target}. Your next reply is sent from there.{cancelled}"


TRANSITION_STATE = Tool(
    name="transition_state",
    description=(
        "Move the conversation to INTAKE (building or repairing the habit profile) or FEEDBACK "
        "(hearing how the habit went), immediately or after delay_minutes; only one delayed move "
        "can be pending, a new one replaces it, and an immediate move cancels it. INTAKE_SUSPENDED "
        "puts intake on hold at once when the participant wants to do it later (the study "
        "reminds them later; writing again resumes intake)."
    ),
    parameters=arguments({
        "target_state": {"type": "string", "enum": list(Stage)},
        "delay_minutes": {"type": "number", "minimum": 0, "description": "Wait this long first (0 = now)."},
        "reason": {"type": "string", "description": "Why, in a few words (kept in the audit log)."},
    }, "target_state"),
    handler=_transition,
)
