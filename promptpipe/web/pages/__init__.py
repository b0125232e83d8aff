"""The dashboard's pages, one module each; ``_render``, ``_lists`` and ``_times`` hold what they share."""

__all__ = ["actions", "adherence", "audit", "broadcast", "day", "enrolment", "flag", "flags", "lifecycle",
           "overview", "participant", "participants", "pilot", "questionnaires", "report", "search", "signin",
           "timeline", "tokens"]
