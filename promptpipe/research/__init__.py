"""What researchers do, shared by the admin script, the HTTP API and the dashboard: :mod:`admin`
(enroll, change, read, simulate), :mod:`messaging` (the team's messages and broadcasts),
:mod:`listing` and :mod:`monitoring` (the participant list, overview, statistics, adherence),
:mod:`tokens` (API tokens and the audit log), :mod:`oversight` (consent, safety flags, stuck
inputs), :mod:`erasure`, :mod:`export` (analysis files), :mod:`status` (how the service is doing)
and :mod:`alerts` (the safety webhook the service runs)."""

__all__ = ["admin", "alerts", "changes", "erasure", "export", "export_rows", "listing", "messaging", "monitoring",
           "oversight", "pseudonyms", "reports", "simulate", "status", "tokens"]
