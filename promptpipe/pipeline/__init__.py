"""The spine: every input is stored in the inbox as a typed event (:mod:`events`, :mod:`inbox`,
with :mod:`spool` when the database cannot take it), run in order per participant by the lanes
(:mod:`lanes`), and what the flow answers leaves through the outbox (:mod:`outbox`)."""

__all__ = ["events", "inbox", "lanes", "leases", "outbox", "spool"]
