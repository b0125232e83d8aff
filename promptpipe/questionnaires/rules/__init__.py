"""A questionnaire's rules without I/O: the domain layer of :mod:`promptpipe.questionnaires`."""
