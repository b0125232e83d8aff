"""The rules of the study, without I/O; :mod:`promptpipe.study.rules` is the same layer (the two import each other).
Imports nothing of ours but :mod:`promptpipe.errors`."""
