"""The study protocol's rules, without I/O (see :mod:`promptpipe.study`)."""
