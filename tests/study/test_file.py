"""Reading a study file, as a study lead meets it: a good file becomes the protocol they wrote, a
wrong one is refused with every problem named by its key and with the fix, and the summary and the
export's study.json say back what was understood."""

from __future__ import annotations

import hashlib
import json
from datetime import time, timedelta
from pathlib import Path

import pytest

from promptpipe.domain.timers import NudgePolicy
from promptpipe.errors import ConfigError
from promptpipe.study.rules.file import StudyFileError, load_study, parse_study
from promptpipe.study.rules.protocol import (
    AVAILABILITY_RULES,
    DEFAULT_ARM,
    DEFAULT_CLOSING_MESSAGE,
    FIXED_STYLE,
    NO_SEND,
    PERSONALISED,
    SEND,
    Allocation,
    DecisionRule,
    QuietHours,
)
from promptpipe.study.rules.summary import SEED_IN_DATABASE_WARNING, describe, study_as_dict

PROJECT = Path(__file__).resolve().parents[2]

FULL = """\
name = "Walking pilot"
length_days = 28
baseline_days = 3
day_one = "after_enrollment"
closing_message = "Thanks for walking with us!"
fixed_prompts = ["Time for a short walk.", "A walk after lunch?"]

[quiet_hours]
start = "21:30"
end = "08:00"

[[arms]]
name = "coach"
ratio = 2
reminder_delay = "1h30m"
auto_feedback = false

[[arms]]
name = "fixed"
prompt_style = "fixed"
fixed_prompts = ["Walk to the corner and back."]
feedback_followup_delay = "0"

[allocation]
block_size = 6

[allocation.strata]
site = ["A", "B"]
age_band = ["18-39", "40+"]

[decision]
p = 0.6
unavailable_when = ["paused", "quiet_hours"]
"""

MINIMAL = 'name = "Pilot"\nlength_days = 28\n'


def problems_of(text: str) -> list[str]:
    with pytest.raises(StudyFileError) as caught:
        parse_study(text.encode())
    return caught.value.problems


def test_a_full_file_becomes_the_protocol_it_declares() -> None:
    study = parse_study(FULL.encode(), "pilot.toml")
    assert (study.name, study.length_days, study.baseline_days, study.day_one) == ("Walking pilot", 28, 3,
                                                                                   "after_enrollment")
    assert study.closing_message == "Thanks for walking with us!"
    assert study.quiet_hours == QuietHours(time(21, 30), time(8, 0))
    coach, fixed = study.arms
    assert (coach.name, coach.ratio, coach.prompt_style) == ("coach", 2, PERSONALISED)
    assert (fixed.name, fixed.ratio, fixed.prompt_style) == ("fixed", 1, FIXED_STYLE)
    assert study.fixed_texts(coach) == ("Time for a short walk.", "A walk after lunch?")
    assert study.fixed_texts(fixed) == ("Walk to the corner and back.",)

    coach_policy, fixed_policy, base = coach.policy(NudgePolicy()), fixed.policy(NudgePolicy()), NudgePolicy()
    assert coach_policy.reminder_delay == timedelta(hours=1, minutes=30) and coach_policy.auto_feedback is False
    assert coach_policy.feedback_followup_delay == base.feedback_followup_delay
    assert fixed_policy.feedback_followup_delay == timedelta(0)  # "0" switches that timer off
    assert fixed_policy.reminder_delay == base.reminder_delay and fixed_policy.auto_feedback is True

    assert study.allocation == Allocation((6,), (("site", ("A", "B")), ("age_band", ("18-39", "40+"))))
    assert study.allocation.stratum_fields == ("site", "age_band")
    assert study.decision == DecisionRule((SEND, NO_SEND), 0.6, ("paused", "quiet_hours"))
    assert study.source == FULL and study.in_use


def test_defaults_fill_what_a_short_file_leaves_out() -> None:
    study = parse_study(MINIMAL.encode())
    assert study.arms == (DEFAULT_ARM,) and study.decision is None and study.quiet_hours is None
    assert (study.baseline_days, study.day_one, study.closing_message) == (0, "after_intake", DEFAULT_CLOSING_MESSAGE)
    assert study.allocation == Allocation((1,), ())

    two = parse_study((MINIMAL + '[[arms]]\nname = "a"\nratio = 3\n[[arms]]\nname = "b"\n[decision]\np = 0.5\n')
                      .encode())
    assert two.allocation.block_sizes == (4,)  # one block holds every arm once in its ratio
    assert two.decision == DecisionRule((SEND, NO_SEND), 0.5, AVAILABILITY_RULES)


def test_the_hash_is_of_the_bytes_and_any_change_shows() -> None:
    data = FULL.encode()
    study = parse_study(data)
    assert study.hash == hashlib.sha256(data).hexdigest()
    assert parse_study(data.replace(b"p = 0.6", b"p = 0.7")).hash != study.hash
    assert parse_study(data + b"# reviewed by the ethics board\n").hash != study.hash  # a comment counts too
    assert parse_study(data.replace(b"Walking", b"walking")).hash != study.hash


def test_a_missing_file_names_its_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "study.toml"
    with pytest.raises(StudyFileError) as caught:
        load_study(path)
    assert isinstance(caught.value, ConfigError)
    assert str(path) in str(caught.value) and "no such file" in str(caught.value)

    with pytest.raises(StudyFileError, match="folder"):
        load_study(tmp_path)


def test_load_study_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "study.toml"
    path.write_bytes(FULL.encode())
    assert load_study(path) == parse_study(FULL.encode())


def test_invalid_toml_shows_line_and_column() -> None:
    problems = problems_of(MINIMAL + "baseline_days = = 3\n")
    assert len(problems) == 1
    assert "not valid TOML" in problems[0] and "line 3, column" in problems[0]


def test_text_that_is_not_utf8_is_refused_plainly() -> None:
    with pytest.raises(StudyFileError) as caught:
        parse_study(MINIMAL.encode() + b'closing_message = "caf\xe9"\n', "study.toml")
    assert len(caught.value.problems) == 1
    assert "not UTF-8" in str(caught.value) and str(caught.value).startswith("study.toml: ")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Typos never pass silently; a close match is suggested.
        (MINIMAL + "lenght_days = 28\n", ["lenght_days", "not a key", "did you mean length_days"]),
        (MINIMAL + '[[arms]]\nname = "a"\nreminder_dealy = "5h"\n', ["arms[1].reminder_dealy", "reminder_delay"]),
        (MINIMAL + "[decision]\np = 0.5\nprobability = 0.5\n", ["decision.probability", "not a key"]),
        # Wrong types.
        ('name = "Pilot"\nlength_days = "28"\n', ["length_days", "whole number", "without quotes"]),
        ('name = 3\nlength_days = 28\n', ["name", "text in quotes"]),
        (MINIMAL + '[[arms]]\nname = "a"\nauto_feedback = "yes"\n', ["arms[1].auto_feedback", "true or false"]),
        (MINIMAL + '[[arms]]\nname = "a"\nreminder_delay = 5\n', ["arms[1].reminder_delay", "duration in quotes"]),
        (MINIMAL + '[[arms]]\nname = "a"\nreminder_delay = "5 hours"\n', ["arms[1].reminder_delay", "5h"]),
        (MINIMAL + '[[arms]]\nname = "a"\nreminder_delay = "8d"\n', ["arms[1].reminder_delay", "7 days"]),
        (MINIMAL + 'quiet_hours = "22:00-07:00"\n', ["quiet_hours", "table"]),
        (MINIMAL + '[decision]\np = "0.5"\n', ["decision.p", "number without quotes"]),
        (MINIMAL + 'day_one = "after_lunch"\n', ["day_one", '"after_intake" or "after_enrollment"']),
        # Missing and out of range.
        ('length_days = 28\n', ["name is missing", 'name = "']),
        ('name = "Pilot"\n', ["length_days is missing", "length_days = 28"]),
        (MINIMAL + "[decision]\np = 1.0\n", ["decision.p", "between 0 and 1", "remove the [decision] table"]),
        (MINIMAL + "[decision]\np = 0\n", ["decision.p", "between 0 and 1"]),
        (MINIMAL + "[decision]\n", ["decision.p is missing"]),
        ('name = "Pilot"\nlength_days = 4000\n', ["length_days = 4000", "3650"]),
        ('name = "Pilot"\nlength_days = 28\nbaseline_days = 28\n', ["baseline_days = 28", "less than length_days"]),
        (MINIMAL + '[[arms]]\nname = "a"\nratio = 0\n', ["arms[1].ratio = 0", "1 to"]),
        # Times.
        (MINIMAL + '[quiet_hours]\nstart = "22:00"\nend = "8am"\n', ["quiet_hours.end", "HH:MM"]),
        (MINIMAL + '[quiet_hours]\nstart = "24:00"\nend = "08:00"\n', ["quiet_hours.start", "24-hour"]),
        (MINIMAL + '[quiet_hours]\nstart = "22:00"\nend = "22:00"\n', ["quiet_hours.start and quiet_hours.end",
                                                                        "differs"]),
        (MINIMAL + '[quiet_hours]\nstart = "22:00"\n', ["quiet_hours.end is missing"]),
        # Allocation.
        (MINIMAL + '[[arms]]\nname = "a"\nratio = 2\n[[arms]]\nname = "b"\n[allocation]\nblock_size = 4\n',
         ["allocation.block_size = 4", "multiple", "(3)", "use 3, 6, 9"]),
        (MINIMAL + '[[arms]]\nname = "a"\nratio = 2\n[[arms]]\nname = "b"\n[allocation]\nblock_sizes = [3, 4]\n',
         ["allocation.block_sizes: 4", "multiple", "(3)", "use 3, 6, 9"]),
        (MINIMAL + '[allocation]\nblock_size = 2\nblock_sizes = [2, 4]\n', ["block_size or block_sizes, not both"]),
        (MINIMAL + '[allocation]\nblock_sizes = []\n', ["allocation.block_sizes", "empty list"]),
        (MINIMAL + '[allocation]\nblock_sizes = 4\n', ["allocation.block_sizes", "must list"]),
        (MINIMAL + '[allocation]\nblock_sizes = [2, 2]\n', ["allocation.block_sizes", "more than once"]),
        (MINIMAL + '[allocation]\nblock_sizes = [2, "4"]\n', ["allocation.block_sizes", 'text ("4")', "1 to 1000"]),
        (MINIMAL + '[allocation]\nblock_sizes = [0, 2]\n', ["allocation.block_sizes", "(0)", "1 to 1000"]),
        (MINIMAL + '[allocation.strata]\nsite = []\n', ["allocation.strata.site", "empty list"]),
        (MINIMAL + '[allocation.strata]\nsite = ["A", "A"]\n', ["allocation.strata.site", '"A" more than once']),
        (MINIMAL + '[allocation.strata]\nsite = ["A", ""]\n', ["allocation.strata.site", "not empty"]),
        (MINIMAL + '[allocation.strata]\nsite = "A"\n', ["allocation.strata.site", "must list"]),
        (MINIMAL + '[allocation.strata]\n"Home Site" = ["A"]\n', ["Home Site", "lowercase letters"]),
        # Arms.
        (MINIMAL + '[[arms]]\nname = "Coach A"\n', ["arms[1].name", "lowercase letters"]),
        (MINIMAL + '[[arms]]\nname = "a"\n[[arms]]\nname = "b"\n[[arms]]\nname = "a"\n',
         ['arms[3].name = "a"', "arms[1]", "its own name"]),
        (MINIMAL + '[[arms]]\nratio = 2\n', ["arms[1].name is missing"]),
        (MINIMAL + '[[arms]]\nname = "a"\nprompt_style = "fixed"\n',
         ['arms[1] ("a")', "no texts", "fixed_prompts"]),
        (MINIMAL + '[[arms]]\nname = "a"\nprompt_style = "scripted"\n', ["arms[1].prompt_style", '"fixed"']),
        (MINIMAL + "fixed_prompts = []\n", ["fixed_prompts", "empty list"]),
        (MINIMAL + 'fixed_prompts = ["Walk!", ""]\n', ["fixed_prompts item 2", "not empty"]),
        (MINIMAL + f'closing_message = "{"x" * 1001}"\n', ["closing_message", "1001 characters", "at most 1000"]),
        (MINIMAL + "arms = []\n", ["arms", "empty list"]),
        # Decision.
        (MINIMAL + '[decision]\np = 0.5\nactions = ["no_send", "send"]\n', ["decision.actions", "treatment first"]),
        (MINIMAL + '[decision]\np = 0.5\nactions = ["personalised", "fixed"]\n',
         ["decision.actions", "fixed texts for every arm", "default"]),
        (MINIMAL + '[decision]\np = 0.5\nunavailable_when = ["sleeping"]\n',
         ["decision.unavailable_when", '"sleeping"', "paused, baseline"]),
    ],
)
def test_a_wrong_file_names_the_key_and_the_fix(text: str, expected: list[str]) -> None:
    problems = problems_of(text)
    assert len(problems) == 1, problems
    for part in expected:
        assert part in problems[0], (part, problems[0])


def test_every_problem_is_reported_at_once() -> None:
    text = """\
name = ""
length_days = 0
colour = "blue"

[quiet_hours]
start = "22:00"
end = "25:00"

[[arms]]
name = "coach"
ratio = 0

[[arms]]
name = "coach"
prompt_style = "fixed"

[decision]
p = 1.5
"""
    with pytest.raises(StudyFileError) as caught:
        parse_study(text.encode(), "pilot.toml")
    keys = ["colour", "name is empty", "length_days = 0", "quiet_hours.end", "arms[1].ratio", 'arms[2] ("coach")',
            "arms[2].name", "decision.p"]
    problems = caught.value.problems
    assert len(problems) == len(keys)
    for key in keys:
        assert sum(key in problem for problem in problems) == 1, (key, problems)
    assert str(caught.value).splitlines() == [f"pilot.toml: {problem}" for problem in problems]


def test_decision_between_styles_is_accepted_with_texts() -> None:
    study = parse_study((MINIMAL + 'fixed_prompts = ["Walk!"]\n[decision]\nactions = ["personalised", "fixed"]\n'
                         "p = 0.25\nunavailable_when = []\n").encode())
    assert study.decision == DecisionRule((PERSONALISED, FIXED_STYLE), 0.25, ())


def test_describe_reads_back_the_protocol() -> None:
    summary = describe(parse_study(FULL.encode()))
    assert "Walking pilot" in summary and "28 days" in summary and "first 3 day(s)" in summary
    assert "coach 2/3, fixed 1/3" in summary
    assert "reminder_delay 1h30m, auto_feedback off" in summary and "feedback_followup_delay off" in summary
    assert "blocks of concealed size" in summary and "6" not in summary.split("Allocation:")[1].split("\n")[0]
    assert "blocks of 6" in describe(parse_study(FULL.encode()), unblind=True)
    assert "site (A, B)" in summary and "age_band (18-39, 40+)" in summary
    assert "send with probability 0.6, no_send 0.4; unavailable when paused, quiet_hours" in summary
    assert "21:30-08:00" in summary

    mixed = parse_study(FULL.replace("block_size = 6", "block_sizes = [3, 6]").encode())
    assert mixed.allocation.block_sizes == (3, 6)
    assert "blocks of 3 or 6 (each block's size drawn)" in describe(mixed, unblind=True)

    plain = describe(parse_study(MINIMAL.encode()))
    assert "no randomisation: every available prompt is sent" in plain
    assert "default 1/1 (everyone)" in plain


def test_study_as_dict_is_ready_for_json() -> None:
    study = parse_study(FULL.encode())
    as_dict = study_as_dict(study)
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["quiet_hours"] == {"start": "21:30", "end": "08:00"}
    assert as_dict["arms"][0]["settings"] == {"reminder_delay": 5400, "auto_feedback": False}
    assert as_dict["allocation"]["strata"] == {"site": ["A", "B"], "age_band": ["18-39", "40+"]}
    assert as_dict["decision"] == {"actions": ["send", "no_send"], "p": 0.6,
                                   "unavailable_when": ["paused", "quiet_hours"]}
    assert as_dict["hash"] == study.hash
    assert study_as_dict(parse_study(MINIMAL.encode()))["decision"] is None


def test_the_example_study_file_parses() -> None:
    study = load_study(PROJECT / "study.example.toml")
    assert study.length_days == 28 and len(study.arms) == 2
    assert study.decision is not None and 0 < study.decision.p < 1
    assert study.allocation.strata == (("site", ("toronto", "montreal")),)
    assert all(study.fixed_texts(arm) for arm in study.arms if arm.prompt_style == FIXED_STYLE)


def test_keeping_the_seed_in_the_database_is_an_explicit_choice_the_summary_flags() -> None:
    """Issue 27: by default the seed stays out of the database; ``seed_in_database = true`` keeps it
    there, and the summary says what that risks."""
    default = parse_study(MINIMAL.encode())
    assert default.seed_in_database is False
    assert "Seed: kept outside the database" in describe(default) and SEED_IN_DATABASE_WARNING not in describe(default)
    chosen = parse_study(("seed_in_database = true\n" + MINIMAL).encode())
    assert chosen.seed_in_database is True and chosen.hash != default.hash
    assert f"Seed: kept in the database (seed_in_database = true): {SEED_IN_DATABASE_WARNING}" in describe(chosen)
    (problem,) = problems_of('seed_in_database = "yes"\n' + MINIMAL)
    assert problem == ('seed_in_database must be true or false, without quotes; it is text ("yes"). Leave it out to '
                       "keep the seed out of the database.")
