"""Command words and their replies in every language (from COMMAND_FILE), matched on phrases.spoken. ``stop`` phrases
stop at once, always; ``stop_ask`` words are also ordinary ("quit", Spanish "para"): asked first mid-conversation."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

__all__ = ["COMMAND_FILE", "DEFAULT_LANGUAGE", "Command", "CommandWords", "Reply", "Said", "command_words"]

COMMAND_FILE = Path(__file__).resolve().parent.parent / "data" / "commands.toml"
DEFAULT_LANGUAGE = "en"


class Command(StrEnum):
    STOP = "STOP"
    START = "START"
    HELP = "HELP"


class Reply(StrEnum):
    """The service's own answers to commands, each written in every language."""

    STOPPED = "stopped"
    ALREADY_STOPPED = "already_stopped"
    RESUMED = "resumed"
    ALREADY_ACTIVE = "already_active"
    PAUSED_BY_TEAM = "paused_by_team"
    OPTED_IN_TEAM_PAUSED = "opted_in_team_paused"
    STUDY_OVER = "study_over"
    PAUSED_HINT = "paused_hint"
    CONFIRM_STOP = "confirm_stop"
    HELP = "help"


_CLASSES = {"stop": (Command.STOP, False), "stop_ask": (Command.STOP, True), "start": (Command.START, False),
            "help": (Command.HELP, False)}


@dataclass(frozen=True)
class Said:
    """What a message is as a command."""

    command: Command
    ask_first: bool
    """A ``stop_ask`` phrase: in the middle of a conversation, ask before stopping."""
    languages: tuple[str, ...]
    """The languages the phrase belongs to (in the table's order)."""
    phrase: str


@dataclass(frozen=True)
class CommandWords:
    phrases: dict[str, Said]
    replies: dict[str, dict[Reply, str]]
    names: dict[str, str]
    """Each language's name, by its code."""

    def said(self, words: str) -> Said | None:
        return self.phrases.get(words)

    def language(self, said: Said | None, known: str | None) -> str:
        """The phrase's language if it has one alone; else the participant's known one; else the phrase's first."""
        if said is not None and len(said.languages) == 1:
            return said.languages[0]
        if known is not None and known in self.replies:
            return known
        return said.languages[0] if said is not None else DEFAULT_LANGUAGE

    def reply(self, key: Reply, language: str | None = None) -> str:
        return self.replies.get(language or DEFAULT_LANGUAGE, self.replies[DEFAULT_LANGUAGE])[key]

    def standard(self, words: str) -> bool:
        """Whether these words are a bare standard opt-out (``stop``): they stop at once, always."""
        found = self.said(words)
        return found is not None and found.command is Command.STOP and not found.ask_first

    def of(self, command: Command) -> list[str]:
        """Every phrase of a command, in the table's order (for the README and checks)."""
        return [phrase for phrase, said in self.phrases.items() if said.command is command]


def parse(table: dict[str, dict[str, object]]) -> CommandWords:
    """The table read from the file; ValueError naming what is wrong (the tests check the file)."""
    phrases: dict[str, Said] = {}
    replies: dict[str, dict[Reply, str]] = {}
    names: dict[str, str] = {}
    for language, entry in table.items():
        names[language] = str(entry["name"])
        raw_replies = entry["replies"]
        if not isinstance(raw_replies, dict) or set(raw_replies) != set(Reply):
            raise ValueError(f"[{language}.replies] must have exactly the keys {', '.join(Reply)}")
        replies[language] = {Reply(key): str(text) for key, text in raw_replies.items()}
        for class_name, (command, ask_first) in _CLASSES.items():
            listed = entry.get(class_name)
            if not isinstance(listed, list) or not listed:
                raise ValueError(f"[{language}] {class_name} must be a list of phrases")
            for phrase in listed:
                known = phrases.get(phrase)
                if known is not None and (known.command, known.ask_first) != (command, ask_first):
                    raise ValueError(f"[{language}] {phrase!r} is {class_name} but already {known.command} "
                                     f"({'ask first' if known.ask_first else 'at once'}) in {known.languages[0]}")
                languages = (*known.languages, language) if known is not None else (language,)
                phrases[phrase] = Said(command, ask_first, languages, phrase)
    if DEFAULT_LANGUAGE not in replies:
        raise ValueError(f"the table needs [{DEFAULT_LANGUAGE}]")
    return CommandWords(phrases, replies, names)


@functools.cache
def command_words() -> CommandWords:
    """The table of :data:`COMMAND_FILE`, read once."""
    with COMMAND_FILE.open("rb") as file:
        return parse(tomllib.load(file))
