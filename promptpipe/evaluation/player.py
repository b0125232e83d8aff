"""The simulated participant: a model plays a :class:`~.personas.Persona` texting the coach, one move at a time (write a
message, tap a poll's options, or stay silent), its answer read leniently (:func:`parse_move`)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from promptpipe.domain.limits import INBOUND_CHARS
from promptpipe.errors import AdminError
from promptpipe.evaluation.model_json import fenced, json_objects
from promptpipe.evaluation.personas import TRAIT_NOTES, Persona
from promptpipe.evaluation.records import Said, TokenCount
from promptpipe.logging import get_logger

if TYPE_CHECKING:
    from promptpipe.llm import LLM, Message

__all__ = ["PLACEHOLDERS", "ModelPlayer", "Move", "MoveKind", "parse_move", "system_prompt"]

log = get_logger("promptpipe.evaluation.player")

SYSTEM_TEMPLATE_PATH = Path(__file__).resolve().parents[1] / "data" / "evaluation" / "player_system.txt"
PLACEHOLDERS = ("name", "habit", "preferred_time", "anchor", "motivation", "timezone", "language", "style", "mood",
                "traits", "background", "study_day", "today", "poll", "length")
"""What a player prompt template may use, as ``$name``."""


class MoveKind(StrEnum):
    WRITE = "write"
    TAP = "tap"
    SILENT = "silent"


@dataclass(frozen=True)
class Move:
    kind: MoveKind
    text: str = ""
    options: tuple[str, ...] = ()
    """``tap``: the open poll's options tapped, spelled as the poll spells them."""


SILENT = Move(MoveKind.SILENT)


def _check_template(template: str) -> Template:
    compiled = Template(template)
    try:
        compiled.substitute({key: "" for key in PLACEHOLDERS})
    except KeyError as exc:
        raise AdminError(f"the player's prompt template uses ${exc.args[0]}, which is not one of "
                         f"{', '.join('$' + key for key in PLACEHOLDERS)}") from exc
    except ValueError as exc:  # a lone "$" or "${": write "$$" for a dollar sign
        raise AdminError(f"the player's prompt template has a stray $ ({exc}); write $$ for a dollar sign") from exc
    return compiled


def _traits_text(persona: Persona) -> str:
    if not persona.traits:
        return "nothing out of the ordinary"
    return "; ".join(f"{trait} ({TRAIT_NOTES[trait]})" if trait in TRAIT_NOTES else trait for trait in persona.traits)


def system_prompt(template: Template, persona: Persona, *, study_day: int, did_habit: bool,
                  open_poll: Said | None) -> str:
    """The player's system prompt for one move (persona text inserted as is, never read as placeholders)."""
    done = (f"Today you did your habit ({persona.habit})." if did_habit
            else f"Today you have not done your habit ({persona.habit}).")
    if open_poll is not None:
        options = ", ".join(f'"{option}"' for option in open_poll.options)
        poll = (f'A poll from the coach is waiting for your answer: "{open_poll.text}". Its options: {options}. '
                "You may tap, write instead, or stay silent.")
    else:
        poll = "No poll is waiting for an answer, so there is nothing to tap now."
    chatty = "chatty" in persona.traits
    length = ("You like to talk: long messages with several thoughts are normal for you." if chatty else
              "Keep each message as short as people text on WhatsApp: a few words to one or two sentences.")
    return template.substitute(
        name=persona.name, habit=persona.habit, preferred_time=persona.preferred_time, anchor=persona.anchor,
        motivation=persona.motivation, timezone=persona.timezone, language=persona.language,
        style=persona.style or "in your own everyday way", mood=persona.mood or "ordinary",
        traits=_traits_text(persona), background=persona.background or "nothing in particular",
        study_day=str(study_day), today=f"It is day {study_day} of the study. {done}", poll=poll, length=length)


def _as_move_json(said: Said) -> str:
    if said.options:
        return json.dumps({"action": "tap", "options": list(said.options)}, ensure_ascii=False)
    return json.dumps({"action": "write", "text": said.text}, ensure_ascii=False)


def _as_study_text(said: Said, zone: ZoneInfo) -> str:
    stamp = said.at.astimezone(zone).strftime("[%a %H:%M]")
    if said.options:
        options = " | ".join(f'"{option}"' for option in said.options)
        return f"{stamp} Poll: {said.text}\nOptions: {options}"
    return f"{stamp} {said.text}"


def conversation_messages(persona: Persona, conversation: Sequence[Said]) -> list[Message]:
    """The conversation from the persona's side; consecutive messages of one side are joined (some
    servers insist that the roles alternate), and the last message is the study's."""
    zone = ZoneInfo(persona.timezone)
    turns: list[tuple[str, str]] = []
    for said in conversation:
        role = "assistant" if said.incoming else "user"
        content = _as_move_json(said) if said.incoming else _as_study_text(said, zone)
        if turns and turns[-1][0] == role:
            turns[-1] = (role, turns[-1][1] + ("\n" if said.incoming else "\n\n") + content)
        else:
            turns.append((role, content))
    if not turns or turns[-1][0] != "user":
        turns.append(("user", "(Nothing new from the coach. Write only if you would.)"))
    return [{"role": role, "content": content} for role, content in turns]


class ModelPlayer:
    """Plays personas through a chat model (any :class:`~promptpipe.llm.LLM`, its own server)."""

    def __init__(self, llm: LLM, *, system_template: str | None = None) -> None:
        self._llm = llm
        template = SYSTEM_TEMPLATE_PATH.read_text(encoding="utf-8") if system_template is None else system_template
        self._template = _check_template(template)

    async def move(self, persona: Persona, conversation: Sequence[Said], *, study_day: int, did_habit: bool,
                   open_poll: Said | None, seed: int | None = None) -> tuple[Move, TokenCount]:
        """The persona's next move and what asking cost; raises as the model client does."""
        system = system_prompt(self._template, persona, study_day=study_day, did_habit=did_habit, open_poll=open_poll)
        messages: list[Message] = [{"role": "system", "content": system}, *conversation_messages(persona, conversation)]
        completion = await self._llm.complete(messages, seed=seed)
        move = parse_move(completion.content, open_poll)
        log.debug("player_move", persona=persona.name, kind=move.kind, chars=len(move.text), day=study_day)
        return move, TokenCount(1, completion.prompt_tokens, completion.completion_tokens)


_TEXT_FIELD = re.compile(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)', re.DOTALL)
_SILENT_WORDS = {"silent", "silence", "none", "nothing", "ignore", "skip", "no_reply", "wait"}


def _find_object(content: str) -> Mapping[str, object] | None:
    """The first JSON object in the text that looks like a move (has ``action``), else the first object."""
    found = list(json_objects(content))
    return next((value for value in found if "action" in value), found[0] if found else None)


def _written(text: str) -> Move:
    text = text.strip()[:INBOUND_CHARS].strip()
    return Move(MoveKind.WRITE, text) if text else SILENT


def _tapped(options: tuple[str, ...], text: str, open_poll: Said | None) -> Move:
    """A tap on the open poll's options (its own spelling), or the text written instead."""
    if open_poll is None or not options:
        return _written(text)
    spelled = {option.strip().casefold(): option for option in open_poll.options}
    chosen = [spelled.get(option.strip().casefold()) for option in options]
    if any(option is None for option in chosen):
        return _written(text)
    return Move(MoveKind.TAP, options=tuple(dict.fromkeys(option for option in chosen if option is not None)))


def _options_of(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(item) for item in value if isinstance(item, str | int | float))
    return ()


def parse_move(content: str | None, open_poll: Said | None) -> Move:
    """The move a model's answer asks for: one JSON object ``{"action", "text", "options"}`` (in fences or prose too),
    else the text as a message; a tap the open poll cannot take becomes its text written (or silence)."""
    if not content or not content.strip():
        return SILENT
    found = _find_object(content)
    if found is None:
        if '"action"' in content:  # broken JSON: keep what it meant to write, never the JSON itself
            match = _TEXT_FIELD.search(content)
            return _written(match.group(1).replace('\\"', '"').replace("\\n", "\n")) if match else SILENT
        inside = fenced(content)
        return _written(inside[0] if inside else content)
    action = str(found.get("action", "")).strip().lower()
    text = found.get("text") if isinstance(found.get("text"), str) else ""
    options = _options_of(found.get("options", found.get("option")))
    if action in _SILENT_WORDS:
        return SILENT
    if action == MoveKind.TAP or (action != MoveKind.WRITE and options and not text):
        return _tapped(options, str(text), open_poll)
    return _written(str(text))
