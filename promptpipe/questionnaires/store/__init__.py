"""A questionnaire's rows (instances and answers): the storage layer of :mod:`promptpipe.questionnaires`."""
