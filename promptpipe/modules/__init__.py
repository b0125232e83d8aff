"""Conversation modules (intake, feedback) and the tool loop they share."""

from promptpipe.modules.agent import AgentModule
from promptpipe.modules.feedback import FEEDBACK
from promptpipe.modules.intake import INTAKE
from promptpipe.modules.toolloop import MAX_ROUNDS, LoopResult, run_tool_loop

__all__ = ["FEEDBACK", "INTAKE", "MAX_ROUNDS", "AgentModule", "LoopResult", "run_tool_loop"]
