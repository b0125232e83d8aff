"""The dashboard's pages, one module each (its docstring says what the page shows). ``_render`` holds what they share
(the signed-in visitor, CSRF, templates, error pages), ``_lists`` the filter form and pager, ``_times`` the two-zone
times."""

__all__ = ["actions", "adherence", "audit", "broadcast", "day", "enrolment", "flag", "flags", "lifecycle",
           "overview", "participant", "participants", "pilot", "questionnaires", "report", "search", "signin",
           "timeline", "tokens"]
