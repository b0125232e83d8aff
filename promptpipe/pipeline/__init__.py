"""The spine (docs/ARCHITECTURE.md): the inbox, the lanes, the turn's writes and the outbox, the spool and leases."""

__all__ = ["batches", "events", "inbox", "lanes", "leases", "outbox", "pacing", "spool", "turn_writes"]
