"""APScheduler as the alarm clock: its jobs wake the service; our tables decide what is due (docs/ARCHITECTURE.md)."""

__all__ = ["deliver", "driver", "guard", "jobs", "jobstore", "reconcile", "requests", "trigger"]
