"""Conversation flow: each batch of inbox rows becomes one committed outcome (see router.py)."""

from promptpipe.flow.failures import APOLOGY, TOO_LONG, retry_delay
from promptpipe.flow.router import ConversationFlow
from promptpipe.flow.turn import FlowConfig, FlowDeps, Outcome, SafetyConfig

__all__ = ["APOLOGY", "TOO_LONG", "ConversationFlow", "FlowConfig", "FlowDeps", "Outcome", "SafetyConfig",
           "retry_delay"]
