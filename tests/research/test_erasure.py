"""`promptpipe-admin erase`: a participant's personal data is gone from every table afterwards
(checked by a full-text scan), a pseudonymous tombstone and the counts stay, nothing pending is
processed or sent, and the command asks before it acts."""

from __future__ import annotations

import asyncio
import functools
import io
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, select, text
from sqlmodel import SQLModel

from promptpipe.cli import admin_main
from promptpipe.errors import AdminError
from promptpipe.research import admin, erasure, oversight
from promptpipe.storage.access import add_audit
from promptpipe.storage.service_status import LAST_MODEL_ERROR, save_status
from promptpipe.transport import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer

ANA = "+14165550123"
LID = "987654321012"
NAME = "Ana Lindqvist"
BACKGROUND = "Works night shifts at the bakery on Dundas Street"
SAID = [
    "I want to walk more after my morning coffee",
    "it matters because I want to keep up with my grandchildren",
    "some nights I want to hurt myself",
    "one more thing before I go: my knee hurts on stairs",
]
PRIVATE = [ANA, ANA[1:], LID, NAME, "Lindqvist", "Dundas Street", "morning coffee", "grandchildren", "hurt myself",
           "knee hurts", "Hi Ana", "walking after coffee", "keep up with the kids"]


async def a_month_of_data(make_app: AppFactory, fake: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    """A participant with a profile, a schedule, a prompt and its vote, a flag, STOP and START,
    a LID mapping, and one message still waiting when the researcher erases them."""
    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name=NAME, timezone="America/Toronto",
                                                          background=BACKGROUND))
    fake.say(f"Hi {NAME}! Welcome to the study.", match="has just been enrolled")
    await app.run_until_idle()
    fake.call_tools([("save_user_profile", {"habit_domain": "walking after coffee",
                                            "prompt_anchor": "after my morning coffee",
                                            "preferred_time": "08:00"}),
                     ("scheduler", {"action": "create", "type": "fixed", "fixed_time": "08:00"})], match=SAID[0])
    fake.say("Lovely, Ana. Why does it matter?", match="SAVED")
    await transport.inject(ANA, SAID[0], lid=LID)
    await app.run_until_idle()
    fake.call_tool("save_user_profile", {"motivational_frame": "keep up with the kids (grandchildren)"}, match=SAID[1])
    fake.say("That is a great reason.", match="SAVED")
    await transport.inject(ANA, SAID[1])
    await app.run_until_idle()
    fake.say("I'm glad you told me, Ana.", match=SAID[2])
    await transport.inject(ANA, SAID[2])
    await app.run_until_idle()
    await oversight.resolve(app.db, app.clock, flag_id=1, note="called Ana Lindqvist at home", by="Dr Lee")
    for word in ("STOP", "START"):
        await transport.inject(ANA, word)
        await app.run_until_idle()
    fake.say("Ana, after your morning coffee, walk to the corner and back.", match="scheduled daily nudge")
    await admin.send_prompt_now(app.db, app.clock, phone=ANA)
    await app.run_until_idle()
    poll = next(sent for sent in transport.sent if sent.kind == "poll")
    await transport.inject(ANA, "", vote=PollVote(poll.message_id, (poll_option_hash("Done"),)))
    await app.run_until_idle()
    await admin.simulate(app.db, app.clock, phone=ANA, text=SAID[3])  # waiting: not processed yet
    participant_id = (await admin.show(app.db, ANA)).id
    await app.db.run(functools.partial(_team_notes_and_a_model_error, participant_id=participant_id,
                                       now=app.clock.now()))
    return app, transport


def _team_notes_and_a_model_error(session: Any, participant_id: str, now: Any) -> None:
    """What the team and the model server may have written about her outside the transcript: a
    pause reason in the audit log, and a provider's error message that quoted her."""
    add_audit(session, actor="Dr Lee", role="researcher", action="pause", participant_id=participant_id,
              detail={"changed": True, "reason": f"{NAME} is in hospital, grandchildren visiting"}, via="dashboard",
              now=now)
    save_status(session, LAST_MODEL_ERROR, {"at": now.isoformat(), "type": "LLMRejected",
                                            "error": f"Invalid content: '{SAID[3]}'"}, now)


async def everything_stored(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Every value of every row of every table (ours and APScheduler's), as text."""

    def read(session: Any) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        tables = [t.name for t in SQLModel.metadata.sorted_tables]
        if "apscheduler_jobs" in inspect(session.connection()).get_table_names():
            tables.append("apscheduler_jobs")
        for table in tables:
            for row in session.execute(text(f'SELECT * FROM "{table}"')).all():
                for value in row:
                    if isinstance(value, (bytes, bytearray, memoryview)):
                        shown = bytes(value).decode("utf-8", "ignore") + bytes(value).decode("latin-1")
                    elif isinstance(value, (dict, list)):
                        shown = json.dumps(value, ensure_ascii=False)
                    else:
                        shown = str(value)
                    found.append((table, shown))
        return found

    return await app.db.run(read)


def leaks(values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(table, secret) for table, value in values for secret in PRIVATE if secret.lower() in value.lower()]


async def test_erase_leaves_nothing_personal_in_any_table(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await a_month_of_data(make_app, fake_openai)
    before = await everything_stored(app)
    assert {secret for _, secret in leaks(before)} == set(PRIVATE)  # the scan does find them before
    person = await admin.show(app.db, ANA)
    sent_before, requests_before = len(transport.sent), len(fake_openai.requests)

    done = await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA, by="Dr Lee")
    assert (done.participant_id, done.pending_inputs_closed) == (person.id, 1)

    assert leaks(await everything_stored(app)) == []
    await app.run_until_idle()  # the running service: nothing more is answered or sent
    assert (len(transport.sent), len(fake_openai.requests)) == (sent_before, requests_before)
    assert leaks(await everything_stored(app)) == []
    fake_openai.assert_complete()


async def test_the_tombstone_keeps_the_id_the_counts_and_the_consent_record(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, _ = await a_month_of_data(make_app, fake_openai)
    person = await admin.show(app.db, ANA)
    counters = person.counters
    assert counters["prompts_sent"] == 1 and counters["successes"] == 1
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA, by="Dr Lee")

    from promptpipe.storage.models import ConsentEvent, Conversation, Message, Participant
    from promptpipe.storage.prompt_tables import PromptDelivery, Schedule

    def read(session: Any) -> dict[str, Any]:
        tomb = session.get(Participant, person.id)
        return {
            "tomb": (tomb.phone, tomb.name, tomb.status, tomb.erased_by, tomb.erased_at is not None),
            "counters": session.get(Conversation, person.id).profile.get("counters"),
            "messages": session.execute(select(Message.direction, Message.kind, Message.text)).all(),
            "votes": session.execute(select(PromptDelivery.local_date, PromptDelivery.vote)).all(),
            "consent": session.execute(select(ConsentEvent.event, ConsentEvent.source, ConsentEvent.actor)
                                       .order_by(ConsentEvent.id)).all(),
            "schedules": session.execute(select(Schedule.active)).scalars().all(),
        }

    kept = await app.db.run(read)
    assert kept["tomb"] == (f"erased:{person.id}", "", "withdrawn", "Dr Lee", True)
    assert kept["counters"] == counters
    assert len(kept["messages"]) == person.messages_in + person.messages_out  # rows stay, texts go
    assert {text for _, _, text in kept["messages"]} == {""}
    assert [vote for _, vote in kept["votes"]] == ["done"]
    assert kept["consent"][-1] == ("erased", "researcher", "Dr Lee")
    assert [event for event, _, _ in kept["consent"]] == ["enrolled", "opted_out", "opted_in", "erased"]
    assert kept["schedules"] == [False]
    with pytest.raises(AdminError, match="is not enrolled"):
        await admin.show(app.db, ANA)
    with pytest.raises(AdminError, match="is not enrolled"):  # erasing twice
        await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA)
    fake_openai.assert_complete()


async def test_sqlite_files_hold_no_trace_after_erase(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, database_url: str
) -> None:
    if not database_url.startswith("sqlite"):
        pytest.skip("a file-level check for SQLite; PostgreSQL keeps old row versions until autovacuum (README)")
    app, _ = await a_month_of_data(make_app, fake_openai)
    path = Path(database_url.split(":///", 1)[1])
    done = await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA, by="Dr Lee")
    assert done.checkpoint == "ok"
    raw = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    assert [s for s in PRIVATE if s.encode() in raw] == []
    fake_openai.assert_complete()


async def test_the_command_asks_before_it_erases(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, database_url: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana\x1b[2J", timezone="UTC"))

    def run(*args: str, answer: str | None = None) -> tuple[int, str, str]:
        if answer is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(answer))
        code = admin_main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    code, out, err = await asyncio.to_thread(run, "erase", "--phone", ANA, answer="+14165550100\n")
    assert code == 1 and "cancelled" in err and "nothing was changed" in err
    assert "\x1b" not in out and "Ana\\x1b[2J" in out
    assert (await admin.show(app.db, ANA)).name == "Ana\x1b[2J"
    code, out, _ = await asyncio.to_thread(run, "erase", "--phone", ANA, answer="")  # no answer (end of input)
    assert code == 1
    code, out, _ = await asyncio.to_thread(run, "erase", "--phone", ANA, "--by", "Dr Lee", answer="+1 416 555 0123\n")
    assert code == 0 and "erased p_" in out and ANA not in out.split("confirm:", 1)[-1]
    code, _, err = await asyncio.to_thread(run, "erase", "--phone", ANA, "--yes")
    assert code == 1 and "is not enrolled" in err
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana again",
                                                          timezone="UTC"))  # a new enrollment
    code, out, _ = await asyncio.to_thread(run, "erase", "--phone", ANA, "--yes")
    assert code == 0
    fake_openai.assert_complete()
