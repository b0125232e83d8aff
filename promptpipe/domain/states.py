"""The values a participant's state takes: status, conversation sub-state, and a daily vote."""

from __future__ import annotations

ACTIVE, PAUSED, COMPLETED, WITHDRAWN = "active", "paused", "completed", "withdrawn"
"""A participant's status: ``paused`` while their own STOP or a researcher's pause holds (see
:mod:`promptpipe.domain.transitions`); ``withdrawn`` is final."""

INTAKE, FEEDBACK = "INTAKE", "FEEDBACK"
SUB_STATES = (INTAKE, FEEDBACK)
"""Which conversation module answers: intake (gathering the habit plan) or feedback."""

VOTE_DONE, VOTE_NOT_THIS_TIME = "done", "not_this_time"
"""The participant's answer on a daily prompt's "did you do it?" poll."""
