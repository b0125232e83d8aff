"""APScheduler's job store on our database, with its own engine and deferred writes: queued during a pass and committed
together after the alarms are in our inbox (one transaction, not one per job; a crash before it makes the jobs fire
again, which our keys turn into no-ops).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, TypedDict, cast

from apscheduler.job import Job
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.util import datetime_to_utc_timestamp
from sqlalchemy import Column, Engine, MetaData, String, Table, bindparam, create_engine, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session
from sqlalchemy.sql.base import Executable

from promptpipe.domain.keys import JOB_TABLE
from promptpipe.storage.db import Database
from promptpipe.storage.prepared import Prepared
from promptpipe.storage.sqlite_engine import create_sqlite_engine
from promptpipe.storage.urls import sync_url

__all__ = ["DeferredWriteJobStore", "JobState", "armed_job_ids", "job_engine", "job_state"]


def job_engine(db: Database) -> Engine:
    """The job store's own engine on the same database (sharing the service's SQLite connection was slower in the
    10,000-prompt burst, 67.6 s against 59.2 s: the alarm thread's batches held the one connection the turns need)."""
    if db.is_sqlite:
        return create_sqlite_engine(db.url, own_transactions=False)
    return create_engine(sync_url(db.url), pool_size=2, max_overflow=1, pool_pre_ping=True, hide_parameters=True)


class JobState(TypedDict):
    """What APScheduler 3's ``Job.__getstate__`` gives (version 1), for a job of ours."""

    version: int
    id: str
    func: str
    trigger: Any
    executor: str
    args: tuple[object, ...]
    kwargs: dict[str, object]
    name: str
    misfire_grace_time: int | None
    coalesce: bool
    max_instances: int
    next_run_time: datetime | None


def job_state(job_id: str, func_ref: str, kwargs: dict[str, object], trigger: Any, next_run: datetime,
              grace_s: int) -> JobState:
    """The state APScheduler's ``Job`` pickles for a job of ours (a module-level function by textual reference, no
    arguments but ``kwargs``, coalesced, one instance), built directly: ``add_job`` validated each job and dispatched an
    event, a third of arming a burst's 20,000 timer jobs. Tested against ``Job``'s own (test_job_store.py)."""
    return {"version": 1, "id": job_id, "func": func_ref, "trigger": trigger, "executor": "default", "args": (),
            "kwargs": kwargs, "name": func_ref.rpartition(":")[2], "misfire_grace_time": grace_s, "coalesce": True,
            "max_instances": 1, "next_run_time": next_run}


def armed_job_ids(session: Session, job_ids: Iterable[str]) -> set[str]:
    """Which of these alarms are in the job store (empty if the service never ran): the admin script's ``armed``."""
    ids = list(job_ids)
    if not ids:
        return set()
    table = Table(JOB_TABLE, MetaData(), Column("id", String, primary_key=True))
    try:
        with session.begin_nested():
            return {job_id for chunk in Database.chunks(ids)
                    for job_id in session.execute(select(table.c.id).where(table.c.id.in_(chunk))).scalars()}
    except SQLAlchemyError:
        return set()


def _upsert(engine: Engine, table: Table) -> Executable:
    """Add a job, replacing one stored under its id (a remove and an add of the same job in one batch)."""
    insert_into = sqlite_insert if engine.dialect.name == "sqlite" else pg_insert
    statement = insert_into(table).values(id=bindparam("job"), next_run_time=bindparam("next_run"),
                                          job_state=bindparam("state"))
    return statement.on_conflict_do_update(index_elements=[table.c.id], set_={
        "next_run_time": statement.excluded.next_run_time, "job_state": statement.excluded.job_state})


class DeferredWriteJobStore(SQLAlchemyJobStore):  # type: ignore[misc]  # APScheduler 3 ships no type information
    def __init__(self, engine: Engine) -> None:
        super().__init__(engine=engine, tablename=JOB_TABLE)
        self._queued: list[Write] | None = None
        table = self.jobs_t
        self._statements = {
            "remove": Prepared(delete(table).where(table.c.id == bindparam("job"))),
            "add": Prepared(insert(table).values(id=bindparam("job"), next_run_time=bindparam("next_run"),
                                                 job_state=bindparam("state"))),
            "update": Prepared(update(table).where(table.c.id == bindparam("job")).values(
                next_run_time=bindparam("next_run"), job_state=bindparam("state"))),
            "upsert": Prepared(_upsert(engine, table)),
        }
        # Built once: each alarm pass reads its jobs by id (SQLAlchemy compiled the IN list each time).
        self._by_ids = Prepared(select(table.c.id, table.c.job_state).where(
            table.c.id.in_(bindparam("ids", expanding=True))))

    def shutdown(self) -> None:
        """The engine is the service's own (closed with the database), not the store's."""

    # -- deferral -------------------------------------------------------------------------------
    def begin_deferred(self) -> None:
        self._queued = []

    def commit_deferred(self) -> int:
        """Apply the queued writes in one transaction; returns how many there were."""
        queued, self._queued = self._queued or [], None
        if not queued:
            return 0
        with self.engine.begin() as conn:
            # One executemany per kind of write (a statement per job cost seconds), each job's writes netted first.
            for op, rows in _net_writes(queued).items():
                if rows:
                    self._statements[op].many(conn, rows)
        return len(queued)

    def discard_deferred(self) -> None:
        self._queued = None

    def add_job(self, job: Job) -> None:
        self._write_or_queue("add", job, super().add_job)

    def update_job(self, job: Job) -> None:
        self._write_or_queue("update", job, super().update_job)

    def add_state(self, state: JobState) -> None:
        """Add a job given as its state (:func:`job_state`)."""
        self._write_state("add", state)

    def _write_state(self, op: str, state: JobState) -> None:
        write = (op, state["id"], datetime_to_utc_timestamp(state["next_run_time"]),
                 pickle.dumps(state, self.pickle_protocol))
        if self._queued is not None:
            self._queued.append(write)
            return
        with self.engine.begin() as conn:
            self._statements[op].many(conn, [{"job": write[1], "next_run": write[2], "state": write[3]}])

    def _write_or_queue(self, op: str, job: Job, write: Callable[[Job], None]) -> None:
        if self._queued is None:
            write(job)
        else:
            state = pickle.dumps(job.__getstate__(), self.pickle_protocol)
            self._queued.append((op, job.id, datetime_to_utc_timestamp(job.next_run_time), state))

    def due_states(self, now: datetime, taken: Callable[[str, bytes], bool] | None = None) -> list[JobState]:
        """The due jobs' states (:func:`job_state`), soonest first, unpickled but not made ``Job``s: the pass needs no
        more, and ``Job.__setstate__`` (a function looked up by name per job) was a third of a 10,000-job pass. A state
        that cannot be read is logged and its job removed, as APScheduler's ``get_due_jobs`` does. ``taken``: asked
        first with each job's id and stored bytes; a job it takes (prepared before it came due) is left out."""
        table, states, broken = self.jobs_t, [], []
        with self.engine.begin() as conn:
            for job_id, blob in conn.execute(select(table.c.id, table.c.job_state).where(
                    table.c.next_run_time <= datetime_to_utc_timestamp(now)).order_by(table.c.next_run_time)):
                if taken is not None and taken(job_id, blob):
                    continue
                try:
                    states.append(cast(JobState, pickle.loads(blob)))
                except Exception:
                    self._logger.exception('Unable to restore job "%s" -- removing it', job_id)
                    broken.append(job_id)
            if broken:
                conn.execute(delete(table).where(table.c.id.in_(broken)))
        return states

    def states_due_by(self, after: datetime, until: datetime) -> Iterator[tuple[str, bytes, JobState]]:
        """The jobs due after ``after`` and by ``until``, soonest first: id, stored bytes and state (unreadable ones are
        left to the pass that finds them due). One state at a time, each unpickled as it is asked for: 10,000 states
        held together were ~25 MB at the burst's start (a tenth of its peak), whose freed pages it never got back."""
        table = self.jobs_t
        with self.engine.begin() as conn:
            rows = list(conn.execute(select(table.c.id, table.c.job_state).where(
                table.c.next_run_time > datetime_to_utc_timestamp(after),
                table.c.next_run_time <= datetime_to_utc_timestamp(until)).order_by(table.c.next_run_time)))
        rows.reverse()
        while rows:  # each row let go once its state is handed on
            job_id, blob = rows.pop()
            try:
                state = cast(JobState, pickle.loads(blob))
            except Exception:
                continue
            yield job_id, blob, state

    def pickled_move(self, state: JobState, next_run: datetime | None) -> tuple[float | None, bytes | None]:
        """A job's next run time and stored bytes once moved to ``next_run`` (None: the job ends), worked out ahead
        of time for :meth:`move_pickled`."""
        if next_run is None:
            return None, None
        return datetime_to_utc_timestamp(next_run), pickle.dumps({**state, "next_run_time": next_run},
                                                                 self.pickle_protocol)

    def move_pickled(self, job_id: str, moved: tuple[float | None, bytes | None]) -> None:
        """Store a job as :meth:`pickled_move` worked out (removed if it ends); deferred inside a batch."""
        next_run, blob = moved
        if blob is None:
            self.remove_job(job_id)
            return
        write = ("update", job_id, next_run, blob)
        if self._queued is not None:
            self._queued.append(write)
            return
        with self.engine.begin() as conn:
            self._statements["update"].many(conn, [{"job": job_id, "next_run": next_run, "state": blob}])

    def move_state(self, state: JobState, next_run: datetime) -> None:
        """Store a job given as its state with its next run time moved."""
        self._write_state("update", {**state, "next_run_time": next_run})

    def move_job(self, job: Job, next_run: datetime) -> None:
        """Store ``job`` with its next run time moved (``Job.modify`` would look it up again and wake the scheduler)."""
        state = job.__getstate__()  # the pickling protocol: the job's whole state, as the store keeps it
        state["next_run_time"] = next_run
        job.__setstate__(state)
        self.update_job(job)

    def remove_job(self, job_id: str) -> None:
        if self._queued is None:
            super().remove_job(job_id)
            return
        self._queued.append(("remove", job_id, None, None))

    # -- reads we need beyond APScheduler's API ---------------------------------------------------
    def jobs_by_ids(self, job_ids: list[str]) -> dict[str, Job | None]:
        """The stored jobs among these ids (None: stored but unreadable, so it is replaced)."""
        found: dict[str, Job | None] = {}
        with self.engine.begin() as conn:
            for chunk in Database.chunks(job_ids):
                for job_id, state in self._by_ids.rows(conn, {"ids": list(chunk)}):
                    try:
                        found[job_id] = self._reconstitute_job(state)
                    except Exception:  # unreadable: report it as present-but-wrong so it is replaced
                        self._logger.warning("Stored job %s cannot be read; it will be re-created", job_id)
                        found[job_id] = None
        return found

    def all_ids(self) -> list[str]:
        with self.engine.begin() as conn:
            return list(conn.execute(select(self.jobs_t.c.id)).scalars())


Write = tuple[str, str, float | None, bytes | None]
"""A queued job-store write: (add | update | remove, job id, next run time, pickled state)."""


def _net_writes(queued: list[Write]) -> dict[str, list[dict[str, object]]]:
    """The writes that leave the table as the queued ones would, grouped by kind: removes, then adds, then upserts (a
    job removed and added again: one statement, not a delete and an insert), then updates; no two rows of one kind
    share a job id. 10,000 timers re-armed were 20,000 one-row statements run in turn."""
    last: dict[str, tuple[bool, str | None, float | None, bytes | None]] = {}
    """Per job: removed at some point, and what the writes after the last remove come to (None: nothing)."""
    for op, job_id, next_run, state in queued:
        if op == "remove":
            last[job_id] = (True, None, None, None)
            continue
        removed, kind, _, _ = last.get(job_id, (False, None, None, None))
        # an add then updates: the last state, added; an update first after a remove finds nothing, as in order
        last[job_id] = (removed, kind or op, next_run, state)
    net: dict[str, list[dict[str, object]]] = {"remove": [], "add": [], "upsert": [], "update": []}
    for job_id, (removed, kind, next_run, state) in last.items():
        if kind == "add" and removed:
            net["upsert"].append({"job": job_id, "next_run": next_run, "state": state})
            continue
        if removed:
            net["remove"].append({"job": job_id})
        if kind is not None:
            net[kind].append({"job": job_id, "next_run": next_run, "state": state})
    return net
