"""Questionnaires, one feature in four layers (this module imports nothing: a rule pulls no storage).

``rules/`` has no I/O: the definition and the state a conversation keeps (``definition``), the
study file's ``[[questionnaires]]`` (``file``, ``file_items``), answers (``answers``), when each
instance is due (``schedule``, ``plan``). ``store/`` writes and reads the instance and answer rows.
``operations`` is what researchers do. ``conversation/`` (the flow's layer) asks the items and
reads the replies. The page is ``web/pages/questionnaires.py``; the analysis files are the export's.
"""
