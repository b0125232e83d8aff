"""Conversation modules (intake, feedback) and the tool loop they share."""

from promptpipe.agents.agent import AgentModule
from promptpipe.agents.feedback import FEEDBACK
from promptpipe.agents.intake import INTAKE
from promptpipe.agents.toolloop import MAX_ROUNDS, LoopResult, run_tool_loop

__all__ = ["FEEDBACK", "INTAKE", "MAX_ROUNDS", "AgentModule", "LoopResult", "run_tool_loop"]
