"""Pilot mode: a sandbox participant the research team chats with in the browser, as a participant would on WhatsApp,
with a clock of its own that can skip ahead to the next prompt, reminder or self-report.

A pilot is a private engine (:mod:`.engine`): the service's own parts, built by the composition root from the same
settings (the study protocol, the prompts, the model endpoint), but on a temporary SQLite database of its own, a memory
transport and a manual clock. Nothing in it can reach a participant, WhatsApp, the study's database or its export. Its
alarms are fired from its own tables (:mod:`.alarms`); :mod:`.desk` keeps at most a few running, one per researcher, and
ends those left idle. What a page reads of one is in :mod:`.views`."""

from promptpipe.pilot.desk import IDLE_LIMIT, MOST_PILOTS, PilotDesk
from promptpipe.pilot.engine import Compose, Engine, Pilot
from promptpipe.pilot.views import PilotMessage, PilotView, Skipped, SkipTo

__all__ = ["IDLE_LIMIT", "MOST_PILOTS", "Compose", "Engine", "Pilot", "PilotDesk", "PilotMessage", "PilotView",
           "SkipTo", "Skipped"]
