"""The upgrade tests start from nothing: each loads what an older release left (or makes the
schema itself), so here every fixture built on ``database_url`` (the app factory, the admin
script's environment) uses an empty database instead of a copy of the current schema."""

from __future__ import annotations

import pytest


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    return empty_database_url
