"""The study protocol, as a feature: where it is defined, checked, stored and reported.

* ``rules/`` (pure, no I/O; the domain layer): the protocol (:mod:`.rules.protocol`: arms, the
  decision rule's settings, quiet hours, the self-report), the study file and its checks
  (:mod:`.rules.file`, :mod:`.rules.checks`, :mod:`.rules.templates`, :mod:`.rules.words`),
  study days (:mod:`.rules.days`), the concealed allocation (:mod:`.rules.allocation`), the
  micro-randomised decision rule (:mod:`.rules.decision_rule`) and the protocol's summary
  (:mod:`.rules.summary`).
* ``store/`` (the storage layer): the study's tables (:mod:`.store.tables`), the protocol as run
  (:mod:`.store.protocol`), the secret seed (:mod:`.store.seed`), the allocation sequence
  (:mod:`.store.allocation`), the decision points (:mod:`.store.decisions`), a study day's rows
  (:mod:`.store.day`) and the dashboard's counts (:mod:`.store.stats`).
* the researchers' side (the research layer): arms and protocol changes (:mod:`.operations`), a
  participant's study day (:mod:`.day_view`) and the study report (``report/``).

This module imports nothing, so importing the rules never pulls in storage.
"""
