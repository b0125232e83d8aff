"""Deterministic commands, handled before any model sees the message.

A message is a command when, after normalising (NFKC, case folding, punctuation and emoji
stripped: ``"ＳＴＯＰ"``, ``"Stop?"``, ``"stop 🙏"``) and dropping politeness words at either end
(``"stop please"``, ``"ok stop now"``), it is exactly one of the phrases below. ``"stop it"`` or
``"I can't stop snacking"`` are ordinary messages; the model can still opt someone out who asks in
their own words (the ``opt_out`` tool).

In a batch of messages that arrived together, each command is applied in order, and a message is
answered by the model only if it was written while the participant was active and they are still
active at the end: a question sent after HELP gets its answer, words sent after STOP are kept but
not answered, words sent before a STOP are not answered either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.phrases import is_escape, spoken
from promptpipe.domain.states import ACTIVE, COMPLETED, INTAKE_STAGES, PAUSED, WITHDRAWN
from promptpipe.domain.transitions import Actor
from promptpipe.flow.turn import Outcome, Outgoing
from promptpipe.storage.inbox_rows import InboxRow

STOP, START, RESUME, HELP = "STOP", "START", "RESUME", "HELP"

PHRASES: dict[str, tuple[str, ...]] = {
    STOP: ("stop", "stop all", "stopall", "unsubscribe", "unsub", "opt out", "optout", "cancel", "end", "quit",
           "unsubscribe me", "opt me out", "remove me", "remove me from the list", "remove me from this list",
           "take me off", "take me off the list", "take me off this list",
           "stop texting me", "stop messaging me", "stop sending messages", "stop sending me messages",
           "stop the messages", "stop messages", "no more messages", "stop texts", "stop texting", "stop sending",
           "stop sending these", "stop sending me these", "stop sending me stuff", "stop all messages",
           "stop all texts", "stop all the messages", "stop contacting me", "stop messaging", "no more texts",
           "dont text me", "dont message me", "do not text me", "do not message me", "do not contact me",
           "dont contact me", "i want to unsubscribe", "i want to opt out", "i want to stop",
           *(f"{dont} {verb} me {when}" for dont in ("dont", "do not") for verb in ("text", "message", "contact")
             for when in ("anymore", "any more", "again")),
           "leave me alone", "i quit", "i quit the study", "i quit this study", "i want to quit the study",
           "i want to leave the study", "take me out of the study", "i dont want these messages",
           "i dont want any more messages", "i dont want any messages",
           # The same, unambiguous, in other languages (a message that is only these words).
           "stopp", "stoppen", "abmelden", "abbestellen", "keine nachrichten mehr", "hör auf", "hor auf",
           "стоп", "хватит", "отписаться", "отпишите меня", "para", "pare", "parar", "basta", "basta ya",
           "no más mensajes", "no mas mensajes", "darme de baja", "dar de baja", "arrête", "arrete", "arrêtez",
           "arretez", "arrêter", "arreter", "désabonner", "desabonner", "me désabonner", "me desabonner",
           "plus de messages", "停止", "退订", "取消订阅", "不要再发了", "别发了", "ストップ", "配信停止", "やめて",
           "中止", "그만", "수신거부", "afmelden", "smettila", "disiscrivimi", "توقف"),
    START: ("start", "unstop", "opt in", "optin", "subscribe", "start again"),
    RESUME: ("resume",),
    HELP: ("help", "info"),
}
"""What each command is, as normalised words (see :func:`as_command`); the README lists them."""
_BY_PHRASE = {phrase: command for command, phrases in PHRASES.items() for phrase in phrases}

STOPPED = (
    "Okay, you're unsubscribed: you won't get any more daily nudges, reminders or check-ins from "
    "this study. If you change your mind, send START. Send HELP for information."
)
ALREADY_STOPPED = "You're already unsubscribed, so nothing more will be sent. Send START to pick up again."
RESUMED = "Welcome back! Your daily nudges are switched on again."
ALREADY_ACTIVE = "You're all set: your daily nudges are already on. Send STOP at any time to pause them."
PAUSED_BY_TEAM = (
    "Your messages from this study are paused by the research team, so I can't switch them back on "
    "from here. Please contact the team if you have questions."
)
OPTED_IN_TEAM_PAUSED = (
    "Thanks, your own stop is lifted. The research team has also paused messages for now, so nothing "
    "will be sent until they switch them back on. Please contact the team if you have questions."
)
STUDY_OVER = (
    "The study has ended, so I won't be replying here any more. Thank you again for taking part! "
    "If you have questions, please contact the research team."
)
PAUSED_HINT = "Your nudges are paused, so I won't reply here for now. Send START to resume, or HELP for information."
HELP_TEXT = (
    "This is a research study about building one small daily habit. Each day you get a short, "
    "personal nudge at the time you chose, and I'll ask now and then how it went. Your replies are "
    "part of the study data.\n\n"
    "Commands you can send at any time:\n"
    "STOP (or UNSUBSCRIBE) - no more nudges or messages from the study\n"
    "START or RESUME - switch them back on\n"
    "HELP - this message\n\n"
    "For anything else, just write to me, or contact the research team."
)


def as_command(text: str, *, in_intake: bool = False) -> str | None:
    """The command this message is, or None. In intake, an escape phrase ("cancel") is not a
    command: it puts intake on hold (see :mod:`promptpipe.flow.lifecycle`); STOP always is."""
    if in_intake and is_escape(text):
        return None
    words = spoken(text)
    return _BY_PHRASE.get(words) or _BY_PHRASE.get(_once(words)) or _BY_PHRASE.get(_spelled(words))


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


def written_before_their_stop(state: TurnState) -> bool:
    """Whether the message this turn is about was sent (by the participant's clock) before the
    STOP of theirs that holds now: it arrived late, and gets no answer at all."""
    return (state.opted_out and state.said_at is not None and state.own_consent_at is not None
            and state.said_at < state.own_consent_at)


def apply_command(state: TurnState, command: str, words: str) -> str | None:
    """Change the participant's status as the command asks; returns the reply to send, or None
    when nothing is answered (the message is kept): for someone withdrawn from the study, for a
    message sent before their STOP that holds, and for a START or STOP overtaken by a later one
    of theirs (their clock; the ledger records it). ``words`` is what they wrote, kept in the
    consent ledger; ``state.said_at`` when they sent it."""
    if state.status == WITHDRAWN:
        return None
    if command == HELP:
        return None if written_before_their_stop(state) else HELP_TEXT
    if command == STOP:
        if state.opted_out:
            return None if written_before_their_stop(state) else ALREADY_STOPPED
        if not state.apply("opted_out", actor=Actor.PARTICIPANT,
                           reason="participant asked to stop: consent to messages withdrawn", words=words):
            return None  # they sent START after this STOP: it changes nothing
        return STOPPED
    if state.opted_out:
        if not state.apply("opted_in", actor=Actor.PARTICIPANT, reason=f"participant sent {command}", words=words):
            return None  # they sent STOP after this START
        if state.status == COMPLETED:
            return STUDY_OVER
        return RESUMED if state.status == ACTIVE else OPTED_IN_TEAM_PAUSED
    if state.status == COMPLETED:
        return STUDY_OVER
    return PAUSED_BY_TEAM if state.researcher_paused else ALREADY_ACTIVE


def paused_hint(state: TurnState) -> str:
    """The one line a paused participant gets when they write: how (or by whom) it is lifted."""
    return PAUSED_HINT if state.opted_out else PAUSED_BY_TEAM


@dataclass
class CommandPlan:
    """What a batch of messages containing commands comes to."""

    replies: list[tuple[int, str, str]] = field(default_factory=list)
    """(index in the batch, command, reply) for each command that gets a reply, in order."""
    answer: list[int] = field(default_factory=list)
    """Indices of the messages the model should still answer (in a turn of their own)."""


def plan_commands(state: TurnState, texts: Sequence[str],
                  said: Sequence[datetime | None] | None = None) -> CommandPlan | None:
    """Apply the commands among ``texts`` (one per message of the batch, in order; ``said``: when
    the participant sent each) to ``state``; None when there is none. See the module docstring
    for which messages are still answered."""
    in_intake = state.status == ACTIVE and state.sub_state in INTAKE_STAGES
    commands = [as_command(text, in_intake=in_intake) for text in texts]
    if not any(commands):
        return None
    plan = CommandPlan()
    written_while_active: list[int] = []
    latest = state.said_at
    for index, (text, command) in enumerate(zip(texts, commands, strict=True)):
        state.said_at = said[index] if said is not None else latest
        if command is None:
            if state.status == ACTIVE and text.strip():
                written_while_active.append(index)
            continue
        reply = apply_command(state, command, text)
        if reply is not None:
            plan.replies.append((index, command, reply))
    state.said_at = latest
    if state.status == ACTIVE:
        plan.answer = written_while_active
    return plan


def restart_reminder_key(state: TurnState, now: datetime) -> str:
    """The outbox key of today's (participant's local day) reminder of how to restart."""
    return keys.restart_reminder(state.participant.id, now.astimezone(zone_or_utc(state.timezone)).date().isoformat())


def commands_outcome(batch: list[InboxRow], plan: CommandPlan, reminder_key: str) -> Outcome:
    """The commands of a folded batch with their replies; the messages the model should still
    answer stay pending for the next turn, the others are kept. A repeated STOP's reply is the
    day's one restart reminder (``reminder_key``)."""
    answer_ids = {batch[index].id for index in plan.answer}
    settled = [item for item in batch if item.id not in answer_ids]
    commands = {batch[index].id for index, _, _ in plan.replies}
    outgoing = [Outgoing(reminder_key if reply == ALREADY_STOPPED else keys.command_reply(batch[index].id), reply,
                         MessageKind.COMMAND) for index, _, reply in plan.replies]
    kept = [item for item in settled if item.id not in commands]
    return Outcome(outgoing, answered=[item for item in settled if item not in kept], kept=kept,
                   again=bool(answer_ids), log=("command_handled", {
                       "commands": [c for _, c, _ in plan.replies], "still_to_answer": len(answer_ids)}))


def inactive_outcome(state: TurnState, batch: list[InboxRow], *, message: bool, screened: bool,
                     reminder_key: str) -> Outcome:
    """No model for someone who is not active: a paused participant who writes gets a short note
    on how (or by whom) the pause is lifted, once a day at most (``reminder_key``), a completed
    one a line that the study has ended (unless the safety message just answered them); a
    withdrawn one gets nothing. Their message is kept either way."""
    if state.status == PAUSED and message and not screened and not written_before_their_stop(state):
        return Outcome([Outgoing(reminder_key, paused_hint(state), MessageKind.COMMAND)])
    if state.status == COMPLETED and message and not screened and not state.opted_out:
        return Outcome([Outgoing(keys.command_reply(batch[-1].id), STUDY_OVER, MessageKind.COMMAND)], save_state=False)
    return kept_outcome(batch, status=state.status)


def kept_outcome(batch: list[InboxRow], **fields: object) -> Outcome:
    """The rows are done without an answer, and nothing of the state changes."""
    return Outcome(answered=[], kept=list(batch), save_state=False,
                   log=("input_not_answered", {"inputs": len(batch), **fields}))
