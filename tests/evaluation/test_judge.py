"""The judge model: what it is shown, how its answer is read, and quotes checked against the chat."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from promptpipe.errors import LLMUnavailable
from promptpipe.evaluation.judge import CRITERIA, Judge, render_transcript
from promptpipe.evaluation.records import Conversation, Said, Source
from promptpipe.llm import Completion


def said(day: int, hour: int, minute: int, incoming: bool, text: str, kind: str = "text",
         options: tuple[str, ...] = ()) -> Said:
    return Said(datetime(2026, 3, day, hour, minute, tzinfo=UTC), incoming, kind, text, options)


def conversation(*messages: Said) -> Conversation:
    return Conversation(id="persona:sam", source=Source.PERSONA, label="Sam", group="terse",
                        timezone="America/Toronto", messages=messages, tool_uses=(), profile={},
                        schedule_times=(), status="active", stage="FEEDBACK", flags=(), quiet_hours=None,
                        study_days=2)


CHAT = conversation(
    said(2, 14, 0, False, "Hi Sam! What small habit would you like to build?", "greeting"),
    said(2, 14, 5, True, "walk   after lunch"),
    said(3, 13, 30, False, "Time for your walk. How did it go?", "prompt"),
    said(3, 13, 31, False, "Did you do it?", "poll", ("Yes", "Not today")),
    said(3, 13, 40, True, "", "poll_vote", ("Not today",)),
)


class FakeLLM:
    """Answers each request with the next scripted text and keeps what it was sent."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.requests: list[Sequence[dict[str, Any]]] = []

    async def complete(self, messages: Sequence[dict[str, Any]],
                       tools: Sequence[dict[str, Any]] | None = None, *, seed: int | None = None) -> Completion:
        self.requests.append(list(messages))
        return Completion(content=self.answers.pop(0), prompt_tokens=100, completion_tokens=20)


def answer(**overrides: object) -> str:
    scores: dict[str, object] = {c.name: {"score": 4, "evidence": "What small habit would you like to build?",
                                          "reason": "fine"} for c in CRITERIA}
    scores.update(overrides)
    return json.dumps(scores)


def test_the_transcript_shows_study_day_local_time_speaker_and_polls() -> None:
    lines = render_transcript(CHAT).splitlines()
    assert lines[0] == "[day 1, Mon 09:00] Study (greeting): Hi Sam! What small habit would you like to build?"
    assert lines[1] == "[day 1, Mon 09:05] Participant: walk   after lunch"
    assert lines[2] == "[day 2, Tue 08:30] Study (habit prompt): Time for your walk. How did it go?"
    assert lines[3:5] == ["[day 2, Tue 08:31] Study (poll): Did you do it?", "    options: Yes | Not today"]
    assert lines[5] == "[day 2, Tue 08:40] Participant (tapped): Not today"


async def test_a_good_answer_gives_every_criterion_with_its_checked_quote() -> None:
    llm = FakeLLM(answer(tone={"score": 5, "evidence": '"walk after LUNCH"', "reason": "short"}))
    scores, tokens = await Judge(llm, "fake#1").score(CHAT)
    assert [s.criterion for s in scores] == [c.name for c in CRITERIA]
    assert all(s.score is not None and s.evidence_found and s.judge == "fake#1" for s in scores)
    assert next(s for s in scores if s.criterion == "tone").score == 5
    assert (tokens.requests, tokens.total) == (1, 120)
    system, user = llm.requests[0]
    assert system["role"] == "system" and "motivational interviewing" in system["content"]
    assert "[day 2, Tue 08:30] Study (habit prompt)" in user["content"]


async def test_a_fenced_answer_with_prose_around_it_is_read() -> None:
    scores, _ = await Judge(FakeLLM(f"Here is my review:\n```json\n{answer()}\n```\nThanks!"), "j").score(CHAT)
    assert all(s.score == 4 for s in scores)


async def test_a_missing_or_unusable_criterion_is_none_with_the_reason() -> None:
    data = json.loads(answer(accuracy={"score": 9, "evidence": "", "reason": ""}))
    del data["tone"]
    scores = {s.criterion: s for s in (await Judge(FakeLLM(json.dumps(data)), "j").score(CHAT))[0]}
    assert scores["tone"].score is None and "no score for tone" in scores["tone"].reason
    assert scores["accuracy"].score is None and "1 to 5" in scores["accuracy"].reason
    assert scores["autonomy"].score == 4


async def test_an_invented_quote_is_reported_as_not_found() -> None:
    scores, _ = await Judge(FakeLLM(answer(accuracy={"score": 2, "evidence": "take 400 mg of ibuprofen"})),
                            "j").score(CHAT)
    accuracy = next(s for s in scores if s.criterion == "accuracy")
    assert accuracy.score == 2 and not accuracy.evidence_found
    quoted = next(s for s in scores if s.criterion == "tone")
    assert quoted.evidence_found


async def test_quotes_with_ellipses_and_labels_are_found_in_one_message() -> None:
    llm = FakeLLM(answer(tone={"score": 4, "evidence": "Study: Hi Sam! … would you like …"},
                         autonomy={"score": 4, "evidence": "Hi Sam ... How did it go?"}))
    scores = {s.criterion: s for s in (await Judge(llm, "j").score(CHAT))[0]}
    assert scores["tone"].evidence_found
    assert not scores["autonomy"].evidence_found  # the parts are in two different messages


async def test_an_unreadable_answer_is_asked_again_once() -> None:
    llm = FakeLLM("I think the coach did well overall.", answer())
    scores, tokens = await Judge(llm, "j").score(CHAT)
    assert all(s.score == 4 for s in scores) and tokens.requests == 2
    llm = FakeLLM("no idea", "still no idea")
    scores, _ = await Judge(llm, "j").score(CHAT)
    assert all(s.score is None and "no JSON" in s.reason for s in scores)


async def test_a_conversation_the_study_never_wrote_in_is_not_sent() -> None:
    llm = FakeLLM()
    scores, tokens = await Judge(llm, "j").score(conversation(said(2, 14, 0, True, "hello?")))
    assert llm.requests == [] and tokens.requests == 0
    assert all(s.score is None and "nothing to judge" in s.reason for s in scores)


async def test_an_unreachable_model_is_left_to_the_runner() -> None:
    class Down:
        async def complete(self, messages: Sequence[dict[str, Any]],
                           tools: Sequence[dict[str, Any]] | None = None, *, seed: int | None = None) -> Completion:
            raise LLMUnavailable("connection refused")

    with pytest.raises(LLMUnavailable):
        await Judge(Down(), "j").score(CHAT)
