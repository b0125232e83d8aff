"""Deterministic commands, before any model sees the message: its spoken words are exactly one phrase ("stop please",
not "I can't stop snacking"); the model answers only what was written while active (after HELP, not after STOP)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from promptpipe.domain import keys, transitions
from promptpipe.domain.command_words import Command, Reply, Said, command_words
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.phrases import is_escape, spoken
from promptpipe.domain.states import INTAKE_STAGES, Status
from promptpipe.domain.text import fold_lookalikes
from promptpipe.domain.transition_log import Actor
from promptpipe.flow.turn import Outcome, Outgoing
from promptpipe.storage.inbox_rows import InboxRow

_WORDS = command_words()
STOPPED = _WORDS.reply(Reply.STOPPED)
ALREADY_STOPPED = _WORDS.reply(Reply.ALREADY_STOPPED)
RESUMED = _WORDS.reply(Reply.RESUMED)
ALREADY_ACTIVE = _WORDS.reply(Reply.ALREADY_ACTIVE)
PAUSED_BY_TEAM = _WORDS.reply(Reply.PAUSED_BY_TEAM)
OPTED_IN_TEAM_PAUSED = _WORDS.reply(Reply.OPTED_IN_TEAM_PAUSED)
STUDY_OVER = _WORDS.reply(Reply.STUDY_OVER)
PAUSED_HINT = _WORDS.reply(Reply.PAUSED_HINT)
CONFIRM_STOP = _WORDS.reply(Reply.CONFIRM_STOP)
HELP_TEXT = _WORDS.reply(Reply.HELP)
"""The English texts (each has its translations in the table)."""

CONVERSATION_WINDOW = timedelta(hours=2)
"""In a conversation this long after the coach's last answer or the day's prompt (and in intake or a questionnaire)."""


@functools.lru_cache(maxsize=256)
def read_command(text: str, *, in_intake: bool = False) -> Said | None:
    """What this message is as a command, or None; in intake an escape phrase ("cancel") puts intake on hold instead.
    Remembered: a message is read as its input is stored and again in its turn (``Said`` is immutable)."""
    if in_intake and is_escape(text):
        return None
    words = spoken(text)
    for candidate in (words, _once(words), _spelled(words)):
        found = _WORDS.said(candidate) or _WORDS.said(" ".join(fold_lookalikes(w, whole=True)
                                                               for w in candidate.split()))
        if found is not None:
            return found
    return None


def as_command(text: str, *, in_intake: bool = False) -> str | None:
    """The command this message is (STOP, START or HELP), or None."""
    said = read_command(text, in_intake=in_intake)
    return said.command.value if said is not None else None


def _once(words: str) -> str:
    """A phrase said several times in one message ("STOP STOP", "stop\nstop") said once."""
    parts = words.split()
    for size in range(1, len(parts) // 2 + 1):
        if len(parts) % size == 0 and parts == parts[:size] * (len(parts) // size):
            return spoken(" ".join(parts[:size]))
    return words


def _spelled(words: str) -> str:
    """A word spelled out letter by letter ("S T O P", "s.t.o.p") as the word."""
    parts = words.split()
    return "".join(parts) if len(parts) > 1 and all(len(part) == 1 for part in parts) else words


def reply(state: TurnState, key: Reply, said: Said | None = None) -> str:
    """One of the service's own replies, in the participant's language (see command_words)."""
    return _WORDS.reply(key, _WORDS.language(said, state.profile.record.language))


def in_conversation(state: TurnState, now: datetime | None) -> bool:
    """Whether the participant is in the middle of a conversation (see :data:`CONVERSATION_WINDOW`)."""
    if state.status != Status.ACTIVE:
        return False
    if state.sub_state in INTAKE_STAGES or state.questionnaire is not None:
        return True
    if now is None:
        return False
    record = state.profile.record
    latest = [datetime.fromisoformat(at) for at in (record.last_turn_at, record.last_prompt_sent_at) if at]
    return any(now - at < CONVERSATION_WINDOW for at in latest)


@dataclass(frozen=True)
class CommandContext:
    """What decides whether a stop word stops at once."""

    now: datetime | None = None
    """The time of the turn (None: only intake and a questionnaire count as a conversation)."""
    ordinary: frozenset[str] = frozenset()
    """Words ordinary in this study (the study file's ``ordinary_words``)."""
    answers_item: Callable[[str], bool] | None = None
    """True for a message that answers the questionnaire item under way (an option's label)."""


def asks_first(state: TurnState, said: Said, context: CommandContext) -> bool:
    """Whether this stop word gets a confirming question instead of an opt-out (never a bare STOP or translation)."""
    if said.command is not Command.STOP or state.status != Status.ACTIVE:
        return False
    one_word = " " not in said.phrase
    if not said.ask_first and one_word:
        return False
    if context.ordinary.intersection(said.phrase.split()):
        return True
    return said.ask_first and in_conversation(state, context.now)


def written_before_their_stop(state: TurnState) -> bool:
    """Whether the message was sent (by their clock) before their STOP that holds now: late, it gets no answer."""
    return (state.opted_out and state.said_at is not None and state.own_consent_at is not None
            and state.said_at < state.own_consent_at)


def apply_command(state: TurnState, said: Said, words: str) -> str | None:
    """Change their status as the command asks; the reply, or None. ``words``: what they wrote (for the ledger)."""
    if state.status == Status.WITHDRAWN:  # no reply to anything; their own STOP or START is still kept
        if said.command is not Command.HELP:
            transitions.apply(state, "opted_out" if said.command is Command.STOP else "opted_in",
                              actor=Actor.PARTICIPANT, reason=f"participant sent {said.command} while withdrawn",
                              words=words)
        return None
    if len(said.languages) == 1:
        state.profile.record.language = said.languages[0]
    if said.command is Command.HELP:
        return None if written_before_their_stop(state) else reply(state, Reply.HELP, said)
    if said.command is Command.STOP:
        if state.opted_out:
            if written_before_their_stop(state):
                return None
            _heard(state)  # a later START must come after this STOP too
            return reply(state, Reply.ALREADY_STOPPED, said)
        if not transitions.apply(state, "opted_out", actor=Actor.PARTICIPANT,
                                 reason="participant asked to stop: consent to messages withdrawn", words=words):
            return None  # they sent START after this STOP: it changes nothing
        return reply(state, Reply.STOPPED, said)
    if state.opted_out:
        if not transitions.apply(state, "opted_in", actor=Actor.PARTICIPANT, reason=f"participant sent {said.command}",
                                 words=words):
            return None  # they sent STOP after this START
        if state.status == Status.COMPLETED:
            return reply(state, Reply.STUDY_OVER, said)
        return reply(state, Reply.RESUMED if state.status == Status.ACTIVE else Reply.OPTED_IN_TEAM_PAUSED, said)
    _heard(state)  # START while not stopped: a STOP sent before it and delivered later changes nothing
    if state.status == Status.COMPLETED:
        return reply(state, Reply.STUDY_OVER, said)
    return reply(state, Reply.PAUSED_BY_TEAM if state.researcher_paused else Reply.ALREADY_ACTIVE, said)


def _heard(state: TurnState) -> None:
    """Their STOP or START changed nothing, but it is still their latest word by their clock."""
    state.own_consent_at = max((at for at in (state.own_consent_at, state.said_at) if at is not None), default=None)


def paused_hint(state: TurnState) -> str:
    """The one line a paused participant gets when they write: how (or by whom) it is lifted."""
    return reply(state, Reply.PAUSED_HINT if state.opted_out else Reply.PAUSED_BY_TEAM)


@dataclass
class CommandPlan:
    """What a batch of messages containing commands comes to."""

    replies: list[tuple[int, str, str]] = field(default_factory=list)
    """(index in the batch, command, reply) for each command that gets a reply, in order."""
    answer: list[int] = field(default_factory=list)
    """Indices of the messages the model should still answer (in a turn of their own)."""
    restart_reminder: set[int] = field(default_factory=set)
    """Indices whose reply is the day's one reminder of how to restart (a repeated STOP)."""


def plan_commands(state: TurnState, texts: Sequence[str], said: Sequence[datetime | None] | None = None,
                  context: CommandContext | None = None) -> CommandPlan | None:
    """Apply the commands among ``texts`` (``said``: when each was sent) to ``state``; None when there is none."""
    context = context or CommandContext()
    in_intake = state.status == Status.ACTIVE and state.sub_state in INTAKE_STAGES
    found = [None if context.answers_item is not None and context.answers_item(text)
             else read_command(text, in_intake=in_intake) for text in texts]
    if not any(found):
        return None
    plan = CommandPlan()
    written_while_active: list[int] = []
    latest = state.said_at
    stopped_at: int | None = None
    for index, (text, command) in enumerate(zip(texts, found, strict=True)):
        state.said_at = said[index] if said is not None else latest
        if command is None:
            if state.status == Status.ACTIVE and text.strip():
                written_while_active.append(index)
            continue
        if asks_first(state, command, context):
            plan.replies.append((index, command.command, reply(state, Reply.CONFIRM_STOP, command)))
            continue
        stopped_before = state.opted_out
        answer = apply_command(state, command, text)
        if state.opted_out and not stopped_before:
            stopped_at = index
        if answer is not None:
            plan.replies.append((index, command.command, answer))
            if command.command is Command.STOP and stopped_before:
                plan.restart_reminder.add(index)
    state.said_at = latest
    if stopped_at is not None and state.opted_out:  # after their STOP only its confirmation goes:
        plan.replies = [entry for entry in plan.replies if entry[0] >= stopped_at]  # what came before gets none
    if state.status == Status.ACTIVE:
        plan.answer = written_while_active
    return plan


def restart_reminder_key(state: TurnState, now: datetime) -> str:
    """The outbox key of today's (participant's local day) reminder of how to restart."""
    return keys.restart_reminder(state.participant.id, now.astimezone(zone_or_utc(state.timezone)).date().isoformat())


def commands_outcome(batch: list[InboxRow], plan: CommandPlan, reminder_key: str) -> Outcome:
    """The commands of a folded batch with their replies; the messages the model should still answer stay pending."""
    answer_ids = {batch[index].id for index in plan.answer}
    settled = [item for item in batch if item.id not in answer_ids]
    commands = {batch[index].id for index, _, _ in plan.replies}
    outgoing = [Outgoing(reminder_key if index in plan.restart_reminder else keys.command_reply(batch[index].id),
                         text, MessageKind.COMMAND) for index, _, text in plan.replies]
    kept = [item for item in settled if item.id not in commands]
    return Outcome(outgoing, answered=[item for item in settled if item not in kept], kept=kept,
                   again=bool(answer_ids), log=("command_handled", {
                       "commands": [c for _, c, _ in plan.replies], "still_to_answer": len(answer_ids)}))


def inactive_outcome(state: TurnState, batch: list[InboxRow], *, message: bool, screened: bool,
                     reminder_key: str) -> Outcome:
    """No model for someone not active: a note on how a pause is lifted (once a day), or that the study has ended."""
    if state.status == Status.PAUSED and message and not screened and not written_before_their_stop(state):
        return Outcome([Outgoing(reminder_key, paused_hint(state), MessageKind.COMMAND)])
    if state.status == Status.COMPLETED and message and not screened and not state.opted_out:
        over = reply(state, Reply.STUDY_OVER)
        return Outcome([Outgoing(keys.command_reply(batch[-1].id), over, MessageKind.COMMAND)], save_state=False)
    return kept_outcome(batch, status=state.status)


def kept_outcome(batch: list[InboxRow], **fields: object) -> Outcome:
    """The rows are done without an answer, and nothing of the state changes."""
    return Outcome(answered=[], kept=list(batch), save_state=False,
                   log=("input_not_answered", {"inputs": len(batch), **fields}))
