"""The persona the evaluation tests start from, as a personas file's TOML."""

from __future__ import annotations

MAYA = """
[[persona]]
name = "Maya"
habit = "a 10-minute walk around the block"
preferred_time = "12:30"
anchor = "after lunch"
motivation = "my back hurts by Friday"
answer_rate = 1.0
"""
"""Answers every message; add lines (``adherence = …``) after it to change her."""
