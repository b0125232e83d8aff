"""The recovery drill with several services on one PostgreSQL database (``drill.py --processes 3``).

Each service runs with ``SEVERAL_SERVICES=on``, a name, a state directory, a log and a dry-run
journal of its own; the participants are spread over as many numbers as there are services, each
number preferring one service (``PREFERRED_SERVICES``). A killed service that is back within a
lease's time takes its number back itself; otherwise another takes it over. The drill
SIGKILLs a random running service at each kill moment and starts it again after a short random
pause. Per kill it prints the takeover time: from the kill to the moment another process holds
each number the dead one held (and the alarm clock, ``@alarms``, if it ran it), read from
``number_lease`` (a new holder's ``acquired_at``).

The journals together play the phone network. A send that a kill interrupted after it reached
the journal is sent again by the number's next holder under the same outbox key, into its own
journal; a provider that takes an idempotency key delivers it once, so the drill counts it once
(and prints how many there were, after a kill and after a number was given back mid-send). A
message sent twice under two keys is a duplicate. (WhatsApp and the Cloud API take no such key:
there the next holder marks such a send uncertain instead of sending it again.)
"""

from __future__ import annotations

import random
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from promptpipe.pipeline.sharing import ALARMS_ROLE
from promptpipe.storage.leases import LeaseRow, holders
from promptpipe.storage.urls import sync_url
from recovery.services import Patience, kill, read_journal, service_env, since_due, start_service

__all__ = ["Plan", "Run", "run_services"]

RESTART_PAUSE_S = (0.5, 3.0)
"""A killed service starts again after a random pause within these bounds."""
WATCH_INTERVAL_S = 0.1


@dataclass(frozen=True)
class Plan:
    model_url: str
    database_url: str
    workdir: Path
    study_file: Path
    numbers: tuple[str, ...]
    settings: dict[str, str]
    lease_ttl_s: int
    lease_heartbeat_s: int
    participants: int
    due: datetime
    """On the wall clock."""
    patience: Patience
    clock_ahead: timedelta = timedelta(0)
    """How far the services' clock runs ahead of the wall clock (recovery/ahead.py)."""


@dataclass
class Run:
    sent: list[dict[str, Any]]
    """Every message delivered, once per outbox key."""
    log_paths: list[Path]
    ok: bool
    """Every dead service's numbers and role were taken over."""


@dataclass
class Service:
    """One slot: the process running now (None while it is down), its journal and log."""

    index: int
    env: dict[str, str]
    journal: Path
    log: IO[bytes]
    process: subprocess.Popen[bytes] | None = None
    pids: list[int] = field(default_factory=list)
    killed_at: list[float] = field(default_factory=list)
    restart_at: float | None = None

    def start(self) -> None:
        self.process, self.restart_at = start_service(self.env, self.log), None
        self.pids.append(self.process.pid)

    @property
    def name(self) -> str:
        return f"service {self.index + 1}"


@dataclass
class Takeover:
    """One lease (a number or ``@alarms``) a killed service held, until another process holds it."""

    kill: int
    name: str
    dead_holder: str
    killed_at: float
    others_up: frozenset[int]
    """The other services up (their presence lease live) at the kill, by process id: if none of
    them stayed up until the takeover, it waited for one to start."""
    taken_s: float | None = None
    taker: str = ""


class LeaseWatch:
    """Reads ``number_lease`` on a connection of its own: who holds what now."""

    def __init__(self, database_url: str, clock_ahead: timedelta) -> None:
        self.engine = create_engine(sync_url(database_url), pool_size=1, max_overflow=0)
        self.ahead_s = clock_ahead.total_seconds()
        """The services' clock (their leases' times) minus the wall clock."""

    def rows(self) -> dict[str, LeaseRow]:
        """Every lease with a holder, presence leases too, by name."""
        with Session(self.engine) as session:
            return {row.name: row for row in holders(session)}

    def close(self) -> None:
        self.engine.dispose()


def pid_of(holder: str) -> int:
    """The process id in a lease holder's name (``host:pid:random``)."""
    return int(holder.rsplit(":", 2)[1])


def run_services(plan: Plan, kill_at: list[float], rng: random.Random) -> Run:
    """Start one service per number, SIGKILL a random running one at each of ``kill_at`` (each
    back after a short random pause), let them finish, stop them; print each kill's takeovers."""
    lease = {"SEVERAL_SERVICES": "on", "WHATSAPP_NUMBERS": ",".join(plan.numbers),
             "LEASE_TTL": f"{plan.lease_ttl_s}s", "LEASE_HEARTBEAT": f"{plan.lease_heartbeat_s}s",
             "PREFERRED_SERVICES": ",".join(f"{number}=service{place}" for place, number in enumerate(plan.numbers, 1))}
    services = []
    for index in range(len(plan.numbers)):
        home = plan.workdir / f"service{index + 1}"
        journal = home / "delivered.jsonl"
        home.mkdir()
        env = service_env(plan.model_url, plan.database_url, home, journal, plan.study_file,
                          **plan.settings, **lease, SERVICE_NAME=f"service{index + 1}")
        services.append(Service(index, env, journal, open(home / "service.log", "ab")))  # noqa: SIM115
    watch = LeaseWatch(plan.database_url, plan.clock_ahead)
    try:
        for service in services:
            service.start()
        takeovers = _kill_and_restart(services, kill_at, rng, watch, plan)
        # until every takeover is seen and every message is in, or nothing more comes
        while plan.patience.waiting(count := len(_delivered(services)[0]), time.time()):
            _watch(takeovers, watch, services)
            if _pending(takeovers):
                time.sleep(WATCH_INTERVAL_S)
                continue
            if count >= 3 * plan.participants:
                break
            time.sleep(1)
        time.sleep(3)  # anything extra (a duplicate) would show up now
        _stop(services)
    finally:
        watch.close()
        for service in services:
            if service.process is not None and service.process.poll() is None:
                service.process.kill()
            service.log.close()
    sent, after_kill, otherwise = _delivered(services)
    ok = _report_takeovers(takeovers, services, plan)
    print(f"sent again by a number's next holder under the same key (delivered once): {after_kill} after a kill, "
          f"{otherwise} after the number was given back mid-send")
    return Run(sent, [service.journal.parent / "service.log" for service in services], ok)


def _kill_and_restart(services: list[Service], kill_at: list[float], rng: random.Random, watch: LeaseWatch,
                      plan: Plan) -> list[Takeover]:
    takeovers: list[Takeover] = []
    kills = list(kill_at)
    while kills or any(service.restart_at is not None for service in services):
        now = time.time()
        for service in services:
            if service.restart_at is not None and now >= service.restart_at:
                service.start()
        running = [service for service in services if service.process is not None]
        if kills and now >= kills[0] and running:
            kills.pop(0)
            takeovers += _kill(rng.choice(running), len(kill_at) - len(kills), services, rng, watch, plan)
        _watch(takeovers, watch, services)
        time.sleep(WATCH_INTERVAL_S)
    return takeovers


def _kill(service: Service, number: int, services: list[Service], rng: random.Random, watch: LeaseWatch,
          plan: Plan) -> list[Takeover]:
    """SIGKILL ``service`` and note what it held (its leases still name it until another takes
    them), and whether another service was up: running, and past its start (its presence lease
    is there; a killed one's stays until it expires)."""
    assert service.process is not None
    pid, killed_at = service.process.pid, time.time()
    kill(service.process)
    service.process = None
    service.killed_at.append(killed_at)
    pause_s = rng.uniform(*RESTART_PAUSE_S)
    service.restart_at = killed_at + pause_s
    rows = watch.rows().values()
    held = sorted((row for row in rows if not row.is_presence and pid_of(row.holder) == pid), key=lambda row: row.name)
    running = {other.process.pid for other in services if other.process is not None}
    others_up = frozenset(pid_of(row.holder) for row in rows if row.is_presence and pid_of(row.holder) in running)
    print(f"  SIGKILL {service.name} (held {', '.join(row.name for row in held) or 'nothing yet'}; "
          f"{len(others_up)} other service{'s' if len(others_up) != 1 else ''} up) at {since_due(plan.due)}; "
          f"back in {pause_s:.1f}s", flush=True)
    return [Takeover(number, row.name, row.holder, killed_at, others_up) for row in held]


def _watch(takeovers: list[Takeover], watch: LeaseWatch, services: list[Service]) -> None:
    """Note each lease of a killed service that another process now holds; print a kill's
    takeovers once all of them are known."""
    waiting = [takeover for takeover in takeovers if takeover.taken_s is None]
    if not waiting:
        return
    rows = watch.rows()
    done = set()
    for takeover in waiting:
        row = rows.get(takeover.name)
        if row is not None and row.holder != takeover.dead_holder:
            takeover.taken_s = max(0.0, row.acquired_at.timestamp() - watch.ahead_s - takeover.killed_at)
            takeover.taker = _name_of(pid_of(row.holder), services)
            done.add(takeover.kill)
    for kill_number in sorted(done):
        of_kill = [takeover for takeover in takeovers if takeover.kill == kill_number]
        if all(takeover.taken_s is not None for takeover in of_kill):
            print(f"    kill {kill_number}: " + ", ".join(
                f"{takeover.name} to {takeover.taker} in {takeover.taken_s:.1f}s" for takeover in of_kill), flush=True)


def _name_of(pid: int, services: list[Service]) -> str:
    for service in services:
        if pid in service.pids:
            restarted = " (restarted)" if service.killed_at and pid == service.pids[-1] else ""
            return service.name + restarted
    return f"pid {pid}"


def _pending(takeovers: list[Takeover]) -> bool:
    return any(takeover.taken_s is None for takeover in takeovers)


def _delivered(services: list[Service]) -> tuple[list[dict[str, Any]], int, int]:
    """Every journal's entries, once per outbox key (a provider that takes an idempotency key
    delivers a key once); how many keys a number's next holder sent again after their first
    sender was killed, and how many after their first sender gave the number back mid-send."""
    first: dict[str, tuple[float, Service]] = {}
    sent: list[dict[str, Any]] = []
    after_kill = otherwise = 0
    entries = sorted(((datetime.fromisoformat(entry["at"]).timestamp(), service, entry)
                      for service in services for entry in read_journal(service.journal)),
                     key=lambda item: item[0])
    for at, service, entry in entries:
        if not entry["ref"] or entry["ref"] not in first:
            first[entry["ref"]] = (at, service)
            sent.append(entry)
            continue
        earlier_at, earlier = first[entry["ref"]]
        if any(earlier_at <= moment <= at for moment in earlier.killed_at):
            after_kill += 1
        else:
            otherwise += 1
    return sent, after_kill, otherwise


def _stop(services: list[Service]) -> None:
    """SIGTERM to all at once (as an operator stops a deployment), SIGKILL after 30 s."""
    running = [service.process for service in services if service.process is not None]
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _stayed_up(takeover: Takeover, services: list[Service]) -> bool:
    """Whether a service up at the kill was still up when the lease was taken over."""
    assert takeover.taken_s is not None
    taken_at = takeover.killed_at + takeover.taken_s
    for service in services:
        deaths = dict(zip(service.pids, service.killed_at, strict=False))  # each process is killed once at most
        if any(pid in takeover.others_up and deaths.get(pid, taken_at) >= taken_at for pid in service.pids):
            return True
    return False


def _report_takeovers(takeovers: list[Takeover], services: list[Service], plan: Plan) -> bool:
    """Takeover times of numbers and of the alarm clock (min, median, max), apart those where
    no other service stayed up; False if a dead service's lease was never taken over."""
    never = [takeover for takeover in takeovers if takeover.taken_s is None]
    expected = (f"LEASE_TTL {plan.lease_ttl_s}s, LEASE_HEARTBEAT {plan.lease_heartbeat_s}s: expected "
                f"{plan.lease_ttl_s - plan.lease_heartbeat_s} to {plan.lease_ttl_s + plan.lease_heartbeat_s}s")
    print(f"takeover ({expected}):")
    for label, of_alarms in (("numbers", False), ("alarm clock", True)):
        taken = [t for t in takeovers if t.taken_s is not None and (t.name == ALARMS_ROLE) == of_alarms]
        times = [t.taken_s for t in taken if t.taken_s is not None and _stayed_up(t, services)]
        alone = [t.taken_s for t in taken if t.taken_s is not None and not _stayed_up(t, services)]
        figures = (f"min {min(times):.1f}s, median {statistics.median(times):.1f}s, max {max(times):.1f}s"
                   if times else "none")
        if alone:
            figures += f"; {len(alone)} more with no other service up throughout (waited for a start: " \
                       f"max {max(alone):.1f}s)"
        print(f"  {label}: {len(times)} taken over; {figures}")
    if never:
        print("  never taken over: " + ", ".join(f"{t.name} (kill {t.kill})" for t in never))
    return not never
