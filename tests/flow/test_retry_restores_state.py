"""A turn asked again with less context (the model could not take the first request) starts from the state as it was
before its first attempt: whatever the first attempt's tools changed is gone, and the copy shares nothing with it."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, cast

from promptpipe.domain.conversation import ScheduleEntry
from promptpipe.domain.profile import Barrier
from promptpipe.domain.states import Stage
from promptpipe.errors import ContextTooLong
from promptpipe.flow.conversation import restorer
from promptpipe.llm import Completion, ToolCall
from promptpipe.questionnaires.rules.definition import OpenQuestionnaire
from tests.flow.in_memory import Decider, ScriptedModel, participant

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


class _ToolThenTooLong:
    """A model whose first attempt saves a habit, then finds the request too long; asked again, it answers."""

    def __init__(self) -> None:
        self.asked = 0

    async def complete(self, messages: Sequence[dict[str, Any]],
                       tools: Sequence[dict[str, Any]] | None = None) -> Completion:
        self.asked += 1
        if self.asked == 1:
            return Completion(None, (ToolCall("c1", "save_user_profile", '{"habit_domain": "walking"}'),))
        if self.asked == 2:
            raise ContextTooLong("the request is too long for the model")
        return Completion("What would you like to work on?")


async def test_a_habit_saved_by_an_attempt_cut_short_is_not_kept() -> None:
    """The participant never confirmed it in the answer they got: the profile shows what the retry saved, nothing."""
    model = _ToolThenTooLong()
    state = participant(stage=Stage.INTAKE)

    decided = await Decider(cast(ScriptedModel, model)).messages(state, "I'd like to walk more")

    assert decided.replies == ["What would you like to work on?"]
    assert model.asked == 3
    assert decided.state.profile.habit.habit_domain == ""
