"""A simulated participant for the tests: plays whatever persona its system prompt describes, in the persona's
language, and says the lines a test gives it on given study days. The coach never sees who it plays: only what it
writes."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from promptpipe.llm import Completion, Message, ToolSpec

__all__ = ["FakePlayer", "intake_line"]

_INTAKE = {
    "English": "I'd like to build this habit: {habit}, {anchor}, around {time}, because {why}.",
    "Spanish": "Quiero crear este hábito: {habit}, {anchor}, hacia las {time}, porque {why}.",
    "Portuguese": "Quero criar este hábito: {habit}, {anchor}, por volta das {time}, porque {why}.",
    "French": "Je veux prendre cette habitude : {habit}, {anchor}, vers {time}, parce que {why}.",
    "German": "Ich möchte mir diese Gewohnheit aufbauen: {habit}, {anchor}, um {time}, weil {why}.",
}
_HOW_IT_WENT = {
    "English": ("Done today, it felt good.", "Not today, I was too tired after work."),
    "Spanish": ("Hoy lo hice, me sentí bien.", "Hoy no, estaba demasiado cansada."),
    "Portuguese": ("Consegui hoje, me senti bem.", "Hoje não deu, estava cansada demais."),
    "French": ("Fait aujourd'hui, ça m'a fait du bien.", "Pas aujourd'hui, j'étais trop fatiguée."),
    "German": ("Heute geschafft, es hat gutgetan.", "Heute nicht, ich war zu müde nach der Arbeit."),
}
_ASKS = re.compile(r"\?\s*$|\btell me\b", re.IGNORECASE)


def intake_line(habit: str, anchor: str, time: str, why: str, language: str = "English") -> str:
    """How the fake participant answers the greeting: the habit, its moment, a time and a reason, in one line."""
    return _INTAKE.get(language, _INTAKE["English"]).format(habit=habit, anchor=anchor, time=time, why=why)


class FakePlayer:
    """Taps the first option of a waiting poll on a day they did the habit (the last one otherwise); gives the intake
    facts in one line once; says its line for the study day, if ``lines`` gives one (by persona name, then study
    day); answers a question or an invitation to tell how it went, once (not again right after writing); otherwise
    stays silent."""

    def __init__(self, lines: Mapping[str, Mapping[int, str]] | None = None) -> None:
        self.lines = lines or {}

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, *,
                       seed: int | None = None) -> Completion:
        system = str(messages[0]["content"])
        language = _line(system, "Language").split(".")[0]
        mine = [move for m in messages[1:] if m["role"] == "assistant" for move in _moves(str(m["content"]))]
        said = {move.get("text") for move in mine}
        options = re.search(r"Its options: (.+?)\. You may", system)
        did = "Today you did your habit" in system
        if options:
            choices = re.findall(r'"([^"]+)"', options[1])
            return _move({"action": "tap", "options": [choices[0] if did else choices[-1]]})
        if not said & {intake_line(*_facts(system), language=language)}:
            return _move({"action": "write", "text": intake_line(*_facts(system), language=language)})
        day = re.search(r"It is day (\d+) of the study", system)
        line = self.lines.get(_line(system, "Name"), {}).get(int(day[1]) if day else -1)
        if line and line not in said:
            return _move({"action": "write", "text": line})
        if mine[-1].get("action") != "write" and any(_ASKS.search(text) for text in _since_written(messages)):
            done, not_done = _HOW_IT_WENT.get(language, _HOW_IT_WENT["English"])
            return _move({"action": "write", "text": done if did else not_done})
        return _move({"action": "silent"})


def _since_written(messages: Sequence[Message]) -> list[str]:
    """What the study sent since the participant last wrote (a tap is not writing)."""
    sent: list[str] = []
    for message in reversed(messages[1:]):
        if message["role"] == "assistant" and any(move.get("action") == "write"
                                                  for move in _moves(str(message["content"]))):
            break
        if message["role"] == "user":
            sent.append(str(message["content"]))
    return sent


def _facts(system: str) -> tuple[str, str, str, str]:
    """The habit, its moment, the time and the reason, as the persona's prompt gives them."""
    return (_line(system, "The habit you want to build"),
            _line(system, "The moment of your day the habit fits after"),
            _line(system, "When you would like the daily reminder").split(" ")[0],
            _line(system, "Why it matters to you"))


def _line(text: str, label: str) -> str:
    found = re.search(rf"- {re.escape(label)}: (.+)", text)
    return found[1].strip() if found else ""


def _moves(content: str) -> list[dict[str, Any]]:
    """The moves an assistant message holds (the player's moves in a row are joined, one a line)."""
    moves = []
    for line in content.splitlines():
        try:
            move = json.loads(line)
        except ValueError:
            continue
        if isinstance(move, dict):
            moves.append(move)
    return moves


def _move(move: dict[str, Any]) -> Completion:
    return Completion(json.dumps(move, ensure_ascii=False), prompt_tokens=300, completion_tokens=15)
