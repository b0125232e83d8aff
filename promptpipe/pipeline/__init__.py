"""The spine: every input is stored in the inbox as a typed event (:mod:`events`, :mod:`inbox`, with :mod:`spool` when
the database cannot take it), run in order per participant by the lanes (:mod:`lanes`, batches chosen by
:mod:`batches`), committed with what the turn writes (:mod:`turn_writes`), and what the flow answers leaves through the
outbox (:mod:`outbox`, at the pace of :mod:`pacing`)."""

__all__ = ["batches", "events", "inbox", "lanes", "leases", "outbox", "pacing", "spool", "turn_writes"]
