"""``save_user_profile``: the model records what it learned; the server decides what changes."""

from __future__ import annotations

import json
from datetime import datetime
from typing import NotRequired, TypedDict

from promptpipe.domain import tone
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.limits import PROFILE_FIELD_CHARS
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.profile import HABIT_FIELDS, INTAKE_FIELDS
from promptpipe.errors import ToolArgumentError
from promptpipe.tools.base import Tool, ToolArguments, ToolContext, arguments, optional_string

ALIASES = {"last_blocker": "last_barrier"}
TONE_ARGUMENTS = ("tone_tags", "tone_update_source", "tone_confidence")
"""Not profile fields: a tone proposal, validated and smoothed by the server."""

_DESCRIPTIONS = {
    "habit_domain": "The habit or area the participant wants to work on, e.g. more movement, better sleep.",
    "prompt_anchor": "The everyday moment the habit hangs on, e.g. 'after my morning coffee'.",
    "motivational_frame": "Why this matters to the participant, in their own terms.",
    "preferred_time": "When they want their daily nudge, e.g. '8:30', 'mornings', 'around lunch'.",
    "additional_info": "Anything else that helps personalise prompts.",
    "last_successful_prompt": "The most recent prompt that worked for them.",
    "last_barrier": "The most recent thing that got in the way.",
    "last_motivator": "The most recent thing that helped.",
    "last_tweak": "The most recent change they asked for.",
}


def _collect_changes(args: ToolArguments) -> tuple[dict[str, str], list[str]]:
    changes: dict[str, str] = {}
    ignored: list[str] = []
    for key in args:
        name = ALIASES.get(key, key)
        if key in TONE_ARGUMENTS:
            continue
        if name in HABIT_FIELDS:
            value = optional_string(args, key)
            if len(value) > PROFILE_FIELD_CHARS:
                raise ToolArgumentError(
                    f"'{key}' is {len(value):,} characters; a profile field holds at most {PROFILE_FIELD_CHARS:,}. "
                    "Save the gist in a sentence or two"
                )
            if value or name not in changes:
                changes[name] = value
        else:
            ignored.append(key)
    return changes, ignored


class ToneReport(TypedDict):
    outcome: str
    active_tags: list[str]
    unknown_tags_ignored: NotRequired[list[str]]
    note: NotRequired[str]


class SaveReport(TypedDict):
    """What the model is told after a save (as JSON, after the status line)."""

    updated_fields: list[str]
    ignored_arguments: list[str]
    still_missing_for_intake: list[str]
    profile: dict[str, str]
    tone: NotRequired[ToneReport]


def propose_tone(state: TurnState, args: ToolArguments, now: datetime) -> ToneReport | None:
    """Validate a tone proposal and apply it; returns what the model is told (None: no proposal)."""
    if "tone_tags" not in args:
        return None
    try:
        proposal = tone.validate_proposal(args.get("tone_tags"), args.get("tone_update_source"))
    except ValueError as exc:
        raise ToolArgumentError(f"'tone_tags': {exc}") from None
    update = tone.apply_proposal(tone.ToneState.from_json(state.tone), proposal, now)
    state.tone_updates.append(update)
    if update.outcome == tone.ToneOutcome.APPLIED:
        state.tone = update.after.to_json()
    report: ToneReport = {"outcome": update.outcome, "active_tags": list(update.after.active)}
    if proposal.stripped:
        report["unknown_tags_ignored"] = list(proposal.stripped)
    if update.outcome == tone.ToneOutcome.RATE_LIMITED:
        report["note"] = "an inferred tone change was made a moment ago; this one was not applied"
    return report


async def _save(ctx: ToolContext, args: ToolArguments) -> str:
    changes, ignored = _collect_changes(args)
    has_tone = "tone_tags" in args
    if not changes and ignored and not has_tone:
        raise ToolArgumentError(
            f"none of {', '.join(sorted(ignored))} is a profile field; use {', '.join(HABIT_FIELDS)}"
        )
    state, now = ctx.state, ctx.now()
    tone_report = propose_tone(state, args, now)
    habit = state.profile.habit
    updated = habit.merge(changes)
    if updated:
        state.profile.record.updated_at = now.isoformat()
        if "last_barrier" in updated:  # the newest few, with their local day, for the feedback conversation
            local_day = now.astimezone(zone_or_utc(state.timezone)).date().isoformat()
            state.profile.record.note_barrier(local_day, habit.last_barrier)
    missing = state.missing_fields(INTAKE_FIELDS)
    if updated:
        status = f"SAVED {len(updated)} field(s): {', '.join(updated)}."
    elif changes:
        status = "NO CHANGE: the profile already had these values."
    else:
        status = "NO PROFILE FIELDS sent; the tone proposal is reported below."
    report: SaveReport = {"updated_fields": updated, "ignored_arguments": ignored, "still_missing_for_intake": missing,
                          "profile": habit.filled()}
    if tone_report is not None:
        report["tone"] = tone_report
    return f"{status}\n{json.dumps(report, ensure_ascii=False)}"


SAVE_USER_PROFILE = Tool(
    name="save_user_profile",
    description=(
        "Save what you learned about the participant's habit plan. Send only the fields you "
        "learned or that changed; empty values are ignored, so nothing is erased by leaving a "
        f"field out. Keep each field short (at most {PROFILE_FIELD_CHARS} characters: the gist, not a "
        "transcript). Call it whenever the participant tells you something worth keeping."
    ),
    parameters=arguments({name: {"type": "string", "description": text} for name, text in _DESCRIPTIONS.items()}),
    handler=_save,
)
