"""``scheduler``: create, list, update or delete the participant's daily prompt schedule, on the turn's working copy
(saved with the reply; the service then sets the alarms). A second ``create`` replaces the schedule in place (same id,
so a change of mind never gives two prompts a day) unless the model asks to keep the existing one too."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from promptpipe.domain import transitions
from promptpipe.domain.conversation import ScheduleEntry
from promptpipe.domain.localtime import FIXED, RANDOM, format_hhmm, is_iana_zone, local_label, parse_hhmm, zone_or_utc
from promptpipe.domain.quiet_hours import in_quiet_hours
from promptpipe.domain.transition_log import Actor
from promptpipe.errors import ToolArgumentError
from promptpipe.storage.schedules import new_schedule_id
from promptpipe.tools.base import Tool, ToolArguments, ToolContext, arguments, optional_string

ACTIONS = ("create", "list", "update", "delete")


def _time_arg(args: ToolArguments, name: str) -> str:
    raw = optional_string(args, name)
    if not raw:
        raise ToolArgumentError(f"'{name}' is required for this schedule type (24-hour HH:MM, e.g. 07:30)")
    try:
        return format_hhmm(parse_hhmm(raw))
    except ValueError as exc:
        raise ToolArgumentError(f"'{name}': {exc}") from None


def _flag(args: ToolArguments, name: str) -> bool:
    value = args.get(name, False)
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    return bool(value)


def _apply_timing(entry: ScheduleEntry, args: ToolArguments, *, kind: str) -> None:
    if kind == FIXED:
        entry.kind, entry.habit_time = FIXED, _time_arg(args, "fixed_time")
        entry.window_start, entry.window_end = None, None
    elif kind == RANDOM:
        start, end = _time_arg(args, "random_start_time"), _time_arg(args, "random_end_time")
        if parse_hhmm(end) <= parse_hhmm(start):
            raise ToolArgumentError("'random_end_time' must be later than 'random_start_time' on the same day")
        entry.kind, entry.habit_time, entry.window_start, entry.window_end = RANDOM, None, start, end
    else:
        raise ToolArgumentError("'type' must be fixed or random")
    entry.dirty = True


def _refuse_quiet_hours(ctx: ToolContext, entry: ScheduleEntry) -> None:
    """Nothing scheduled is sent in quiet hours: a prompt time inside them is refused."""
    quiet = ctx.study.quiet_hours
    if quiet is None:
        return
    spec, day = entry.spec(), date(2026, 1, 5)
    if entry.kind == FIXED:
        minutes = [spec.habit_time_on(day).hour * 60 + spec.habit_time_on(day).minute]
    else:
        assert spec.window_start is not None and spec.window_end is not None
        minutes = list(range(spec.window_start.hour * 60 + spec.window_start.minute,
                             spec.window_end.hour * 60 + spec.window_end.minute + 1))
    utc = ZoneInfo("UTC")
    for minute in minutes:
        # never before the day begins, as DailySpec.fire_at sends it
        sent = datetime.combine(day, time(), tzinfo=utc) + timedelta(minutes=max(minute - spec.prep_minutes, 0))
        if in_quiet_hours(quiet, sent, utc):
            raise ToolArgumentError(
                f"prompts are not sent during the study's quiet hours ({quiet.describe()}, the participant's local "
                f"time), and this schedule would send one at {sent.strftime('%H:%M')}; ask for a time outside them")


def _study_start_note(ctx: ToolContext) -> str:
    """When the first prompt of the study comes (day 1 is after intake; baseline days send none)."""
    study, state = ctx.study, ctx.state
    if not study.in_use:
        return ""
    first = state.day_one or ctx.now().astimezone(zone_or_utc(state.timezone)).date() + timedelta(days=1)
    start = first + timedelta(days=study.baseline_days)
    when = "once intake is finished today, " if state.day_one is None else ""
    return (f" In this study the daily prompts begin on study day {study.baseline_days + 1}: {when}that is "
            f"{start.strftime('%A %Y-%m-%d')}; none is sent before then.")


def _timing(entry: ScheduleEntry) -> tuple[str, str | None, str | None, str | None]:
    return entry.kind, entry.habit_time, entry.window_start, entry.window_end


def _refuse_duplicate(ctx: ToolContext, entry: ScheduleEntry) -> None:
    """Two schedules with the same timing would send two prompts at once."""
    for other in ctx.state.active_schedules():
        if other is not entry and _timing(other) == _timing(entry):
            raise ToolArgumentError(
                f"schedule {other.id} already sends the prompt at {other.spec().describe()}; a second one with the "
                "same timing would send the same prompt twice. Keep that one, or update it"
            )


def _refuse_over_limit(ctx: ToolContext) -> None:
    limit = ctx.policy.max_schedules
    if len(ctx.state.active_schedules()) >= limit:
        raise ToolArgumentError(
            f"the participant already has {limit} daily prompt schedule(s), the most this study allows "
            f"(MAX_SCHEDULES_PER_PARTICIPANT={limit}); each schedule sends one prompt a day. Update or delete "
            "one instead, or tell the participant that more prompts a day are not possible"
        )


def _describe(ctx: ToolContext, entry: ScheduleEntry) -> str:
    spec, zone = entry.spec(), zone_or_utc(ctx.state.timezone)
    _, next_fire = spec.next_fire(ctx.now(), zone)
    habit = f"habit at {spec.describe()}"
    return (f"{entry.id}: {habit} in {zone.key}; the prompt goes out {spec.prep_minutes} minutes before. "
            f"Next prompt: {local_label(next_fire, zone)}.")


def _pick(ctx: ToolContext, args: ToolArguments) -> ScheduleEntry:
    active = ctx.state.active_schedules()
    wanted = optional_string(args, "schedule_id")
    if wanted:
        for entry in active:
            if entry.id == wanted:
                return entry
        raise ToolArgumentError(f"no active schedule has id {wanted!r}; call the 'list' action to see the ids")
    if len(active) == 1:
        return active[0]
    if not active:
        raise ToolArgumentError("the participant has no daily prompt schedule yet; use 'create'")
    raise ToolArgumentError("the participant has several schedules; pass 'schedule_id' (see 'list')")


async def _scheduler(ctx: ToolContext, args: ToolArguments) -> str:
    action = optional_string(args, "action").lower()
    if action not in ACTIONS:
        raise ToolArgumentError(f"'action' must be one of {', '.join(ACTIONS)}")
    zone_name = optional_string(args, "timezone")
    if zone_name and not is_iana_zone(zone_name):
        raise ToolArgumentError(f"'timezone': {zone_name!r} is not an IANA zone name such as Europe/Berlin")
    outcome = _act(ctx, action, args)  # raises (changing nothing) on bad arguments
    zone_note = ""
    if zone_name and transitions.apply(ctx.state, "timezone_changed", actor=Actor.MODEL, value=zone_name,
                                       reason="given in the conversation (scheduler tool)"):
        zone_note = f"The participant's time zone is now {zone_name}. "
    return zone_note + outcome(ctx)


def _act(ctx: ToolContext, action: str, args: ToolArguments) -> Callable[[ToolContext], str]:
    """Apply the action to the working copy; returns how to describe the result afterwards."""
    if action == "list":
        def listing(ctx: ToolContext) -> str:
            active = ctx.state.active_schedules()
            if not active:
                return "No daily prompt is scheduled for this participant."
            return "Active schedules:\n" + "\n".join(_describe(ctx, entry) for entry in active)
        return listing
    if action == "create":
        kind = optional_string(args, "type").lower()
        active = ctx.state.active_schedules()
        if active and not _flag(args, "keep_existing"):
            entry = active[0]
            before, dirty, prep = _timing(entry), entry.dirty, entry.prep_minutes
            _apply_timing(entry, args, kind=kind)
            entry.prep_minutes = ctx.policy.prep_minutes
            try:
                _refuse_quiet_hours(ctx, entry)
            except ToolArgumentError:
                (entry.kind, entry.habit_time, entry.window_start, entry.window_end) = before
                entry.dirty, entry.prep_minutes = dirty, prep
                raise
            for extra in active[1:]:
                extra.active, extra.dirty = False, True
            same = before == _timing(entry)
            note = " It was already scheduled exactly like this." if same else " It replaces the previous schedule."
        else:
            entry = ScheduleEntry(id=new_schedule_id(), kind=kind, habit_time=None, window_start=None,
                                  window_end=None, prep_minutes=ctx.policy.prep_minutes)
            _apply_timing(entry, args, kind=kind)
            _refuse_duplicate(ctx, entry)
            _refuse_over_limit(ctx)
            _refuse_quiet_hours(ctx, entry)
            ctx.state.schedules.append(entry)
            note = ""
        return lambda ctx: ("Saved. " + _describe(ctx, entry) + note + _study_start_note(ctx) +
                            " Tell the participant when their prompts will arrive; do not show them the schedule id.")
    entry = _pick(ctx, args)
    if action == "delete":
        entry.active, entry.dirty = False, True
        return lambda ctx: f"Deleted schedule {entry.id}: no more daily prompts from it."
    timing, dirty = _timing(entry), entry.dirty
    _apply_timing(entry, args, kind=optional_string(args, "type").lower() or entry.kind)
    try:
        _refuse_duplicate(ctx, entry)
        _refuse_quiet_hours(ctx, entry)
    except ToolArgumentError:
        (entry.kind, entry.habit_time, entry.window_start, entry.window_end), entry.dirty = timing, dirty
        raise
    return lambda ctx: "Updated. " + _describe(ctx, entry)


SCHEDULER = Tool(
    name="scheduler",
    description=(
        "Manage the participant's daily habit prompt. Each day the prompt is sent a few minutes "
        "before the habit time they chose, in their time zone: at a fixed time, or at a random "
        "time inside a window (a new draw every day). One schedule sends one prompt a day. 'create' "
        "replaces an existing schedule unless keep_existing is true; a participant may have only a "
        "few schedules (the study sets the limit; the tool says so when it is reached) and never two "
        "with the same timing. 'list' shows schedules with the next send time; 'update' and 'delete' "
        "take the schedule_id from 'list' (optional when there is only one)."
    ),
    parameters=arguments({
        "action": {"type": "string", "enum": list(ACTIONS)},
        "type": {"type": "string", "enum": [FIXED, RANDOM], "description": "Needed for create."},
        "fixed_time": {"type": "string", "description": "Habit time, 24-hour HH:MM (type fixed)."},
        "random_start_time": {"type": "string", "description": "Window start, HH:MM (type random)."},
        "random_end_time": {"type": "string", "description": "Window end, HH:MM, after the start (type random)."},
        "timezone": {"type": "string",
                     "description": "IANA zone, only if the participant told you theirs (e.g. Europe/Berlin)."},
        "schedule_id": {"type": "string"},
        "keep_existing": {"type": "boolean", "description": "create only: add a second schedule instead of replacing."},
    }, "action"),
    handler=_scheduler,
)
