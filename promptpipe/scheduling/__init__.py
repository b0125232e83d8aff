"""APScheduler as the alarm clock: its jobs wake the service; our tables decide what is due. :mod:`driver` runs the
passes, :mod:`reconcile` decides which jobs should exist, :mod:`requests` batches the changes turns ask for,
:mod:`jobstore` and :mod:`guard` own the job store and the one-service lock, :mod:`deliver` makes alarms inbox rows."""

__all__ = ["deliver", "driver", "guard", "jobs", "jobstore", "reconcile", "requests", "trigger"]
