"""The study protocol, as a feature: ``rules/`` (pure, no I/O) defines and checks it, ``store/``
keeps it, and :mod:`.operations`, :mod:`.day_view` and ``report/`` are the researchers' side.
This module imports nothing, so importing the rules never pulls in storage."""
