"""Conversation flow: each batch of inbox rows becomes one committed outcome (see router.py)."""

from promptpipe.flow.failures import APOLOGY

__all__ = ["APOLOGY"]
