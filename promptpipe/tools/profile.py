"""``save_user_profile``: the model records what it learned; the server decides what changes."""

from __future__ import annotations

import json
from typing import Any

from promptpipe.errors import ToolArgumentError
from promptpipe.state import INTAKE_FIELDS, PROFILE_FIELDS
from promptpipe.tools.base import Tool, ToolContext, optional_string

ALIASES = {"last_blocker": "last_barrier"}

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


def merge_profile(profile: dict[str, Any], changes: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Only non-empty values that differ from what is stored overwrite it."""
    merged = dict(profile)
    updated: list[str] = []
    for name, value in changes.items():
        if value and merged.get(name) != value:
            merged[name] = value
            updated.append(name)
    return merged, updated


def _collect_changes(args: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    changes: dict[str, str] = {}
    ignored: list[str] = []
    for key in args:
        name = ALIASES.get(key, key)
        if name in PROFILE_FIELDS:
            value = optional_string(args, key)
            if value or name not in changes:
                changes[name] = value
        else:
            ignored.append(key)
    return changes, ignored


async def _save(ctx: ToolContext, args: dict[str, Any]) -> str:
    changes, ignored = _collect_changes(args)
    if not changes and ignored:
        raise ToolArgumentError(
            f"none of {', '.join(sorted(ignored))} is a profile field; use {', '.join(PROFILE_FIELDS)}"
        )
    merged, updated = merge_profile(ctx.state.profile, changes)
    if updated:
        merged["updated_at"] = ctx.now().isoformat()
        ctx.state.profile = merged
    missing = ctx.state.missing_fields(INTAKE_FIELDS)
    status = (
        f"SAVED {len(updated)} field(s): {', '.join(updated)}." if updated else "NO CHANGE: the profile already had these values."
    )
    report = {
        "updated_fields": updated,
        "ignored_arguments": ignored,
        "still_missing_for_intake": missing,
        "profile": {name: merged.get(name) for name in PROFILE_FIELDS if merged.get(name)},
    }
    return f"{status}\n{json.dumps(report, ensure_ascii=False)}"


SAVE_USER_PROFILE = Tool(
    name="save_user_profile",
    description=(
        "Save what you learned about the participant's habit plan. Send only the fields you "
        "learned or that changed; empty values are ignored, so nothing is erased by leaving a "
        "field out. Call it whenever the participant tells you something worth keeping."
    ),
    parameters={
        "type": "object",
        "properties": {name: {"type": "string", "description": text} for name, text in _DESCRIPTIONS.items()},
        "additionalProperties": False,
    },
    handler=_save,
)
