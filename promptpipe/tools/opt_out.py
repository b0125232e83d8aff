"""``opt_out``: the participant asked, in words the STOP commands cannot catch, to stop getting messages. The reply is
the server's own STOP confirmation, whatever the model wrote, so the loop ends after this call."""

from __future__ import annotations

from promptpipe.domain import transitions
from promptpipe.domain.states import Status
from promptpipe.domain.transition_log import Actor
from promptpipe.tools.base import Tool, ToolArguments, ToolContext, arguments, optional_string


async def _opt_out(ctx: ToolContext, args: ToolArguments) -> str:
    state = ctx.state
    if state.status == Status.WITHDRAWN:
        return "The participant is withdrawn from the study already; nothing is sent to them."
    if state.opted_out:
        return "The participant has opted out already; nothing more will be sent."
    reason = optional_string(args, "reason")[:200] or "asked to stop in their own words"
    if not transitions.apply(state, "opted_out", actor=Actor.MODEL, reason=f"opted out through the assistant: {reason}",
                             words="\n".join(ctx.inbound)):
        return ("Not changed: the participant sent START after writing this (by their phone's clock), so they "
                "stay subscribed. Answer them normally.")
    ctx.ends_turn = True
    return "Done: the participant is opted out. The server sends them the confirmation; write nothing more."


OPT_OUT = Tool(
    name="opt_out",
    description=(
        "Stop every message to the participant (daily prompts, reminders, check-ins) because they "
        "clearly asked not to be contacted any more, in their own words, e.g. 'please stop texting me' "
        "or 'I don't want these messages'. Not for a hard day, a wish for fewer or different prompts "
        "(change the schedule instead) or a question about stopping: ask first if unsure. The server "
        "confirms it to them and tells them how to start again."
    ),
    parameters=arguments({"reason": {"type": "string", "description": "What they said, in a few words."}}),
    handler=_opt_out,
)
