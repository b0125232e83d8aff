"""The running summary: older turns folded into a few paragraphs, so the model reads a bounded window of messages."""

from __future__ import annotations

from collections.abc import Sequence

from promptpipe.domain.conversation import HistoryEntry
from promptpipe.domain.limits import MODEL_CHARS_PER_HISTORY_ENTRY, SUMMARY_CHARS
from promptpipe.domain.text import cap_at_word, shorten
from promptpipe.llm import LLM, Message

SPEAKERS = {"user": "Participant", "assistant": "Coach"}


def summary_request(system_prompt: str, previous: str, older: Sequence[HistoryEntry], name: str) -> list[Message]:
    transcript = "\n".join(f"{SPEAKERS.get(entry.role, entry.role)}: "
                           f"{shorten(entry.text, MODEL_CHARS_PER_HISTORY_ENTRY)}" for entry in older)
    user = "\n\n".join([
        f"Participant: {name or 'unnamed'}",
        "Summary so far:\n" + (previous.strip() or "(none yet)"),
        "Messages to fold in (oldest first):\n" + transcript,
        "Write the updated summary now.",
    ])
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": user}]


async def fold_into_summary(llm: LLM, system_prompt: str, previous: str, older: Sequence[HistoryEntry],
                            name: str) -> str:
    """The previous summary with ``older`` folded in; an empty answer keeps it (the caller keeps showing them)."""
    completion = await llm.complete(summary_request(system_prompt, previous, older, name))
    text = (completion.content or "").strip()
    if not text:
        raise ValueError("the summary writer returned nothing")
    return cap_at_word(text, SUMMARY_CHARS)
