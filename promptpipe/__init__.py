"""PromptPipe: a WhatsApp agent for behavioural research."""

__version__ = "0.1.0"
