"""The rules of the study, without I/O: participant states and the declared transitions between
them, the typed profile, polls and typed answers, outcomes and counters, tone, local time and
daylight saving, keys, phone numbers, limits, backoff, the crisis screen; the study protocol (its
file, quiet hours, study days, allocation and the decision rule). Imports nothing of ours
but :mod:`promptpipe.errors`; everything else may import it."""

__all__ = [
    "allocation", "backoff", "consent", "conversation", "decision_rule", "keys", "limits", "localtime", "outcomes",
    "phones", "phrases", "polls", "profile", "quiet_hours", "safety", "setting_values", "states", "study",
    "study_days", "study_file", "text", "timers", "tone", "transitions",
]
