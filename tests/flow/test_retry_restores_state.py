"""A turn asked again with less context (the model could not take the first request) starts from the state as it was
before its first attempt: whatever the first attempt's tools changed is gone, and the copy shares nothing with it."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from promptpipe.domain.conversation import ScheduleEntry
from promptpipe.domain.profile import Barrier
from promptpipe.flow.conversation import restorer
from promptpipe.questionnaires.rules.definition import OpenQuestionnaire
from tests.flow.in_memory import participant

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_a_retry_starts_from_the_state_before_the_first_attempt() -> None:
    state = participant()
    state.schedules.append(ScheduleEntry("s1", "fixed", "08:00", None, None, 10))
    state.profile.record.recent_barriers.append(Barrier("2026-03-01", "rain"))
    state.questionnaires.open = OpenQuestionnaire(1, "phq", "q1", NOW, codes={"q1": [1]})
    state.said_at = NOW
    before = copy.deepcopy(state)
    restore = restorer(state)

    # what a first attempt's tools may do, down to the nested lists and dicts
    state.profile.habit.habit_domain = "walking"
    state.profile.record.recent_barriers.append(Barrier("2026-03-02", "tired"))
    state.profile.record.counters["prompts"] = 3
    state.schedules[0].habit_time, state.schedules[0].dirty = "09:00", True
    state.questionnaires.open.codes["q1"].append(2)
    state.arm_timer("reminder", NOW)
    state.sub_state = "INTAKE"
    state.turns_since_summary += 1

    restore()
    assert state == before
    # the restored state is a copy of its own: changing it again leaves a second retry's starting point alone
    state.schedules[0].habit_time = "10:00"
    state.profile.record.counters["prompts"] = 4
    restore()
    assert state == before
