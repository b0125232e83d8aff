"""Pilot mode: a sandbox participant the research team chats with in the browser as on WhatsApp, on a clock of its own
that can skip ahead to the next prompt, reminder or self-report. Nothing in it can reach a participant, WhatsApp, the
study's database or its export.

:mod:`.sandbox` is the private engine, :mod:`.engine` one pilot, :mod:`.alarms` its alarms, :mod:`.desk` keeps at most a
few running (one per researcher, idle ones ended), and :mod:`.views` is what a page reads of one."""

from promptpipe.pilot.desk import IDLE_LIMIT, MOST_PILOTS, PilotDesk
from promptpipe.pilot.engine import Compose, Engine, Pilot
from promptpipe.pilot.views import PilotMessage, PilotView, Skipped, SkipTo

__all__ = ["IDLE_LIMIT", "MOST_PILOTS", "Compose", "Engine", "Pilot", "PilotDesk", "PilotMessage", "PilotView",
           "SkipTo", "Skipped"]
