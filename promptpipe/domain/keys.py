"""Every dedupe key, spelled once (a key written twice drifts): a repeated input or send is a no-op."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date


def inbound(whatsapp_message_id: str) -> str:
    """A WhatsApp message: the same id is the same message however often it is delivered."""
    return f"wa:{whatsapp_message_id}"


SIMULATED = "sim-"
"""The start of the id of a message a researcher wrote as the participant (``simulate``)."""


def simulated(token: str) -> str:
    return f"{SIMULATED}{token}"


def enrollment(participant_id: str) -> str:
    return f"enroll:{participant_id}"


def greeting_again(participant_id: str, token: str) -> str:
    """A greeting queued again for someone who was never greeted (it starts like the enrolment's)."""
    return f"{enrollment(participant_id)}:again:{token}"


def daily_prompt(participant_id: str, schedule_id: str, local_date: date) -> str:
    """One daily prompt per schedule and local calendar day, however often its alarm fires."""
    return f"prompt:{participant_id}:{schedule_id}:{local_date.isoformat()}"


def manual_prompt(participant_id: str, token: str) -> str:
    """A prompt a researcher asked for by hand (each request is its own)."""
    return f"prompt:{participant_id}:manual:{token}"


def team_change(participant_id: str, token: str) -> str:
    """A change the research team asked for (each request is its own)."""
    return f"team:{participant_id}:{token}"


def researcher_message(participant_id: str, token: str) -> str:
    """A message a researcher wrote to one participant (each request is its own)."""
    return f"researcher:{participant_id}:{token}"


def broadcast_message(broadcast_id: str, participant_id: str) -> str:
    """One participant's copy of a broadcast: a broadcast reaches each recipient once."""
    return f"broadcast:{broadcast_id}:{participant_id}"


COMMAND_REPLY, SAFETY, RESEARCHER_MESSAGE = "command-reply:", "safety:", "researcher-message:"
"""Key prefixes the outbox claim reads consent exceptions from (see storage/outbox_consent.py)."""


def _per_row(prefix: str) -> Callable[[int], str]:
    """Keys of what one inbox row (or timer) queues: a turn run again queues nothing twice."""
    return lambda row_id: f"{prefix}{row_id}"


researcher_outgoing = _per_row(RESEARCHER_MESSAGE)
command_reply = _per_row(COMMAND_REPLY)
"""The server's own answer to a participant's message: sent whatever their consent (it answers what they wrote)."""
reply = _per_row("reply:")
"""The answer to a batch, keyed by its last inbox row."""
safety = _per_row(SAFETY)
"""The study's safety message for a flagged input (or a turn in which the model flagged one)."""
gave_up = _per_row("gave-up:")
"""The one line a participant gets when their message is given up on after the apology."""
too_long = _per_row("too-long:")
"""The one line a participant gets when their message could not be answered at all."""
closing = _per_row("closing:")
"""The study's closing message, sent once when the participant's last study day is over."""
timer = _per_row("timer:")
"""A timer fires into the inbox once (keyed by the timer's id), however often its alarm rings."""
apology = _per_row("apology:")
prompt_text = _per_row("prompt-text:")
prompt_poll = _per_row("prompt-poll:")
reminder = _per_row("reminder:")
check_in = _per_row("check-in:")
intake_reminder = _per_row("intake-reminder:")
intensity_poll = _per_row("intensity-poll:")


def restart_reminder(participant_id: str, local_day: str) -> str:
    """The one reminder a day of how to restart, for someone stopped or paused who keeps writing."""
    return f"{COMMAND_REPLY}restart-reminder:{participant_id}:{local_day}"


def questionnaire_send(instance_id: int) -> str:
    """Sending one questionnaire instance (once, however often it is asked for)."""
    return f"questionnaire:{instance_id}:send"


def questionnaire_message(inbox_id: int, part: str) -> str:
    """A message of a questionnaire turn (``intro``, ``ask``, ``reask``, ``closing``)."""
    return f"questionnaire:{inbox_id}:{part}"


def alarm_sync(participant_id: str, token: str) -> str:
    """An admin change (pause, resume, time zone) asking the service to re-check the alarms."""
    return f"sync:{participant_id}:{token}"


def decision_draw(inbox_key: str) -> str:
    """What a decision point's random draw is keyed by: its daily prompt, so a repeat draws the same."""
    return f"decision:{inbox_key}"


# ------------------------------------------------------------------ alarms (APScheduler jobs)

JOB_TABLE = "apscheduler_jobs"
"""APScheduler's job table, in the same database."""


def daily_job(participant_id: str, schedule_id: str) -> str:
    return f"daily:{participant_id}:{schedule_id}"


def timer_job(participant_id: str, kind: str) -> str:
    """The alarm of a participant's pending timer of this kind (at most one per kind)."""
    return f"{kind}:{participant_id}"
