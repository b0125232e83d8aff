"""Questionnaires, one feature in four layers: ``rules/`` (no I/O), ``store/`` (the instance and
answer rows), ``operations`` (what researchers do), ``conversation/`` (asking the items and reading
the replies). This module imports nothing: a rule pulls in no storage."""
