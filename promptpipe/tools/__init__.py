"""Tools the model may call. Each only touches the participant whose turn it is."""

from promptpipe.tools.base import PromptTexts, Tool, ToolContext, format_tool_error
from promptpipe.tools.concern import FLAG_CONCERN
from promptpipe.tools.opt_out import OPT_OUT
from promptpipe.tools.profile import SAVE_USER_PROFILE
from promptpipe.tools.prompt_generator import GENERATE_HABIT_PROMPT, write_habit_prompt
from promptpipe.tools.scheduler import SCHEDULER
from promptpipe.tools.transition import TRANSITION_STATE

__all__ = ["FLAG_CONCERN", "GENERATE_HABIT_PROMPT", "OPT_OUT", "SAVE_USER_PROFILE", "SCHEDULER", "TRANSITION_STATE",
           "PromptTexts", "Tool", "ToolContext", "format_tool_error", "write_habit_prompt"]
