"""Conversation flow: routing of inbox batches to commands, events and modules."""

from promptpipe.flow.failures import APOLOGY, TOO_LONG, retry_delay
from promptpipe.flow.router import ConversationFlow, FlowConfig

__all__ = ["APOLOGY", "TOO_LONG", "ConversationFlow", "FlowConfig", "retry_delay"]
