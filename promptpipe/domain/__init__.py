"""The rules of the study, without I/O: participant states and the declared transitions between
them, the typed profile, polls and typed answers, outcomes and counters, tone, local time and
daylight saving, keys, phone numbers, limits, backoff, the crisis screen. Imports nothing of ours
but :mod:`promptpipe.errors`; everything else may import it."""

__all__ = [
    "backoff", "consent", "conversation", "keys", "limits", "localtime", "outcomes", "phones", "polls", "profile",
    "safety", "setting_values", "states", "text", "timers", "tone", "transitions",
]
