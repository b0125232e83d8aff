"""APScheduler as the alarm clock: its jobs wake the service; our tables decide what is due."""
