"""The parts of the service, built from the settings (see :class:`promptpipe.app.App`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptpipe.app.alerts import AlertSender
from promptpipe.clock import Clock, SystemClock
from promptpipe.config import Settings, TransportName
from promptpipe.domain.safety import DEFAULT_SAFETY_MESSAGE, CrisisScreen
from promptpipe.domain.timers import NudgePolicy
from promptpipe.errors import ConfigError
from promptpipe.flow.router import ConversationFlow, typing_through
from promptpipe.flow.turn import FlowConfig, FlowDeps, SafetyConfig, TurnContext
from promptpipe.llm import LLM, OpenAILLM
from promptpipe.logging import get_logger
from promptpipe.pipeline.inbox import Inbox, InboxConfig
from promptpipe.pipeline.lanes import Lanes
from promptpipe.pipeline.outbox import Outbox
from promptpipe.pipeline.spool import Spool
from promptpipe.scheduling.driver import AlarmClock
from promptpipe.storage.db import Database
from promptpipe.tools import PromptTexts
from promptpipe.transport import Transport
from promptpipe.transport.session_stores import postgres_session_dsn, sqlite_session_path

if TYPE_CHECKING:
    from promptpipe.transport.whatsapp import WhatsAppTransport

__all__ = ["Parts", "build_parts", "build_transport", "load_prompts", "load_safety"]


@dataclass
class Parts:
    """What :meth:`promptpipe.app.App.build` joins (an App is its parts and their life cycle)."""

    db: Database
    transport: Transport
    llm: LLM
    clock: Clock
    flow: ConversationFlow
    lanes: Lanes[TurnContext]
    inbox: Inbox
    outbox: Outbox
    alarms: AlarmClock
    alerts: AlertSender | None


def build_parts(settings: Settings, *, transport: Transport | None = None, llm: LLM | None = None,
                clock: Clock | None = None, db: Database | None = None) -> Parts:
    """Every part of the service, each given what it calls (a part given here is used as it is)."""
    clock = clock or SystemClock()
    db = db or Database(settings.database_url)
    transport = transport or build_transport(settings)
    llm = llm or OpenAILLM(settings)
    policy = NudgePolicy(
        prep_minutes=settings.scheduler_prep_time_minutes, misfire_grace=settings.misfire_grace,
        reminder_delay=settings.daily_prompt_reminder_delay, auto_feedback=settings.auto_feedback_after_prompt_enabled,
        auto_feedback_delay=settings.auto_feedback_delay, feedback_initial_timeout=settings.feedback_initial_timeout,
        feedback_followup_delay=settings.feedback_followup_delay, intensity_poll=settings.intensity_poll_enabled,
        max_schedules=settings.max_schedules_per_participant, intake_inactivity=settings.intake_inactivity,
        intake_reminder_delay=settings.intake_reminder_delay, intake_reminder_max=settings.intake_reminder_max)

    def wake_lanes(participant_ids: list[str]) -> None:
        for pid in participant_ids:
            lanes.wake(pid)

    alarms = AlarmClock(db, clock, policy, on_queued=wake_lanes, study=settings.study)
    alerts = AlertSender(db, clock, settings.alert_webhook_url) if settings.alert_webhook_url else None
    config = FlowConfig(history_window=settings.history_window, debug=settings.debug, policy=policy,
                        summary_every_turns=settings.history_summary_every_turns, safety=load_safety(settings),
                        mark_read=settings.mark_read, typed_answer_window=settings.typed_answer_window,
                        study=settings.study, model_name=settings.genai_model)
    deps = FlowDeps(llm, clock, load_prompts(settings), config, typing=typing_through(transport))
    flow = ConversationFlow(db, deps, transport, on_alarms_changed=alarms.request_sync,
                            on_timers_changed=alarms.request_timer_changes,
                            on_flags_raised=alerts.kick if alerts else None)
    lanes = Lanes(db, clock, flow, concurrency=settings.lane_concurrency)
    inbox = Inbox(db, clock, InboxConfig(settings.auto_enroll_new_users, settings.default_timezone, settings.debug,
                                        settings.study, settings.number_plan),
                  lanes.wake, alarms_changed=alarms.request_sync, spool=Spool(settings.state_dir / "spool"),
                  first_look=lanes.first_look)
    outbox = Outbox(db, transport, clock, rate_per_s=settings.send_rate_per_s, jitter=settings.send_jitter,
                    numbers=settings.number_plan.numbers)
    flow.sender = outbox
    return Parts(db, transport, llm, clock, flow, lanes, inbox, outbox, alarms, alerts)


def load_prompts(settings: Settings) -> PromptTexts:
    def read(path: Path, variable: str) -> str:
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"{variable}: cannot read {str(path)!r} ({exc.strerror}).") from None
        if not text:
            raise ConfigError(f"{variable}: {str(path)!r} is empty; it must hold a system prompt.")
        return text

    return PromptTexts(intake=read(settings.intake_prompt_file, "INTAKE_BOT_PROMPT_FILE"),
                       feedback=read(settings.feedback_prompt_file, "FEEDBACK_TRACKER_PROMPT_FILE"),
                       prompt_generator=read(settings.prompt_generator_prompt_file, "PROMPT_GENERATOR_PROMPT_FILE"),
                       summary=read(settings.summary_prompt_file, "SUMMARY_PROMPT_FILE"))


def load_safety(settings: Settings) -> SafetyConfig:
    """The crisis screen (built-in phrases plus the study's), the safety message, alerts on or off."""
    message = DEFAULT_SAFETY_MESSAGE
    if settings.safety_message_file is not None:
        try:
            message = settings.safety_message_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeError) as exc:
            raise ConfigError(
                f"SAFETY_MESSAGE_FILE: cannot read {str(settings.safety_message_file)!r} ({exc}).") from None
        if not message:
            raise ConfigError(f"SAFETY_MESSAGE_FILE: {str(settings.safety_message_file)!r} is empty.")
    try:
        screen = CrisisScreen.load(settings.safety_phrases_file)
    except (OSError, UnicodeError) as exc:
        raise ConfigError(f"SAFETY_PHRASES_FILE: cannot read it ({exc}).") from None
    return SafetyConfig(screen=screen, message=message, alerts=settings.alert_webhook_url is not None)


def build_transport(settings: Settings) -> Transport:
    if settings.transport == TransportName.DRY_RUN:
        from promptpipe.transport.dryrun import DryRunTransport

        return DryRunTransport(settings.dryrun_journal)
    if settings.transport == TransportName.WHATSAPP:
        from promptpipe.transport.whatsapp import WhatsAppOptions, WhatsAppTransport, capture_library_output

        if settings.number_plan.several or settings.several_services:
            from promptpipe.transport.linked_numbers import LinkedNumbersTransport

            return LinkedNumbersTransport(
                settings.number_plan.numbers, functools.partial(_linked_number, settings),
                on_demand=settings.several_services,
                capture_output=functools.partial(capture_library_output, get_logger("promptpipe.transport"),
                                                 settings.log_format, debug=settings.debug))
        return WhatsAppTransport(str(settings.whatsapp_session_path), WhatsAppOptions(
            pair_phone=settings.pair_phone_of(settings.number_plan.default), bot_label=settings.whatsapp_bot_label,
            capture_library_output=True, log_format=settings.log_format, debug=settings.debug))
    if settings.transport == TransportName.CLOUD_API:
        from promptpipe.transport.cloud_api import CloudApiOptions, CloudApiTransport

        return CloudApiTransport(CloudApiOptions(
            token=settings.cloud_api_token or "", numbers=dict(settings.cloud_api_numbers),
            app_secret=settings.cloud_api_app_secret or "", verify_token=settings.cloud_api_verify_token or "",
            listen=settings.cloud_api_webhook_listen, base_url=settings.cloud_api_base_url,
            templates=settings.study.whatsapp_templates, typing=settings.mark_read, debug=settings.debug,
            check_at_start=True,
        ))
    raise ConfigError("PROMPTPIPE_TRANSPORT=console is only for `promptpipe chat --phone …`; "
                      "use whatsapp, cloud-api or dry-run for serve.")


def _linked_number(settings: Settings, name: str) -> WhatsAppTransport:
    """One linked phone of several, with its own session store and login."""
    from promptpipe.transport.whatsapp import WhatsAppOptions, WhatsAppTransport

    plan = settings.number_plan
    store = (postgres_session_dsn(settings.database_url, name) if settings.several_services
             else str(sqlite_session_path(settings.whatsapp_session_path, name, is_default=name == plan.default)))
    return WhatsAppTransport(store, WhatsAppOptions(
        pair_phone=settings.pair_phone_of(name), bot_label=settings.whatsapp_bot_label, log_format=settings.log_format,
        debug=settings.debug, number=name, client_uuid=f"promptpipe-{name}", own_executor=False))
