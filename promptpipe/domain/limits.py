"""Every length and count cap, spelled once (the README's "Limits" lists them), so one participant, model answer or
researcher's typo cannot grow what later turns send to the model, what goes out on WhatsApp, or a spreadsheet."""

from __future__ import annotations

MODEL_CHARS_PER_MESSAGE = 4_000
"""What the model sees of one inbound message (the transcript keeps it whole)."""
MODEL_CHARS_PER_BATCH = 12_000
"""What the model sees of the messages answered in one turn together; the newest keep the most."""
MODEL_CHARS_PER_HISTORY_ENTRY = 2_000
"""What the model sees of one older message in its history window."""
CONTEXT_REJECTIONS_BEFORE_FAILING = 3
"""Turns refused as too long for the model's context (each retried shorter) before the inputs are marked failed."""

REPLY_CHARS = 2_000
"""One message the model writes for a participant (cut at a whole sentence)."""
PROFILE_FIELD_CHARS = 1_000
"""One free-text profile field saved by the model."""
SUMMARY_CHARS = 4_000
"""The running summary of older conversation."""
FLAG_REASON_CHARS = 500
"""The reason the model gives when it flags a concern."""

NAME_CHARS = 100
"""A participant's name (enroll, or the WhatsApp name of an auto-enrolled sender)."""
BACKGROUND_CHARS = 2_000
"""A researcher's notes about a participant."""
REASON_CHARS = 500
"""A researcher's reason for pausing, resuming or withdrawing someone."""
RESEARCHER_MESSAGE_CHARS = 4_096
"""A message the research team writes to participants (``send``, ``broadcast``)."""
INBOUND_CHARS = 65_536
"""One message, as WhatsApp itself allows; ``simulate`` refuses longer ones."""

DEFAULT_MAX_SCHEDULES = 3
"""MAX_SCHEDULES_PER_PARTICIPANT's default: daily prompt schedules one participant may have."""
