"""The study's tables and the queries on them (see :mod:`promptpipe.study`)."""
