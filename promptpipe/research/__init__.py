"""What researchers do, shared by the admin script, the HTTP API and the dashboard: :mod:`admin`
(enroll, change, read, simulate), :mod:`messaging` (the team's messages and broadcasts),
:mod:`listing` and :mod:`monitoring` (the participant list, overview, statistics, adherence),
:mod:`tokens` (API tokens and the audit log), :mod:`oversight` (consent, safety flags, stuck
inputs), :mod:`erasure` and :mod:`status` (how the service is doing). The analysis files are
:mod:`promptpipe.export`; the pilot sandbox :mod:`promptpipe.pilot`; the coach's evaluation
:mod:`promptpipe.evaluation`."""

__all__ = ["admin", "changes", "erasure", "listing", "messaging", "monitoring", "oversight", "reports",
           "simulate", "status", "tokens"]
