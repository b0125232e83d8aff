"""The values a participant's state takes: status, conversation sub-state, and a daily vote."""

from __future__ import annotations

ACTIVE, PAUSED, COMPLETED, WITHDRAWN = "active", "paused", "completed", "withdrawn"
"""A participant's status: ``paused`` while their own STOP or a researcher's pause holds (see
:mod:`promptpipe.domain.transitions`); ``completed`` after their last study day (a researcher's
extension can reopen it); ``withdrawn`` is final."""

ALARMED = (ACTIVE, PAUSED)
"""Statuses whose daily alarms still ring: a paused participant's prompt time is still a decision
point (recorded as unavailable; nothing is sent)."""

INTAKE, FEEDBACK, INTAKE_SUSPENDED = "INTAKE", "FEEDBACK", "INTAKE_SUSPENDED"
SUB_STATES = (INTAKE, FEEDBACK, INTAKE_SUSPENDED)
"""Which conversation module answers: intake (gathering the habit plan) or feedback.
``INTAKE_SUSPENDED``: intake on hold because the participant said "later" or went quiet; it
resumes (with intake) when they write again."""
INTAKE_STAGES = (INTAKE, INTAKE_SUSPENDED)

VOTE_DONE, VOTE_NOT_THIS_TIME = "done", "not_this_time"
"""The participant's answer on a daily prompt's "did you do it?" poll."""
