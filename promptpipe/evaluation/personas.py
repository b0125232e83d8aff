"""The simulated participants: a personas file (TOML, ``[[persona]]`` tables) read into :class:`Persona` records, and
the two seeded draws that make a persona behave like a person over the days (a rerun meets the same participants)."""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from promptpipe.domain.localtime import is_iana_zone, parse_hhmm
from promptpipe.errors import AdminError

__all__ = ["ADHERENCE_NOTES", "ADHERENCE_PATTERNS", "TRAITS", "TRAIT_NOTES", "Persona", "answers", "did_habit",
           "load_personas"]

ADHERENCE_NOTES: dict[str, str] = {
    "steady": "does the habit with the same chance (adherence_rate) every day",
    "fading": "starts at adherence_rate and loses a little every day (about half of it by day 9, a fifth by day 14)",
    "improving": "starts at about a third of adherence_rate and climbs to it by day 11 (and on, up to always)",
    "weekdays": "does it only Monday to Friday (adherence_rate on those days), never at the weekend",
    "weekends": "does it only on Saturday and Sunday (adherence_rate on those days), never in the week",
    "erratic": "good and bad spells of three days: nearly always in a good one, rarely in a bad one "
                "(adherence_rate is the share of good spells)",
    "never": "never does it, whatever it says",
}
"""Each adherence pattern and how it shapes the chance of doing the habit on a study day."""
ADHERENCE_PATTERNS = tuple(ADHERENCE_NOTES)

TRAIT_NOTES: dict[str, str] = {
    "terse": "writes as few words as possible; one-word answers are common",
    "chatty": "writes long messages, tells stories, asks things back",
    "sceptical": "doubts that texting helps and questions the coach's suggestions",
    "forgetful": "misses messages, forgets what was agreed, answers late or not at all",
    "hostile": "is irritated and rude at times, pushes back or insults the coach",
    "anxious": "worries about doing it wrong and about health, asks for reassurance",
    "enthusiastic": "is eager, uses exclamation marks, promises more than they do",
    "busy": "has little time, answers in a hurry, often postpones",
    "perfectionist": "is hard on themselves after a missed day, wants exact rules",
    "curious": "asks about the study, the coach and how it all works",
    "private": "shares as little about themselves as they can",
    "playful": "jokes, teases, goes off topic",
}
"""The known traits and what each tells the player model; other lowercase words pass to the model as written."""
TRAITS = tuple(TRAIT_NOTES)

_REQUIRED = ("name", "habit", "preferred_time", "anchor", "motivation")
_TEXT_FIELDS = ("name", "habit", "preferred_time", "anchor", "motivation", "timezone", "language", "style", "mood",
                "adherence", "background")
_MAX_NAME_CHARS = 60
_MAX_TEXT_CHARS = 1000
_TRAIT = re.compile(r"^[a-z]+(?:[ -][a-z]+)*$")


@dataclass(frozen=True)
class Persona:
    name: str
    """Unique in the file."""
    habit: str
    preferred_time: str
    """When they want the daily prompt, ``HH:MM`` (24-hour, their own time zone)."""
    anchor: str
    """The daily moment the habit hangs on, e.g. "after lunch"."""
    motivation: str
    timezone: str = "America/Toronto"
    language: str = "English"
    style: str = ""
    """How they write: "all lowercase, no punctuation", "long messages with emoji" …"""
    mood: str = ""
    traits: tuple[str, ...] = ()
    adherence: str = "steady"
    """One of :data:`ADHERENCE_PATTERNS`."""
    adherence_rate: float = 0.7
    """The base chance of doing the habit on a study day, 0–1."""
    answer_rate: float = 0.9
    """The chance of answering a message at all, 0–1."""
    background: str = ""

    @property
    def group(self) -> str:
        """How the report groups personas: the first trait, or "persona"."""
        return self.traits[0] if self.traits else "persona"


_FIELDS = {item.name for item in fields(Persona)}


def load_personas(path: Path) -> tuple[Persona, ...]:
    """The personas a TOML file declares, in file order; AdminError listing every problem otherwise."""
    try:
        table = tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except OSError as exc:
        raise AdminError(f"{path}: cannot read the personas file ({exc.strerror or exc}).") from exc
    except UnicodeDecodeError as exc:
        raise AdminError(f"{path}: the personas file is not UTF-8 text (an unreadable byte at position "
                         f"{exc.start}); save it as UTF-8.") from exc
    except tomllib.TOMLDecodeError as exc:
        raise AdminError(f"{path}: the personas file is not valid TOML: {exc}.") from exc
    problems: list[str] = [f"unknown top-level key {key!r}: personas are [[persona]] tables"
                           for key in table if key != "persona"]
    entries = table.get("persona", [])
    if isinstance(entries, dict):
        problems.append("persona: write each persona as a [[persona]] table (double brackets)")
        entries = []
    elif not isinstance(entries, list) or not entries:
        problems.append("no personas: add one or more [[persona]] tables")
        entries = []
    personas: list[Persona] = []
    for position, entry in enumerate(entries, start=1):
        persona = _read_entry(entry, position, problems)
        if persona is not None:
            if any(known.name == persona.name for known in personas):
                problems.append(f"persona {persona.name!r} (#{position}): name: another persona already has this name")
            personas.append(persona)
    if problems:
        raise AdminError(f"{path}: " + (problems[0] if len(problems) == 1 else f"{len(problems)} problems:"
                                        + "".join(f"\n  - {problem}" for problem in problems)))
    return tuple(personas)


def _read_entry(entry: Any, position: int, problems: list[str]) -> Persona | None:
    if not isinstance(entry, dict):
        problems.append(f"persona #{position}: must be a [[persona]] table")
        return None
    name = entry.get("name")
    where = f"persona {name!r} (#{position})" if isinstance(name, str) and name.strip() else f"persona #{position}"
    before = len(problems)
    problems.extend(f"{where}: {key}: unknown field (known: {', '.join(sorted(_FIELDS))})"
                    for key in entry if key not in _FIELDS)
    missing = [key for key in _REQUIRED if key not in entry]
    if missing:
        problems.append(f"{where}: {', '.join(missing)}: missing; every persona needs {', '.join(_REQUIRED)}")
    values: dict[str, Any] = {}
    for key in _TEXT_FIELDS:
        if key in entry:
            problem = _text_problem(key, entry[key])
            if problem:
                problems.append(f"{where}: {key}: {problem}")
            else:
                values[key] = entry[key].strip()
    for key in ("adherence_rate", "answer_rate"):
        if key in entry:
            value = entry[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                problems.append(f"{where}: {key}: must be a number from 0 to 1, like 0.7; it is {value!r}")
            else:
                values[key] = float(value)
    if "traits" in entry:
        traits = entry["traits"]
        if not isinstance(traits, list) or not all(isinstance(t, str) and _TRAIT.match(t.strip()) for t in traits):
            problems.append(f"{where}: traits: must be a list of lowercase words, like [\"terse\", \"sceptical\"]; "
                            f"it is {traits!r}")
        else:
            values["traits"] = tuple(trait.strip() for trait in traits)
    return Persona(**values) if len(problems) == before else None


def _text_problem(key: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"must be text in quotes; it is {value!r}"
    text = value.strip()
    limit = _MAX_NAME_CHARS if key == "name" else _MAX_TEXT_CHARS
    if key in _REQUIRED and not text:
        return "must not be empty"
    if len(text) > limit:
        return f"at most {limit} characters; it has {len(text)}"
    if key == "preferred_time":
        try:
            parse_hhmm(text)
        except ValueError as exc:
            return str(exc)
    if key == "timezone" and not is_iana_zone(text):
        return f"{text!r} is not an IANA time zone, like \"Europe/Madrid\" or \"America/Toronto\""
    if key == "adherence" and text not in ADHERENCE_PATTERNS:
        return f"{text!r} is not a pattern; use one of {', '.join(ADHERENCE_PATTERNS)}"
    return None


def _day_chance(persona: Persona, study_day: int, weekday: int, seed: int) -> float:
    rate = persona.adherence_rate
    match persona.adherence:
        case "never":
            return 0.0
        case "fading":
            return rate * max(0.1, 1 - 0.06 * (study_day - 1))
        case "improving":
            return min(1.0, rate * (0.35 + 0.065 * (study_day - 1)))
        case "weekdays":
            return rate if weekday < 5 else 0.0
        case "weekends":
            return rate if weekday >= 5 else 0.0
        case "erratic":
            spell = random.Random(f"{seed}:{persona.name}:spell:{(study_day - 1) // 3}")
            return 0.95 if spell.random() < rate else 0.1
        case _:
            return rate


def did_habit(persona: Persona, study_day: int, weekday: int, seed: int) -> bool:
    """Whether the persona does the habit on a study day (1 on), ``weekday`` 0 = Monday; seeded by name and day."""
    chance = _day_chance(persona, study_day, weekday, seed)
    return random.Random(f"{seed}:{persona.name}:{study_day}").random() < chance


def answers(persona: Persona, study_day: int, message_index: int, seed: int) -> bool:
    """Whether the persona answers the given message of a study day at all (chance ``answer_rate``)."""
    draw = random.Random(f"{seed}:{persona.name}:{study_day}:answer:{message_index}").random()
    return draw < persona.answer_rate
