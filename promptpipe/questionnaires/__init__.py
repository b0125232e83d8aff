"""Questionnaires, one feature in four layers (docs/ARCHITECTURE.md); this module imports nothing."""
