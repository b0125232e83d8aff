"""Pilot mode: a sandbox participant the research team chats with in the browser as on WhatsApp, on a clock of its own
that can skip ahead to the next prompt, reminder or self-report. Nothing in it can reach a participant, WhatsApp, the
study's database or its export."""

from promptpipe.pilot.desk import IDLE_LIMIT, MOST_PILOTS, PilotDesk
from promptpipe.pilot.engine import Compose, Engine, Pilot
from promptpipe.pilot.views import PilotMessage, PilotView, Skipped, SkipTo

__all__ = ["IDLE_LIMIT", "MOST_PILOTS", "Compose", "Engine", "Pilot", "PilotDesk", "PilotMessage", "PilotView",
           "SkipTo", "Skipped"]
