"""What researchers do, shared by the admin script, the HTTP API and the dashboard: a module per task."""

__all__ = ["admin", "changes", "erasure", "listing", "messaging", "monitoring", "oversight", "reports",
           "simulate", "status", "tokens"]
