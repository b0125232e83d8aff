"""The admin script's operations in one place. Each works whether or not ``serve`` runs: it writes rows to the shared
database and the service picks them up within seconds."""

from __future__ import annotations

from promptpipe.research._common import find, researcher_name, validate_phone, validate_text, validate_timezone
from promptpipe.research.changes import (
    STATUS_COMMANDS,
    Enrolment,
    enroll,
    send_prompt_now,
    set_status,
    set_timezone,
    update_participant,
)
from promptpipe.research.messaging import broadcast, broadcast_count, broadcast_preview, send_message
from promptpipe.research.reports import list_participants, pending_timers, schedules, show, transcript
from promptpipe.research.simulate import REACTION_TARGETS, refuse_if_live, simulate, simulate_reaction, simulate_vote
from promptpipe.study.operations import allocation_counts, extend

__all__ = ["REACTION_TARGETS", "STATUS_COMMANDS", "Enrolment", "allocation_counts", "broadcast", "broadcast_count",
           "broadcast_preview", "enroll", "extend", "find", "list_participants", "pending_timers", "refuse_if_live",
           "researcher_name", "schedules", "send_message", "send_prompt_now", "set_status", "set_timezone", "show",
           "simulate", "simulate_reaction", "simulate_vote", "transcript", "update_participant", "validate_phone",
           "validate_text", "validate_timezone"]
