"""Pilot mode: a sandbox participant the team chats with in the browser, on a clock of its own that can skip ahead.
Nothing in it can reach a participant, WhatsApp, the study's database or its export."""

from promptpipe.pilot.desk import IDLE_LIMIT, PilotDesk
from promptpipe.pilot.engine import Pilot
from promptpipe.pilot.views import SkipTo

__all__ = ["IDLE_LIMIT", "Pilot", "PilotDesk", "SkipTo"]
