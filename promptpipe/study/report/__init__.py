"""The study report: read, counted, shown in a terminal (:mod:`.text`) and as the dashboard's tables."""
