"""PostgreSQL: a pooled connection the server dropped while it sat idle (a restart, an idle timeout) is replaced
before a transaction uses it; one used moments ago is trusted without a round trip (storage/pool_ping.py)."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import OperationalError

from promptpipe.storage.pool_ping import ping_when_idle
from promptpipe.storage.urls import sync_url

POSTGRES_ONLY = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def engine(database_url: str, clock: Clock) -> Iterator[Engine]:
    engine = create_engine(sync_url(database_url), pool_size=1, max_overflow=0)
    ping_when_idle(engine, idle_s=1.0, monotonic=clock)
    yield engine
    engine.dispose()


def drop_connections(database_url: str) -> int:
    """What a server restart does to the pool: every other connection to the database is closed."""
    with psycopg.connect(sync_url(database_url).replace("postgresql+psycopg://", "postgresql://")) as admin:
        row = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()
    assert row is not None
    return int(row[0])


def answer(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(text("SELECT 41 + 1")).scalar_one())


@POSTGRES_ONLY
def test_a_connection_dropped_while_idle_is_replaced_before_use(engine: Engine, database_url: str,
                                                                clock: Clock) -> None:
    assert answer(engine) == 42
    assert drop_connections(database_url) == 1
    clock.now += 5  # idle for longer than a second
    assert answer(engine) == 42


@POSTGRES_ONLY
def test_a_connection_used_moments_ago_goes_unpinged_and_a_drop_costs_one_transaction(
    engine: Engine, database_url: str, clock: Clock
) -> None:
    assert answer(engine) == 42
    assert drop_connections(database_url) == 1
    clock.now += 0.2
    with pytest.raises(OperationalError):
        answer(engine)  # no ping: the transaction meets the closed connection
    assert answer(engine) == 42  # and the pool has replaced it
