"""The rules of the study, without I/O: participant states and the declared transitions between them, the typed profile,
polls and typed answers, outcomes and counters, tone, local time and daylight saving, keys, phone numbers, limits,
backoff, the crisis screen, quiet hours. The study protocol's own rules (its file, study days, allocation and the
decision rule) are :mod:`promptpipe.study.rules`, in the same layer: the two import each other. Imports nothing else of
ours but :mod:`promptpipe.errors`; everything else may import it."""

__all__ = ["backoff", "consent", "conversation", "keys", "limits", "localtime", "outcomes", "phones", "phrases",
           "polls", "profile", "quiet_hours", "safety", "setting_values", "states", "text", "timers", "tone",
           "transitions"]
