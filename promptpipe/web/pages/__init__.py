"""The dashboard's pages, one module each:

- :mod:`signin` (sign in and out), :mod:`overview` (``/``, with what needs attention);
- :mod:`participants` (the list), :mod:`enrolment` (enrol one, or many from a CSV file),
  :mod:`participant` (one participant), :mod:`timeline` (their timeline), :mod:`day` (one study
  day, opened from the heatmap);
- :mod:`actions` (pause, resume, message, prompt now, each confirmed first), :mod:`lifecycle`
  (edit, withdraw, erase, add study days), :mod:`inputs` (retry or skip an input that failed),
  :mod:`broadcast` (one message to the list as filtered, counted first);
- :mod:`adherence` (the heatmap), :mod:`questionnaires` (how far each questionnaire got, and the
  answers on a participant's page), :mod:`report` (the study report, its CSV files and the export);
- :mod:`flags` (safety flags), :mod:`flag` (one flag: the messages around it, its course);
- :mod:`search` (the header's search box), :mod:`audit` (the audit log), :mod:`tokens` (admins'
  tokens), :mod:`pilot` (pilot mode: chat with a sandbox participant).

``_render`` holds what they share (the signed-in visitor, CSRF, templates, error pages), ``_lists``
the filter form and pager, ``_times`` the two-zone times."""

__all__ = ["actions", "adherence", "audit", "broadcast", "day", "enrolment", "flag", "flags", "inputs", "lifecycle",
           "overview", "participant", "participants", "pilot", "questionnaires", "report", "search", "signin",
           "timeline", "tokens"]
