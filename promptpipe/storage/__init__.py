"""The database: the engine and its thread (:mod:`db`), the tables (:mod:`models`), and one query module per table or
aggregate (the study's are :mod:`promptpipe.study.store`). Every write to a table goes through its module; a
participant's status, time zone and conversation change only through :mod:`conversations`."""

__all__ = ["consent", "conversations", "db", "deliveries", "erasure", "files", "flags", "inbox_rows", "leases",
           "models", "outbox_rows", "participants", "receipts", "schedules", "service_status", "state_dir",
           "transcript"]
