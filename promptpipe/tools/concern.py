"""``flag_concern``: the model raises a safety concern a phrase list cannot catch; the participant gets the study's
safety message at once, before the model's reply."""

from __future__ import annotations

from promptpipe.domain.limits import FLAG_REASON_CHARS
from promptpipe.domain.safety import FlagSource, NewFlag, Severity
from promptpipe.errors import ToolArgumentError
from promptpipe.tools.base import Tool, ToolArguments, ToolContext, arguments, optional_string


async def _flag(ctx: ToolContext, args: ToolArguments) -> str:
    severity = optional_string(args, "severity").lower()
    if severity not in tuple(Severity):
        raise ToolArgumentError(f"'severity' must be one of {', '.join(Severity)}")
    reason = optional_string(args, "reason")
    if not reason:
        raise ToolArgumentError("'reason' is required: say in a few words what worries you")
    ctx.state.flags.append(NewFlag(source=FlagSource.MODEL, severity=Severity(severity),
                                   trigger=reason[:FLAG_REASON_CHARS]))
    return ("Flag recorded for the research team. The participant is sent the study's safety message "
            "before your reply; reply with care, briefly, and do not repeat the safety information.")


FLAG_CONCERN = Tool(
    name="flag_concern",
    description=(
        "Alert the research team that the participant may be at risk: thoughts of self-harm or suicide, "
        "being in danger, a medical emergency, or serious distress, even when said indirectly. The "
        "participant is sent the study's safety message at once. Use it whenever in doubt; never for "
        "ordinary frustration with the habit."
    ),
    parameters=arguments({
        "severity": {"type": "string", "enum": list(Severity),
                     "description": "high: possible immediate risk; medium: worrying; low: worth a look."},
        "reason": {"type": "string", "description": "What worries you, in a few words (for the team)."},
    }, "severity", "reason"),
    handler=_flag,
)
