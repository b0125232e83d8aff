"""The rules of the study, without I/O (states and declared transitions, profile, polls, outcomes, tone, local time,
keys, numbers, limits, backoff, the crisis screen, quiet hours). The protocol's rules are :mod:`promptpipe.study.rules`,
in the same layer: the two import each other. Imports nothing of ours but :mod:`promptpipe.errors`."""
