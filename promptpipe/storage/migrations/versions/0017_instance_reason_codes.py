"""A questionnaire instance's reason becomes a code (the export's code list) instead of a sentence: the sentences
earlier releases wrote are turned into their codes; a text nothing matches stays as it was.

Create Date: 2026-11-29
"""

from alembic import op

revision = "0017_instance_reason_codes"
down_revision = "0016_suppression"

_CODES = (  # (code, a LIKE pattern of what earlier releases wrote), first match wins
    ("not_in_study_file", "the study file in force has no such questionnaire"),
    ("withdrawn", "the participant is withdrawn%"),
    ("withdrawn", "the participant withdrew before it was sent"),
    ("opted_out", "the participant is paused (opted out)"),
    ("opted_out", "the participant's study ended while opted out"),
    ("paused", "the participant is paused%"),
    ("paused", "the participant's study ended while paused%"),
    ("study_over", "the participant is completed"),
    ("study_over", "the participant's study ended before it was sent"),
    ("another_under_way", "questionnaire % was under way"),
    ("no_item", "no item to ask"),
    ("window_closed", "its time ran out"),
    ("window_closed", "not answered before the upgrade that made the self-report a questionnaire"),
    ("not_sent_in_time", "its time ran out before it could be sent%"),
    ("past_last_day", "after the participant's last study day"),
    ("study_extended", "the study was extended after it had ended%"),
    ("no_free_minute", "no minute of the window is outside quiet hours%"),
    ("time_zone_changed", "time zone changed:%"),
)


def upgrade() -> None:
    cases = " ".join(f"WHEN reason LIKE '{pattern.replace(chr(39), chr(39) * 2)}' THEN '{code}'"
                     for code, pattern in _CODES)
    op.execute(f"UPDATE questionnaire_instance SET reason = CASE {cases} ELSE reason END WHERE reason IS NOT NULL")


def downgrade() -> None:
    """The codes stay: earlier releases show them as they are."""
