"""Moving one of the deployment's numbers to another running service, on an operator's word: nothing moves numbers to
share the load. The holder gives it back at its next heartbeat and only that service takes it; one number at a time."""

from __future__ import annotations

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.limits import NAME_CHARS
from promptpipe.domain.numbers import NumberPlan
from promptpipe.errors import AdminError
from promptpipe.logging import get_logger
from promptpipe.pipeline.leases import group_of, services_up
from promptpipe.research._common import researcher_name, validate_text
from promptpipe.storage.db import Database
from promptpipe.storage.leases import every_lease, request_move

__all__ = ["hand_over"]

log = get_logger("promptpipe.research.handovers")


async def hand_over(db: Database, clock: Clock, *, number: str, to: str, numbers: NumberPlan, by: str = "") -> str:
    """Ask for ``number`` to move to the running service ``to``; a sentence saying what happens next."""
    if number not in numbers.numbers:
        raise AdminError(f"there is no number {number!r}; this deployment has {', '.join(numbers.numbers)}")
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    group = group_of(numbers.numbers)

    def ask(session: Session) -> str:
        now = clock.now()
        rows = every_lease(session)
        up = services_up(rows, now, group)
        if to not in up:
            running = ", ".join(sorted(up)) or "none"
            raise AdminError(f"--to: no service named {to!r} is running with these numbers now (running: {running})")
        row = next((row for row in rows if row.name == number), None)
        if row is not None and row.live(now) and row.service == to:
            raise AdminError(f"the number {number} is served by {to} already")
        pending = [other for other in rows if other.move_to and other.name in numbers.numbers and other.name != number]
        if waiting := [other for other in pending if other.move_to in up]:
            raise AdminError(f"the number {waiting[0].name} is still moving to {waiting[0].move_to}: one number at "
                             "a time (see `promptpipe-admin status`)")
        for stale in pending:  # asked for a service that has gone since: forgotten
            request_move(session, stale.name, "")
        request_move(session, number, to)
        return row.service if row is not None and row.live(now) else ""

    holder = await db.run(ask)
    log.warning("lease_move_requested", name=number, from_service=holder or None, to_service=to, by=by)
    if holder:
        return (f"number {number} moves from {holder} to {to} at {holder}'s next heartbeat "
                "(see `promptpipe-admin status`)")
    return f"number {number} is free: {to} takes it at its next heartbeat (see `promptpipe-admin status`)"
