"""The dashboard's pages, one module each: :mod:`signin` (sign in and out), :mod:`overview` (``/``),
:mod:`participants` (the list), :mod:`participant` (one participant), :mod:`actions` (pause,
resume, message, prompt now, each confirmed first), :mod:`adherence` (the heatmap),
:mod:`questionnaires` (how far each questionnaire got, and the answers on a participant's page),
:mod:`flags` (safety flags), :mod:`audit` (the audit log) and :mod:`tokens` (admins' tokens).
``_render`` holds what they share (the signed-in visitor, CSRF, templates, error pages), ``_lists``
the filter form and pager, ``_times`` the two-zone times."""

__all__ = ["actions", "adherence", "audit", "flags", "overview", "participant", "participants", "questionnaires",
           "signin", "tokens"]
