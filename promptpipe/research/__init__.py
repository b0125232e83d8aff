"""What researchers do, shared by the admin script (and the HTTP API): :mod:`admin` (enroll,
change, read, simulate), :mod:`oversight` (consent, safety flags, stuck inputs), :mod:`erasure`,
:mod:`export` (analysis files), :mod:`status` (how the service is doing) and :mod:`alerts`
(the safety webhook the service runs)."""

__all__ = ["admin", "alerts", "changes", "erasure", "export", "export_rows", "oversight", "pseudonyms", "reports",
           "simulate", "status"]
