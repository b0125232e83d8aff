"""Conversation flow: routing of inbox batches to commands, events and modules."""

from promptpipe.flow.router import APOLOGY, ConversationFlow, FlowConfig, retry_delay

__all__ = ["APOLOGY", "ConversationFlow", "FlowConfig", "retry_delay"]
