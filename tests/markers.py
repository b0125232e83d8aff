"""Marks shared by the test modules."""

from __future__ import annotations

import pytest

__all__ = ["SQLITE_ONLY"]

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
"""For a test of what happens above the database (sessions, cookies, CSRF, rate limits, what a
role may see, the HTTP contract): both databases run the same code there, and the PostgreSQL run
only cost CI time. Tests of reads, writes, paging and counts keep both."""
