"""Questionnaires, one feature in four layers (docs/ARCHITECTURE.md). This module imports nothing: a rule pulls in no
storage."""
