"""Every dedupe key, spelled once. A key written twice is a key that drifts.

Inbox keys make a repeated input a no-op; outbox keys make a repeated send a no-op.
"""

from __future__ import annotations

from datetime import date


def inbound(whatsapp_message_id: str) -> str:
    """A WhatsApp message: the same id is the same message however often it is delivered."""
    return f"wa:{whatsapp_message_id}"


SIMULATED = "sim-"
"""The start of the id of a message a researcher wrote as the participant (``simulate``)."""


def simulated(token: str) -> str:
    """The message id ``simulate`` gives what it stores (keyed like a WhatsApp message)."""
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


def researcher_outgoing(inbox_id: int) -> str:
    """The outbox row that sends a researcher's message, keyed by its inbox row."""
    return f"{RESEARCHER_MESSAGE}{inbox_id}"


def command_reply(inbox_id: int) -> str:
    """The server's own answer to a participant's message (a command, a paused participant's note):
    sent whatever their consent, since it answers what they just wrote."""
    return f"{COMMAND_REPLY}{inbox_id}"


def restart_reminder(participant_id: str, local_day: str) -> str:
    """The one reminder a day of how to switch messages back on, for someone who sent STOP (or
    whom the team paused) and keeps writing: a second one that day has the same key, so it is
    not queued."""
    return f"{COMMAND_REPLY}restart-reminder:{participant_id}:{local_day}"


def reply(inbox_id: int) -> str:
    """The answer to a batch, keyed by its last inbox row."""
    return f"reply:{inbox_id}"


def apology(inbox_id: int) -> str:
    return f"apology:{inbox_id}"


def prompt_text(inbox_id: int) -> str:
    return f"prompt-text:{inbox_id}"


def prompt_poll(inbox_id: int) -> str:
    return f"prompt-poll:{inbox_id}"


def questionnaire_send(instance_id: int) -> str:
    """Sending one questionnaire instance (once, however often it is asked for)."""
    return f"questionnaire:{instance_id}:send"


def questionnaire_message(inbox_id: int, part: str) -> str:
    """A message of a questionnaire turn (``intro``, ``ask``, ``reask``, ``closing``)."""
    return f"questionnaire:{inbox_id}:{part}"


def timer(timer_id: int) -> str:
    """A timer fires into the inbox once, however often its alarm rings."""
    return f"timer:{timer_id}"


def alarm_sync(participant_id: str, token: str) -> str:
    """An admin change (pause, resume, time zone) asking the service to re-check the alarms."""
    return f"sync:{participant_id}:{token}"


def reminder(inbox_id: int) -> str:
    return f"reminder:{inbox_id}"


def check_in(inbox_id: int) -> str:
    return f"check-in:{inbox_id}"


def intake_reminder(inbox_id: int) -> str:
    return f"intake-reminder:{inbox_id}"


def closing(inbox_id: int) -> str:
    """The study's closing message, sent once when the participant's last study day is over."""
    return f"closing:{inbox_id}"


def decision_draw(inbox_key: str) -> str:
    """What a decision point's random draw is keyed by: its daily prompt, so a repeat draws the same."""
    return f"decision:{inbox_key}"


def intensity_poll(inbox_id: int) -> str:
    return f"intensity-poll:{inbox_id}"


def safety(inbox_id: int) -> str:
    """The study's safety message for a flagged input (or a turn in which the model flagged one)."""
    return f"{SAFETY}{inbox_id}"


def gave_up(inbox_id: int) -> str:
    """The one line a participant gets when their message is given up on after the apology."""
    return f"gave-up:{inbox_id}"


def too_long(inbox_id: int) -> str:
    """The one line a participant gets when their message could not be answered at all."""
    return f"too-long:{inbox_id}"


# ------------------------------------------------------------------ alarms (APScheduler jobs)

JOB_TABLE = "apscheduler_jobs"
"""APScheduler's job table, in the same database."""


def daily_job(participant_id: str, schedule_id: str) -> str:
    """The alarm of one daily-prompt schedule."""
    return f"daily:{participant_id}:{schedule_id}"


def timer_job(participant_id: str, kind: str) -> str:
    """The alarm of a participant's pending timer of this kind (at most one per kind)."""
    return f"{kind}:{participant_id}"
