"""The consent promise as one stateful property, driven through every door in random order and
timing (issue 46):

    nothing is sent to a participant after their latest STOP (by their own clock) unless a later
    START of theirs came, except the STOP's own confirmation and the answers to what they write
    after it; nothing at all after their erasure, and nothing but the safety message after their
    withdrawal; nothing is lost; nothing is sent twice.

Hypothesis' ``RuleBasedStateMachine`` plays three participants and their research team against
the running service (SQLite, and PostgreSQL with a third as many examples; the memory transport,
playing a pilot or a deployment that reaches people; the fake model server; the manual clock; a
quarter of a send a second): messages in and out of order and delivered twice, STOP, START and HELP
in several languages, pause, resume, withdraw, erase and enrol again, team messages, broadcasts,
prompts now, questionnaires, simulated messages, the dispatcher holding claimed rows while the
rest happens, quiet hours, model outages and restarts. Every send is judged at the moment the
transport is called, against the inputs the service has processed by then (read through a
connection of the test's own), classified by the test, not by the service's code.

CI runs ``CONSENT_EXAMPLES`` examples (15 by default) of up to ``CONSENT_STEPS`` steps (30),
derandomised so a run is repeatable; ``CONSENT_EXPLORE=1`` draws new ones each run. The README gives
the figures of a longer run.
"""

from __future__ import annotations

import pytest

from tests.databases import PostgresDatabases


@pytest.mark.long
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_consent_holds_through_every_door(
    database: str, postgres_databases: PostgresDatabases | None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hypothesis import settings

    from tests.consent_machine import EXAMPLES, ConsentMachine

    if database == "postgresql":
        if postgres_databases is None:
            pytest.skip("PostgreSQL run skipped: set TEST_POSTGRES_URL=postgresql://user@host:5432/db to include it")
        databases = postgres_databases
        monkeypatch.setattr(ConsentMachine, "new_database", staticmethod(lambda _folder: databases.copy()))
        monkeypatch.setattr(ConsentMachine.TestCase, "settings", settings(
            ConsentMachine.TestCase.settings, max_examples=max(1, EXAMPLES // 3)))
    ConsentMachine.TestCase().runTest()
