"""``promptpipe serve`` whose clock runs ``DRILL_CLOCK_AHEAD_S`` seconds ahead of the wall clock
(``python -m recovery.ahead serve``), for ``drill.py --clock-ahead``.

A daily prompt is due at a whole minute of the service's clock; run ahead by the right amount, the
service finds the prompts due a few seconds after the drill starts instead of at the next whole
minute of the wall clock (on average 30 s of waiting saved per drill). Everything else is the real
service: every part asks the same clock, so timers, leases and the alarm clock agree with each other;
only what a transport stamps (the dry-run journal's ``at``) is wall-clock time.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime, timedelta

from promptpipe import clock
from promptpipe.cli.serve import main

AHEAD = "DRILL_CLOCK_AHEAD_S"


def run_ahead() -> int:
    ahead = timedelta(seconds=float(os.environ.get(AHEAD, "0")))

    def now(self: clock.SystemClock) -> datetime:
        return clock.utcnow() + ahead

    clock.SystemClock.now = now  # type: ignore[method-assign]
    return main()


if __name__ == "__main__":
    sys.exit(run_ahead())
