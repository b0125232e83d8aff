"""The simulated participant: what the model is shown and how its answers become moves."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from promptpipe.domain.limits import INBOUND_CHARS
from promptpipe.errors import AdminError
from promptpipe.evaluation.personas import Persona
from promptpipe.evaluation.player import ModelPlayer, Move, MoveKind
from promptpipe.evaluation.records import Said, TokenCount
from promptpipe.llm import Completion


class ScriptedLLM:
    """Answers each request with the next scripted text and keeps what it was asked."""

    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.requests: list[list[dict[str, Any]]] = []

    async def complete(self, messages: Sequence[dict[str, Any]],
                       tools: Sequence[dict[str, Any]] | None = None, *, seed: int | None = None) -> Completion:
        self.requests.append(list(messages))
        return Completion(self.answers.pop(0), prompt_tokens=120, completion_tokens=8)


PERSONA = Persona("Lucía", "estirar cinco minutos", "21:30", "después de cenar", "dormir mejor {y} $más",
                  timezone="Europe/Madrid", language="Spanish", style="todo en minúsculas", mood="cansada",
                  traits=("terse", "night owl"))
AT = datetime(2026, 3, 2, 20, 30, tzinfo=UTC)
POLL = Said(AT, False, "poll", "¿Lo hiciste hoy?", ("Sí", "Todavía no", "Hoy no"))
CONVERSATION = (
    Said(AT, False, "greeting", "Hola, soy tu coach."),
    Said(AT, True, "text", "hola"),
    Said(AT, False, "habit_prompt", "Hora de estirar."),
    POLL,
)


async def _move(answer: str | None, open_poll: Said | None = POLL, **kwargs: Any) -> tuple[Move, ScriptedLLM]:
    llm = ScriptedLLM(answer)
    move, tokens = await ModelPlayer(llm).move(PERSONA, CONVERSATION, study_day=3, did_habit=kwargs.get("did", True),
                                               open_poll=open_poll)
    assert tokens == TokenCount(1, 120, 8)
    return move, llm


@pytest.mark.parametrize(("answer", "expected"), [
    ('{"action": "write", "text": "  vale, luego  "}', Move(MoveKind.WRITE, "vale, luego")),
    ('Sure:\n```json\n{"action": "write", "text": "ok"}\n```', Move(MoveKind.WRITE, "ok")),
    ('I will answer {"action": "silent"} now.', Move(MoveKind.SILENT)),
    ("ya lo hice", Move(MoveKind.WRITE, "ya lo hice")),
    ('{"action": "tap", "options": ["sí"]}', Move(MoveKind.TAP, options=("Sí",))),
    ('{"action": "tap", "options": "TODAVÍA NO"}', Move(MoveKind.TAP, options=("Todavía no",))),
    ('{"action": "tap", "options": ["Maybe"], "text": "no sé"}', Move(MoveKind.WRITE, "no sé")),
    ('{"action": "tap", "options": ["Maybe"]}', Move(MoveKind.SILENT)),
    ('{"action": "write", "text": "   "}', Move(MoveKind.SILENT)),
    ("", Move(MoveKind.SILENT)),
    (None, Move(MoveKind.SILENT)),
    ('{"action": "write", "text": "se me cortó', Move(MoveKind.WRITE, "se me cortó")),
])
async def test_each_kind_of_answer_becomes_a_move(answer: str | None, expected: Move) -> None:
    move, _ = await _move(answer)
    assert move == expected


async def test_a_tap_without_an_open_poll_is_written_or_silent() -> None:
    written = (await _move('{"action": "tap", "options": ["Sí"], "text": "sí"}', open_poll=None))[0]
    assert written == Move(MoveKind.WRITE, "sí")
    assert (await _move('{"action": "tap", "options": ["Sí"]}', open_poll=None))[0] == Move(MoveKind.SILENT)


async def test_a_long_message_is_capped() -> None:
    move, _ = await _move('{"action": "write", "text": "' + "a" * (INBOUND_CHARS + 50) + '"}')
    assert move.kind == "write" and len(move.text) == INBOUND_CHARS


async def test_the_model_sees_the_persona_the_day_and_the_poll() -> None:
    _, llm = await _move('{"action": "silent"}', did=False)
    (request,) = llm.requests
    system = request[0]
    assert system["role"] == "system"
    for fact in ("Lucía", "estirar cinco minutos", "21:30", "después de cenar", "dormir mejor {y} $más",
                 "Europe/Madrid", "Spanish", "todo en minúsculas", "cansada", "terse", "night owl", "day 3"):
        assert fact in system["content"]
    assert "not done" in system["content"]
    assert '"Todavía no"' in system["content"]  # the open poll and its options
    roles = [message["role"] for message in request[1:]]
    assert roles == ["user", "assistant", "user"]
    assert "hola" in request[2]["content"]
    last = request[3]["content"]
    assert "Hora de estirar." in last and "¿Lo hiciste hoy?" in last and '"Hoy no"' in last
    assert "[Mon 21:30]" in last  # the study's messages carry the persona's local time


async def test_a_tap_in_the_history_is_shown_as_a_tap() -> None:
    llm = ScriptedLLM('{"action": "silent"}')
    conversation = (*CONVERSATION, Said(AT, True, "vote", "", ("Sí",)))
    await ModelPlayer(llm).move(PERSONA, conversation, study_day=3, did_habit=True, open_poll=None)
    request = llm.requests[0]
    assert '"tap"' in request[4]["content"] and request[4]["role"] == "assistant"
    assert request[-1]["role"] == "user"  # the model is always answering something


async def test_a_custom_template_is_filled_and_a_bad_one_refused() -> None:
    llm = ScriptedLLM('{"action": "silent"}')
    player = ModelPlayer(llm, system_template="You are $name; {braces} stay. $$5")
    await player.move(PERSONA, CONVERSATION, study_day=1, did_habit=True, open_poll=None)
    assert llm.requests[0][0]["content"] == "You are Lucía; {braces} stay. $5"
    with pytest.raises(AdminError, match=r"\$nickname"):
        ModelPlayer(llm, system_template="Hi $nickname")
