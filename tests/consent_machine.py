"""The machine of the consent property (tests/test_consent_invariant.py): three participants and
their research team against the running service, every send judged as the transport is called.
A module of its own so that only the process that runs the property imports Hypothesis (every
process collects the test module)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from sqlalchemy import Engine, create_engine, text

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.errors import PromptPipeError
from promptpipe.questionnaires.operations import send_questionnaire
from promptpipe.research import admin, erasure
from promptpipe.research.messaging import send_message
from promptpipe.storage.outbox_rows import Claimed
from promptpipe.storage.urls import sync_url
from promptpipe.transport import Recipient, SentMessage
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import make_settings
from tests.databases import SqliteTemplate
from tests.fakes.openai_server import FakeOpenAIServer
from tests.study_helpers import study_file

EXAMPLES = int(os.environ.get("CONSENT_EXAMPLES", "15"))
STEPS = int(os.environ.get("CONSENT_STEPS", "30"))
EXPLORE = os.environ.get("CONSENT_EXPLORE", "") == "1"
"""Random examples instead of the same ones every run (a longer run looking for new failures)."""
REPORT = os.environ.get("CONSENT_REPORT", "")
"""A file each example appends a line of figures to (steps, inputs, sends, held copies, cancelled)."""
PHONES = ("+14165550141", "+14165550142", "+14165550143")

STOP, START, HELP, OTHER = "stop", "start", "help", "other"
WORDS = {
    STOP: ["STOP", "stop please", "Unsubscribe", "Stopp", "стоп", "baja", "sтop", "no más mensajes", "停止"],
    START: ["START", "resume", "empezar", "Starten", "commencer"],
    HELP: ["HELP", "ayuda", "Hilfe", "aide"],
    OTHER: ["hello", "I walked after lunch", "quit", "para", "not today", "how are you?"],
}
"""What participants write, and what the test takes it for. An ambiguous word ("quit", "para")
is no STOP to the test: the service may ask about it or stop, and either is safe."""
LATE_BY = [0, 0, 0, 20, 120, 3600]
"""How long before it arrived a message was sent (Cloud API webhooks out of order, a phone that
was offline)."""

STUDY = '''name = "Consent property"
length_days = 5
day_one = "after_enrollment"

[quiet_hours]
start = "22:00"
end = "07:00"

[[questionnaires]]
id = "check"
title = "Check"
intro = "One question."
closing = "Thanks!"
send = { study_days = [3], at = "19:00" }
open_for = "2h"

[[questionnaires.items]]
id = "ok"
text = "Did today go well?"
type = "yes_no"
'''

_TEMPLATE_DIR = Path(tempfile.mkdtemp(prefix="promptpipe-consent-"))
_TEMPLATE = SqliteTemplate(_TEMPLATE_DIR)


@dataclass
class Input:
    """A message a participant sent, as the test knows it."""

    key: str
    """Its inbox key."""
    phone: str
    kind: str
    said_at: datetime
    order: int
    step: int


class Judge:
    """What the test knows, and the verdict on each send at the moment the transport is called."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.inputs: list[Input] = []
        self.step = 0
        self.erased: set[str] = set()
        self.withdrawn: set[str] = set()
        self.violations: list[str] = []
        self.refs: dict[str, int] = {}

    def _processed(self, phone: str) -> list[Input]:
        """Their inputs the service has processed: every one from an earlier step (each step runs
        until the service is idle), and this step's once its inbox row is no longer pending."""
        mine = [i for i in self.inputs if i.phone == phone]
        now = [i.key for i in mine if i.step == self.step]
        done: set[str] = set()
        if now:
            with self.engine.connect() as connection:
                done = {key for (key,) in connection.execute(text(
                    "SELECT key FROM inbox WHERE status != 'pending' AND key IN ("
                    + ", ".join(f":k{n}" for n in range(len(now))) + ")"), {f"k{n}": k for n, k in enumerate(now)})}
        return [i for i in mine if i.step < self.step or i.key in done]

    def _said_at_of_input(self, inbox_id: int) -> datetime | None:
        with self.engine.connect() as connection:
            key = connection.execute(text("SELECT key FROM inbox WHERE id = :id"), {"id": inbox_id}).scalar()
        found = next((i for i in self.inputs if i.key == key), None)
        return found.said_at if found is not None else None

    def judge(self, phone: str, ref: str, text_: str) -> None:
        self.refs[ref] = self.refs.get(ref, 0) + 1
        if self.refs[ref] > 1:
            self.violations.append(f"sent twice: {ref} to {phone}")
        if phone in self.erased:
            self.violations.append(f"sent to an erased participant: {ref} to {phone}")
            return
        if phone in self.withdrawn and not ref.startswith("safety:"):
            self.violations.append(f"sent to a withdrawn participant: {ref} to {phone}")
            return
        own = sorted((i for i in self._processed(phone) if i.kind in (STOP, START)), key=lambda i: (i.said_at, i.order))
        if not own or own[-1].kind != STOP:
            return
        stop = own[-1]
        if ref.startswith("safety:") or ref.startswith("command-reply:restart-reminder:"):
            return
        if ref.startswith("command-reply:"):
            said = self._said_at_of_input(int(ref.removeprefix("command-reply:")))
            if said is not None and said >= stop.said_at:
                return  # the STOP's confirmation, or the answer to what they wrote after it
        self.violations.append(
            f"sent after the STOP sent at {stop.said_at:%H:%M:%S}: {ref} to {phone} ({text_[:40]!r})")


class JudgedTransport(MemoryTransport):
    """The memory transport, with every send judged as it is made."""

    judge_: Judge | None = None

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        if self.judge_ is not None:
            self.judge_.judge(to.phone, ref, text)
        return await super().send_text(to, text, ref=ref, kind=kind)

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        if self.judge_ is not None:
            self.judge_.judge(to.phone, ref, question)
        return await super().send_poll(to, question, options, ref=ref, multiple=multiple, kind=kind)


def sqlite_copy(folder: Path) -> tuple[str, Callable[[], None]]:
    return _TEMPLATE.copy_to(folder), lambda: None


class ConsentMachine(RuleBasedStateMachine):
    new_database: Callable[[Path], tuple[str, Callable[[], None]]] = staticmethod(sqlite_copy)
    """Where each example's database comes from (a fresh copy of the current schema)."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.folder = Path(tempfile.mkdtemp(prefix="consent-example-", dir=_TEMPLATE_DIR))
        self.url, self._drop = type(self).new_database(self.folder)
        self.engine = create_engine(sync_url(self.url))
        self.judge = Judge(self.engine)
        self.fake = FakeOpenAIServer().start()
        self.fake.always("Thanks for writing! Let's keep going.", match="")
        self.clock = ManualClock()
        self.ids = itertools.count(1)
        self.order = itertools.count(1)
        self.held: list[Claimed] = []
        self.held_total = 0
        self.dropped: set[int] = set()
        self.enrolled: set[str] = set()
        self.app: App | None = None
        self.transport = JudgedTransport()
        self.transport.judge_ = self.judge
        self.live = False

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def _app(self) -> App:
        assert self.app is not None
        return self.app

    async def _start(self) -> None:
        settings_ = make_settings(self.url, self.folder / "state", self.fake.url, SEND_RATE_PER_SECOND="0.25",
                                  SEND_JITTER="0", PROMPTPIPE_STUDY_FILE=study_file(STUDY), LLM_TIMEOUT="2s")
        self.transport.reaches_people = self.live
        self.app = App.build(settings_, transport=self.transport, clock=self.clock)
        await self.app.start(background=False)

    async def _idle(self) -> None:
        await self._app().run_until_idle()

    def _next_step(self) -> None:
        self.judge.step += 1

    # ------------------------------------------------------------------ the doors

    @initialize(live=st.booleans())
    def start(self, live: bool) -> None:
        self.live = live
        self.run(self._start())
        for n, phone in enumerate(PHONES):
            self.run(admin.enroll(self._app().db, self.clock, admin.Enrolment(phone=phone, name=f"P{n}", timezone="UTC",
                                  study=self._app().settings.study)))
            self.enrolled.add(phone)
        self.run(self._idle())

    @rule(who=st.sampled_from(PHONES), kind=st.sampled_from([STOP, STOP, START, HELP, OTHER]), data=st.data())
    def participant_writes(self, who: str, kind: str, data: st.DataObject) -> None:
        self.write(who, kind, data.draw(st.sampled_from(WORDS[kind])), data.draw(st.sampled_from(LATE_BY)))

    def write(self, who: str, kind: str, words: str, late: int) -> None:
        if who not in self.enrolled:
            return  # an unknown number is not heard (auto-enrolment is off)
        self._next_step()
        message_id = f"m{next(self.ids)}"
        said_at = self.clock.now() - timedelta(seconds=late)
        self.judge.inputs.append(Input(f"wa:{message_id}", who, kind, said_at, next(self.order), self.judge.step))
        self.run(self.transport.inject(who, words, message_id=message_id, timestamp=said_at))
        self.run(self._idle())

    @rule(who=st.sampled_from(PHONES), kind=st.sampled_from([STOP, START]), data=st.data())
    def participant_sends_a_command(self, who: str, kind: str, data: st.DataObject) -> None:
        self.participant_writes(who, kind, data)

    @rule(who=st.sampled_from(PHONES))
    def a_message_delivered_twice(self, who: str) -> None:
        mine = [i for i in self.judge.inputs if i.phone == who and i.key.startswith("wa:m")]
        if not mine or who not in self.enrolled:
            return
        self._next_step()
        again = mine[-1]
        self.run(self.transport.inject(who, "STOP" if again.kind == STOP else "hello again",
                                       message_id=again.key.removeprefix("wa:"), timestamp=again.said_at))
        self.run(self._idle())

    @rule(seconds=st.sampled_from([1, 4, 60, 1800, 5 * 3600, 13 * 3600, 26 * 3600]))
    def time_passes(self, seconds: int) -> None:
        self._next_step()
        self.clock.advance(timedelta(seconds=seconds))
        self.run(self._idle())

    TEAM_DOORS = ("pause", "resume", "withdraw", "erase", "enrol again", "message", "prompt now", "questionnaire",
                  "simulate STOP", "simulate START", "simulate hello")

    @rule(who=st.sampled_from(PHONES), door=st.sampled_from(TEAM_DOORS))
    def the_team_acts(self, who: str, door: str) -> None:
        """The research team (admin script, API or dashboard: the same operations) on one participant."""
        if (door == "enrol again") == (who in self.enrolled):
            return
        self._next_step()
        db, study = self._app().db, self._app().settings.study
        if door.startswith("simulate"):
            self._simulate(who, door.removeprefix("simulate "))
        elif door == "erase":
            self.run(erasure.erase(db, self.clock, study=study, phone=who))
            self.enrolled.discard(who)
            self.judge.erased.add(who)
            self.judge.withdrawn.discard(who)
        elif door == "enrol again":
            self.run(admin.enroll(db, self.clock, admin.Enrolment(phone=who, name="Again", timezone="UTC",
                                                                  study=study)))
            self.enrolled.add(who)
            self.judge.erased.discard(who)
        else:
            try:
                if door in ("pause", "resume", "withdraw"):
                    self.run(admin.set_status(db, self.clock, phone=who, action=door))
                    if door == "withdraw":
                        self.judge.withdrawn.add(who)
                elif door == "message":
                    self.run(send_message(db, self.clock, who=who, text="A note from the team"))
                elif door == "prompt now":
                    self.run(admin.send_prompt_now(db, self.clock, phone=who))
                else:
                    self.run(send_questionnaire(db, self.clock, study, phone=who, questionnaire_id="check"))
            except PromptPipeError:
                pass  # refused, with its reason: consent (or the study) says no
        self.run(self._idle())

    @rule(hold=st.booleans(), in_quiet_hours=st.sampled_from(["send", "hold"]))
    def the_team_broadcasts(self, hold: bool, in_quiet_hours: str = "send") -> None:
        """``hold``: the dispatcher claims the copies and keeps them, as if waiting for the pace,
        while what comes next happens. ``in_quiet_hours``: send anyway, or hold them until the
        participant's quiet hours end."""
        self._next_step()
        app = self._app()
        self.run(admin.broadcast(app.db, self.clock, text="News from the team", flt=ParticipantFilter(),
                                 anyway=in_quiet_hours == "send"))
        if not hold:
            self.run(self._idle())
            return
        app.outbox.stopping = True  # the pace has no room now: the commits leave their copies to the dispatcher
        try:
            self.run(app.lanes.poll_once())
            self.run(app.lanes.wait_idle())
        finally:
            app.outbox.stopping = False
        while batch := self.run(app.db.run(app.outbox._claim)):
            self.held.extend(batch)
            self.held_total += len(batch)

    @rule(who=st.sampled_from(PHONES), meanwhile=st.sampled_from(["STOP", "START", "withdraw", "pause", "erase"]),
          late=st.sampled_from(LATE_BY))
    def something_happens_while_a_broadcast_waits_for_the_pace(self, who: str, meanwhile: str, late: int) -> None:
        """The issue's own case: copies claimed, then a STOP (or the team's change), then their turn."""
        self.the_team_broadcasts(hold=True)
        if meanwhile in ("STOP", "START"):
            self.write(who, STOP if meanwhile == "STOP" else START, meanwhile, late)
        elif who in self.enrolled:
            self.the_team_acts(who, meanwhile)
        self.the_held_copies_go()

    @precondition(lambda self: bool(self.held))
    @rule()
    def the_held_copies_go(self) -> None:
        self._next_step()
        held, self.held = self.held, []
        self.run(self._send(held))
        self.run(self._idle())

    async def _send(self, held: list[Claimed]) -> None:
        await asyncio.gather(*(self._app().outbox._send_all([item]) for item in held))

    def _simulate(self, who: str, words: str) -> None:
        """On a pilot the researcher plays the participant (their words count as the person's);
        where real people can be reached it is refused."""
        kind = {"STOP": STOP, "START": START}.get(words, OTHER)
        try:
            inbox_id = self.run(admin.simulate(self._app().db, self.clock, phone=who, text=words))
        except PromptPipeError:
            assert self.live, "simulate was refused on a pilot"
            return
        assert not self.live, "simulate acted as a participant where real people can be reached"
        with self.engine.connect() as connection:
            key = connection.execute(text("SELECT key FROM inbox WHERE id = :id"), {"id": inbox_id}).scalar()
        self.judge.inputs.append(Input(str(key), who, kind, self.clock.now(), next(self.order), self.judge.step))

    @rule(down=st.booleans())
    def the_model_server(self, down: bool) -> None:
        self._next_step()
        self.fake.reset()
        if down:
            self.fake.fail(503, message="overloaded", match="", repeat=True)
        else:
            self.fake.always("Thanks for writing! Let's keep going.", match="")
        self.run(self._idle())

    @rule()
    def the_service_restarts(self) -> None:
        """A crash: what the dispatcher held is never sent (uncertain after the restart)."""
        self._next_step()
        self.dropped.update(item.id for item in self.held)
        self.held = []
        self.run(self._app().stop())
        self.run(self._start())
        self.run(self._idle())

    # ------------------------------------------------------------------ the promise

    @invariant()
    def nothing_was_sent_against_consent_or_twice(self) -> None:
        assert self.judge.violations == []

    def teardown(self) -> None:
        try:
            if self.app is not None:
                self._settle_everything()
                self.run(self.app.stop())
            self._report()
        finally:
            self.fake.stop()
            self.engine.dispose()
            self.loop.close()
            self._drop()
            shutil.rmtree(self.folder, ignore_errors=True)
        assert self.judge.violations == []

    def _report(self) -> None:
        if not REPORT:
            return
        with self.engine.connect() as connection:
            cancelled = connection.execute(text("SELECT count(*) FROM outbox WHERE status = 'cancelled'")).scalar()
        figures = {"steps": self.judge.step, "inputs": len(self.judge.inputs),
                   "stops": sum(i.kind == STOP for i in self.judge.inputs), "sent": len(self.transport.sent),
                   "held": self.held_total, "cancelled": cancelled, "live": self.live}
        with open(REPORT, "a", encoding="utf-8") as out:
            out.write(json.dumps(figures) + "\n")

    def _settle_everything(self) -> None:
        """Nothing lost: with the model back and two days gone, every input is settled (or failed
        with its reason, waiting for the team to retry or skip it) and every message sent,
        cancelled with its reason, or (held when the service crashed) uncertain."""
        if self.held:
            self.the_held_copies_go()
        self.the_model_server(down=False)
        for _ in range(4):
            self.time_passes(13 * 3600)
        with self.engine.connect() as connection:
            inputs = connection.execute(text(
                "SELECT key, status FROM inbox WHERE status = 'pending' OR (status = 'failed' AND last_error IS NULL)"))
            assert inputs.all() == [], "inputs left unsettled (one the model gave up on waits, failed, for the team)"
            rows = connection.execute(text(
                "SELECT o.id, o.status, o.last_error, p.erased_at IS NOT NULL FROM outbox o "
                "JOIN participant p ON p.id = o.participant_id")).all()
        unsent = [(row_id, status) for row_id, status, _, _ in rows
                  if status in ("pending", "sending") or (status == "uncertain" and row_id not in self.dropped)]
        assert unsent == [], "messages left unsent"
        unexplained = [row_id for row_id, status, error, erased in rows
                       if status == "cancelled" and not (error or erased)]
        assert unexplained == [], "a cancelled message without its reason (an erasure blanks it with the rest)"


ConsentMachine.TestCase.settings = settings(
    max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=not EXPLORE, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
