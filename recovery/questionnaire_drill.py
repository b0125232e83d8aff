"""Questionnaire drill: kill the service with SIGKILL while participants answer a questionnaire
item by item, and count what was asked and what was recorded.

It seeds N participants of a study with one six-item questionnaire of mixed types (yes/no, a single
and a multiple choice, a scale: polls; a number and words: typed), has the research team send it
to each of them, and runs ``promptpipe serve`` in dry-run mode (recovery/drill.py's set-up: the
journal plays the phone network). Each participant reads the journal like a phone: when an item
reaches them they answer it after a moment's thought, as a tap on its poll or a typed reply, stored
as WhatsApp's messages are (while the service is down too, as WhatsApp keeps messages for a phone
that is offline). The drill kills the service with SIGKILL while the first items go out and then
at moments spread over the answers, each time shortly after an answer was stored (so the answer is
waiting, in its turn, or being sent on), and restarts it at once. At the end, per participant:
every item asked exactly once (no item skipped, none repeated), the intro and the closing once,
nothing else sent, every answer recorded once with the value sent, and the instance completed.
Exit status 1 on any loss, repetition or wrong value.

    .venv/bin/python recovery/questionnaire_drill.py                  # 8 participants, 5 kills, SQLite
    .venv/bin/python recovery/questionnaire_drill.py --participants 40 --kills 10
    .venv/bin/python recovery/questionnaire_drill.py --database-url postgresql://postgres@127.0.0.1:5432/drill
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from promptpipe.clock import SystemClock  # noqa: E402
from promptpipe.domain.states import Stage, Status  # noqa: E402
from promptpipe.logging import configure_logging  # noqa: E402
from promptpipe.pipeline.inbox import Inbox, InboxConfig  # noqa: E402
from promptpipe.questionnaires.operations import send_questionnaire  # noqa: E402
from promptpipe.questionnaires.rules.answers import Answer, poll_options, read_typed, read_vote  # noqa: E402
from promptpipe.questionnaires.rules.definition import Questionnaire, QuestionnaireItem  # noqa: E402
from promptpipe.storage.db import Database  # noqa: E402
from promptpipe.storage.models import Conversation, Message, Participant, table_of  # noqa: E402
from promptpipe.storage.queue_tables import InboxItem  # noqa: E402
from promptpipe.study.rules.file import parse_study  # noqa: E402
from promptpipe.study.rules.protocol import Study  # noqa: E402
from promptpipe.study.store.protocol import adopt_protocol  # noqa: E402
from promptpipe.study.store.tables import QuestionnaireAnswer, QuestionnaireInstance  # noqa: E402
from promptpipe.transport import InboundMessage, PollVote, poll_option_hash  # noqa: E402
from recovery.drill import database_report, phone_of, service_starts, start_model  # noqa: E402
from recovery.services import kill, read_journal, service_env, start_service, stop  # noqa: E402

INTRO = "Drill: six quick questions about today."
CLOSING = "Drill: thank you, that was all for today."
STUDY = f"""
name = "Questionnaire drill"
length_days = 28

[[questionnaires]]
id = "evening"
title = "Evening check"
intro = "{INTRO}"
closing = "{CLOSING}"
send = {{ event = "enrollment" }}
open_for = "2h"

[[questionnaires.items]]
id = "smoked"
text = "Did you smoke today?"
type = "yes_no"

[[questionnaires.items]]
id = "mood"
text = "How was your mood today?"
type = "single_choice"
options = ["Low", "Okay", "Good"]

[[questionnaires.items]]
id = "stress"
text = "How stressed did you feel today?"
type = "scale"
min = 1
max = 5
min_label = "not at all"
max_label = "very"

[[questionnaires.items]]
id = "cigarettes"
text = "How many cigarettes did you smoke?"
type = "number"
min = 0
max = 60

[[questionnaires.items]]
id = "triggers"
text = "What made you want to smoke? Choose all that apply."
type = "multiple_choice"
options = ["Stress", "Coffee", "Friends", "Boredom"]

[[questionnaires.items]]
id = "note"
text = "Anything else about today?"
type = "text"
"""
"""Six items, four asked as polls and two typed; every item is shown (no condition), none optional.
The drill's participants are seeded past enrolment, so the research team sends it to each."""


@dataclass(frozen=True)
class Reply:
    """What participant ``index`` answers to ``item``: options tapped (in the poll's order), or words."""

    item: QuestionnaireItem
    labels: tuple[str, ...] = ()
    text: str = ""

    @property
    def expected(self) -> Answer:
        """What the answer means, as the study file defines it (its raw reply and coded value)."""
        result = read_vote(self.item, list(self.labels)) if self.item.is_poll else read_typed(self.item, self.text)
        assert isinstance(result, Answer), f"the drill's answer to {self.item.id} does not fit it"
        return result


def reply_of(index: int, item: QuestionnaireItem) -> Reply:
    """Participant ``index``'s answer: different participants answer differently."""
    if item.is_poll:
        options = poll_options(item)
        chosen = {index % len(options)}
        if item.id == "triggers":
            chosen.add((index + 1) % len(options))
        return Reply(item, labels=tuple(option for n, option in enumerate(options) if n in chosen))
    if item.id == "cigarettes":
        return Reply(item, text=str(index + 3))
    return Reply(item, text=f"Drill note {index}: a long walk after dinner")


def questionnaire(study: Study) -> Questionnaire:
    found = study.questionnaire("evening")
    assert found is not None
    return found


async def seed(database_url: str, study: Study, participants: int) -> None:
    """The study, participants in it (past intake, no daily schedule: only the questionnaire
    writes to them), and the questionnaire sent to each by the research team."""
    db = Database(database_url)
    await db.connect()
    clock = SystemClock()
    now = clock.now()

    def write(session: Any) -> None:
        adopt_protocol(session, study, allow_change=False, now=now, by="questionnaire drill")
        for index in range(participants):
            pid = f"p_qdrill{index:05d}"
            session.add(Participant(id=pid, phone=phone_of(index), name=f"Drill {index}", timezone="America/Toronto",
                                    status=Status.ACTIVE, enrolled_at=now, updated_at=now))
            session.flush()
            session.add(Conversation(participant_id=pid, sub_state=Stage.FEEDBACK, updated_at=now, profile={
                "habit_domain": "walking", "prompt_anchor": "after dinner", "preferred_time": "19:00",
                "motivational_frame": "sleep better"}))

    await db.run(write)
    for index in range(participants):
        await send_questionnaire(db, clock, study, phone=phone_of(index), questionnaire_id="evening")
    await db.close()


@dataclass
class Phones:
    """The participants' side: what reached their phones, and what they answered."""

    db: Database
    study: Study
    participants: int
    rng: random.Random
    think: tuple[float, float]
    seen: set[str] = field(default_factory=set)
    """Journal ids read."""
    waiting: list[tuple[float, int, Reply, str]] = field(default_factory=list)
    """(when, participant, reply, the asking message's id) to answer."""
    asked: set[tuple[int, str]] = field(default_factory=set)
    answered: int = 0
    closed: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.inbox = Inbox(self.db, SystemClock(), InboxConfig(auto_enroll=False, default_timezone="UTC"),
                           wake=lambda *_: None)
        self.items = {item.text: item for item in questionnaire(self.study).items}
        self.index = {phone_of(index): index for index in range(self.participants)}

    def read(self, journal: Path) -> int:
        """New messages on the phones: each item asked the first time is answered after a moment
        (a repeat is counted at the end, not answered again). How many were new."""
        new = 0
        for entry in read_journal(journal):
            if entry["id"] in self.seen or entry["to"] not in self.index:
                continue
            self.seen.add(entry["id"])
            new += 1
            index = self.index[entry["to"]]
            if entry["text"] == CLOSING:
                self.closed.add(index)
            item = self.items.get(entry["text"].split("\n")[0])
            if item is not None and (index, item.id) not in self.asked:
                self.asked.add((index, item.id))
                when = time.monotonic() + self.rng.uniform(*self.think)
                self.waiting.append((when, index, reply_of(index, item), entry["id"]))
        return new

    async def answer_due(self) -> int:
        """Store the answers whose moment came (a tap once the service knows its poll was sent: a
        vote on a poll it has no record of cannot be read); how many."""
        stored = 0
        for entry in sorted(self.waiting, key=lambda waiting: waiting[0]):
            when, index, reply, asked_by = entry
            if when > time.monotonic():
                break
            if reply.labels and not await self._known(asked_by):
                continue
            vote = PollVote(asked_by, tuple(poll_option_hash(label) for label in reply.labels)) if reply.labels \
                else None
            await self.inbox.ingest(InboundMessage(
                message_id=f"DRILLIN{index:04d}{reply.item.id}", sender_phone=phone_of(index), sender_lid=None,
                sender_name="", text=reply.text, timestamp=datetime.now(timezone.utc), poll_vote=vote))
            self.waiting.remove(entry)
            self.answered += 1
            stored += 1
        return stored

    async def _known(self, wa_message_id: str) -> bool:
        return bool(await self.db.run(lambda session: session.execute(
            select(Message.id).where(Message.wa_message_id == wa_message_id)).first()))


async def drive(database_url: str, study: Study, journal: Path, env: dict[str, str], log: IO[bytes],
                args: argparse.Namespace, rng: random.Random) -> list[str]:
    """Run the service, the phones and the kills until every participant got the closing line (or
    nothing moved for ``--stall`` seconds: a slow machine only makes the drill longer); the service
    is stopped at the end. What each kill hit."""
    db = Database(database_url)
    await db.connect()
    phones = Phones(db, study, args.participants, rng, (args.think_min, args.think_max))
    total = args.participants * len(questionnaire(study).items)
    thresholds = [0] + [round(k * total / args.kills) for k in range(1, args.kills)]
    """Kill k comes once this many answers are stored (the first: once the first message went out)."""
    notes: list[str] = []
    kill_at: float | None = None
    sent_since_start = 0
    deadline = time.monotonic() + args.stall
    service = start_service(env, log)
    try:
        while len(phones.closed) < args.participants and time.monotonic() < deadline:
            arrived = phones.read(journal)
            sent_since_start += arrived
            stored = await phones.answer_due()
            if arrived or stored:
                deadline = time.monotonic() + args.stall
            kills = len(notes)
            if (kill_at is None and kills < args.kills and sent_since_start > 0
                    and phones.answered >= thresholds[kills] and (stored or kills == 0)):
                kill_at = time.monotonic() + rng.uniform(0, args.kill_delay if kills else 0.05)  # the first: mid-burst
            if kill_at is not None and time.monotonic() >= kill_at:
                kill(service)
                phones.read(journal)  # what the killed run sent: a kill comes only once the next one sent something
                waiting = await db.run(lambda session: session.execute(
                    select(func.count()).select_from(InboxItem).where(InboxItem.status == "pending")).scalar_one())
                notes.append(f"SIGKILL {kills + 1} with {phones.answered} of {total} answers stored, "
                             f"{waiting} inputs not yet done, {len(phones.seen)} messages out")
                print(f"  {notes[-1]}; restarting", flush=True)
                service, kill_at, sent_since_start = start_service(env, log), None, 0
            await asyncio.sleep(0.02)
        await asyncio.sleep(3)  # anything extra (an item asked twice) would show up now
        phones.read(journal)
    finally:
        stop(service)
        await db.close()
    return notes


@dataclass(frozen=True)
class Recorded:
    answers: list[tuple[str, str, str | None, str | None, str | None, str | None, int]]
    """(participant, item, raw, coded, source, missing, tries) of every questionnaire_answer row."""
    instances: list[tuple[str, str, str | None]]
    """(participant, status, current item)"""
    inbound: dict[str, int]
    """Messages stored from each participant."""
    outbound: dict[str, int]
    """Messages to each participant in the transcript."""


async def recorded(database_url: str) -> Recorded:
    db = Database(database_url)
    await db.connect()
    answer, instance = table_of(QuestionnaireAnswer), table_of(QuestionnaireInstance)

    def read(session: Any) -> Recorded:
        answers = session.execute(select(answer.c.participant_id, answer.c.item_id, answer.c.raw, answer.c.coded,
                                         answer.c.source, answer.c.missing, answer.c.tries)).all()
        instances = session.execute(select(instance.c.participant_id, instance.c.status,
                                           instance.c.current_item)).all()
        def per_participant(direction: str) -> dict[str, int]:
            return dict(session.execute(select(Message.participant_id, func.count())
                                        .where(Message.direction == direction).group_by(Message.participant_id)).all())

        return Recorded([tuple(row) for row in answers], [tuple(row) for row in instances], per_participant("in"),
                        per_participant("out"))

    found = await db.run(read)
    await db.close()
    return found


def tally(study: Study, participants: int, sent: list[dict[str, Any]], found: Recorded) -> dict[str, Any]:
    """The figures: per item asked and per answer recorded, expected, delivered, lost, repeated."""
    items = questionnaire(study).items
    by_text = {item.text: item.id for item in items}
    asked: Counter[tuple[str, str]] = Counter()
    framing: Counter[tuple[str, str]] = Counter()
    other = 0
    for entry in sent:
        item = by_text.get(entry["text"].split("\n")[0])
        if item is not None:
            asked[(entry["to"], item)] += 1
        elif entry["text"] in (INTRO, CLOSING):
            framing[(entry["to"], entry["text"])] += 1
        else:
            other += 1
    phones = [phone_of(index) for index in range(participants)]
    pids = {phone_of(index): f"p_qdrill{index:05d}" for index in range(participants)}
    rows: Counter[tuple[str, str]] = Counter((pid, item) for pid, item, *_ in found.answers)
    values = {(pid, item): tuple(rest) for pid, item, *rest in found.answers}
    wrong = []
    for index, phone in enumerate(phones):
        for item in items:
            expected = reply_of(index, item).expected
            want = (expected.raw, expected.coded, expected.source.value, None, 0)
            got = values.get((pids[phone], item.id))
            if got is not None and got != want:
                wrong.append(f"{phone} {item.id}: recorded {got}, sent {want}")
    answered = {key for key, value in values.items() if value[0] is not None and value[3] is None}
    expected_answers = [(pids[phone], item.id) for phone in phones for item in items]
    statuses = Counter(status for _, status, _ in found.instances)
    return {
        "items asked": _row([asked[(phone, item.id)] for phone in phones for item in items]),
        "answers recorded": {
            "expected": len(expected_answers), "recorded": sum(1 for key in expected_answers if key in answered),
            "lost": sum(1 for key in expected_answers if key not in answered),
            "repeated": sum(count - 1 for count in rows.values() if count > 1)
            + sum(max(0, found.inbound.get(pids[phone], 0) - len(items)) for phone in phones)},
        "intros and closings": _row([framing[(phone, text)] for phone in phones for text in (INTRO, CLOSING)]),
        "wrong values": wrong,
        "other messages": other,
        "transcripts not as sent": [phone for phone in phones
                                    if found.outbound.get(pids[phone], 0) != len(items) + 2],
        "instances": dict(statuses),
        "completed": statuses.get("completed", 0),
        "instances with an item under way": sum(1 for _, _, current in found.instances if current is not None),
    }


def _row(counts: list[int]) -> dict[str, int]:
    return {"expected": len(counts), "delivered": sum(counts), "lost": sum(1 for n in counts if n == 0),
            "repeated": sum(n - 1 for n in counts if n > 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=8)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--think-min", type=float, default=0.1, help="seconds a participant takes, at least")
    parser.add_argument("--think-max", type=float, default=0.8, help="seconds a participant takes, at most")
    parser.add_argument("--kill-delay", type=float, default=0.4,
                        help="a kill comes up to this many seconds after the answer that triggers it")
    parser.add_argument("--stall", type=float, default=150,
                        help="give up once nothing arrived and nothing was answered for this many seconds")
    parser.add_argument("--database-url", help="default: a fresh SQLite file in the drill directory")
    parser.add_argument("--seed", type=int, help="random seed for the kill moments and the pauses to think")
    parser.add_argument("--report", type=Path, help="also write the figures to this file as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the drill directory (logs, database, journal)")
    args = parser.parse_args(argv)
    if args.kills < 1 or args.participants < 1:
        parser.error("--kills and --participants must be at least 1")
    rng = random.Random(args.seed)
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="promptpipe-qdrill-"))
    database_url = args.database_url or f"sqlite:///{workdir / 'drill.db'}"
    study_file = workdir / "study.toml"
    study_file.write_bytes(STUDY.encode())  # the same bytes (and hash) as the protocol seeded
    study = parse_study(STUDY.encode())
    journal, log_path = workdir / "delivered.jsonl", workdir / "service.log"
    items = len(questionnaire(study).items)
    print(f"questionnaire drill: {args.participants} participants x {items} items, {args.kills} SIGKILLs, "
          f"{database_url.partition(':')[0]}; directory {workdir}", flush=True)

    phones_log = open(workdir / "phones.log", "a", encoding="utf-8")  # noqa: SIM115
    configure_logging("json", stream=phones_log)  # the drill's own side (answers stored) logs apart
    asyncio.run(seed(database_url, study, args.participants))
    model = start_model(0.2)  # nothing here should reach the coach: a reply of it shows as another message
    env = service_env(model.url, database_url, workdir, journal, study_file, AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="off",
                      FEEDBACK_INITIAL_TIMEOUT="0", FEEDBACK_FOLLOWUP_DELAY="0", INTENSITY_POLL_ENABLED="off")
    with open(log_path, "ab") as log:
        notes = asyncio.run(drive(database_url, study, journal, env, log, args, rng))
    model.shutdown()
    phones_log.close()

    figures = tally(study, args.participants, read_journal(journal), asyncio.run(recorded(database_url)))
    details = asyncio.run(database_report(database_url))
    starts, interrupted = service_starts(log_path)
    print(f"{'':22}{'expected':>9}{'delivered':>10}{'lost':>6}{'repeated':>9}")
    for label in ("items asked", "answers recorded", "intros and closings"):
        row = list(figures[label].values())
        print(f"{label:22}{row[0]:>9}{row[1]:>10}{row[2]:>6}{row[3]:>9}")
    print(f"instances: {figures['instances']}; with an item still under way: "
          f"{figures['instances with an item under way']}")
    print(f"answers recorded with another value than sent: {len(figures['wrong values'])}; "
          f"other messages sent: {figures['other messages']}; transcripts holding other than the intro, "
          f"{items} items and the closing: {len(figures['transcripts not as sent'])}")
    for line in figures["wrong values"][:10]:
        print(f"  {line}")
    print("database: " + ", ".join(f"{k} {v}" for k, v in details.items()))
    print(f"service starts: {starts} (1 + {len(notes)} after SIGKILL; a start killed early logs none); "
          f"sends interrupted by a kill and settled on restart: {interrupted}")
    seconds = time.monotonic() - started
    failed = (any(figures[label]["lost"] or figures[label]["repeated"]
                  for label in ("items asked", "answers recorded", "intros and closings"))
              or bool(figures["wrong values"]) or figures["other messages"] > 0
              or bool(figures["transcripts not as sent"])
              or figures["completed"] != args.participants or len(notes) != args.kills
              or any(details.values()))
    print(f"log: {log_path}; {seconds:.0f} s")
    print("RESULT: " + ("FAILED (an item lost or repeated, an answer lost, repeated or changed, or an instance "
                        "not completed)" if failed else
                        "ok: every item asked once, every answer recorded once as sent, every instance completed"))
    if args.report is not None:
        args.report.write_text(json.dumps({**figures, "kills": notes, "database": details, "service starts": starts,
                                           "sends interrupted": interrupted, "seconds": round(seconds, 1),
                                           "ok": not failed}, indent=2), encoding="utf-8")
    if not args.keep and not failed:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
