"""The study report: read (:mod:`.reading`), counted (:mod:`.counts`), shown in a terminal
(:mod:`.text`) and as the dashboard's tables (:mod:`.tables`)."""
