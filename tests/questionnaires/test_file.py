"""Questionnaires in the study file, as a study lead writes them: a good table becomes the items
and the schedule they declared, a wrong one is refused with its key and the fix, and the summary
and study.json say back what was understood."""

from __future__ import annotations

from datetime import time, timedelta
from pathlib import Path

import pytest

from promptpipe.questionnaires.rules.definition import ItemType, Option, SendEvent, ShowIf, next_item
from promptpipe.study.rules.file import StudyFileError, load_study, parse_study
from promptpipe.study.rules.summary import describe, study_as_dict

PROJECT = Path(__file__).resolve().parents[2]
HEAD = 'name = "Walking pilot"\nlength_days = 28\nquiet_hours = { start = "22:00", end = "07:00" }\n'

MOOD = """\
[[questionnaires]]
id = "mood"
title = "How are you?"
intro = "Two quick questions."
closing = "Thanks!"
send = { between = ["10:00", "20:00"], min_gap = "90m", study_days = [2, 4, 6] }
open_for = "2h"
reminders = 1
coach_sees_answers = true

[[questionnaires.items]]
id = "smoked"
text = "Did you smoke today?"
type = "yes_no"

[[questionnaires.items]]
id = "cigarettes"
text = "How many cigarettes?"
type = "number"
min = 0
max = 60
unit = "cigarettes"
show_if = { item = "smoked", codes = [1] }

[[questionnaires.items]]
id = "craving"
text = "How strong was your craving?"
type = "scale"
min = 0
max = 10
min_label = "none"
max_label = "overwhelming"
required = false

[[questionnaires.items]]
id = "where"
text = "Where were you?"
type = "multiple_choice"
options = ["Home", "Work", "Out"]
codes = [10, 20, 30]

[[questionnaires.items]]
id = "note"
text = "Anything else?"
type = "text"
max_chars = 200
required = false
"""


def problems_of(text: str) -> list[str]:
    with pytest.raises(StudyFileError) as caught:
        parse_study((HEAD + text).encode())
    return caught.value.problems


def test_a_questionnaire_becomes_the_items_and_schedule_it_declares() -> None:
    study = parse_study((HEAD + MOOD).encode())
    (mood,) = study.questionnaires
    assert (mood.id, mood.title, mood.intro) == ("mood", "How are you?", "Two quick questions.")
    assert mood.closing == "Thanks!"
    assert mood.send.between == (time(10), time(20)) and mood.send.study_days == (2, 4, 6)
    assert mood.send.min_gap == timedelta(minutes=90) and mood.send.at is None and mood.send.event is None
    assert mood.open_for == timedelta(hours=2) and mood.reminders == 1 and mood.coach_sees_answers
    assert mood.reminder_offsets() == (timedelta(hours=1),)
    smoked, cigarettes, craving, where, note = mood.items
    assert smoked.type is ItemType.YES_NO and smoked.options == (Option("Yes", 1), Option("No", 0)) and smoked.is_poll
    assert (cigarettes.type, cigarettes.low, cigarettes.high, cigarettes.unit) == (ItemType.NUMBER, 0, 60, "cigarettes")
    assert not cigarettes.is_poll and cigarettes.show_if == ShowIf("smoked", (1,))
    assert craving.is_poll and not craving.required  # 11 points and "Skip" fit in one poll
    assert craving.codes == tuple(range(11)) and craving.options[0].label == "0 (none)"
    assert craving.options[-1].label == "10 (overwhelming)"
    assert [(o.label, o.code) for o in where.options] == [("Home", 10), ("Work", 20), ("Out", 30)]
    assert note.type is ItemType.TEXT and note.max_chars == 200 and not note.required
    assert study.questionnaire("mood") is mood and study.questionnaire("other") is None


def test_defaults_fill_what_a_short_questionnaire_leaves_out() -> None:
    study = parse_study((HEAD + """\
[[questionnaires]]
id = "exit"
title = "Looking back"
send = { event = "study_end" }
[[questionnaires.items]]
id = "again"
text = "Would you do it again?"
type = "single_choice"
options = ["Yes", "Maybe", "No"]
[[questionnaires.items]]
id = "why"
text = "Why?"
type = "text"
""").encode())
    (exit_,) = study.questionnaires
    assert exit_.send.event is SendEvent.STUDY_END and exit_.send.delay == timedelta(0)
    assert exit_.open_for == timedelta(hours=3) and exit_.reminders == 0 and not exit_.coach_sees_answers
    assert [o.code for o in exit_.items[0].options] == [1, 2, 3]  # codes 1, 2, 3 … unless given
    assert exit_.items[1].max_chars == 500 and exit_.items[1].required


def test_a_wide_scale_is_typed_and_a_narrow_one_can_be_typed_on_request() -> None:
    study = parse_study((HEAD + """\
[[questionnaires]]
id = "vas"
title = "Pain"
send = { event = "enrollment", delay = "10m" }
[[questionnaires.items]]
id = "pain"
text = "Your pain from 0 to 100?"
type = "scale"
min = 0
max = 100
[[questionnaires.items]]
id = "stress"
text = "Stress from 1 to 5?"
type = "scale"
min = 1
max = 5
ask_as = "typed"
""").encode())
    pain, stress = study.questionnaires[0].items
    assert not pain.is_poll and pain.codes == tuple(range(101))
    assert not stress.is_poll and stress.options == ()
    assert study.questionnaires[0].send.delay == timedelta(minutes=10)


def test_branching_skips_an_item_whose_condition_does_not_hold() -> None:
    (mood,) = parse_study((HEAD + MOOD).encode()).questionnaires
    assert next_item(mood, {}).id == "smoked"
    assert next_item(mood, {"smoked": (1,)}, after="smoked").id == "cigarettes"
    assert next_item(mood, {"smoked": (0,)}, after="smoked").id == "craving"
    assert next_item(mood, {"smoked": None}, after="smoked").id == "craving"  # skipped or invalid: no branch
    assert next_item(mood, {}, after="note") is None


@pytest.mark.parametrize(("text", "expected"), [
    ("questionnaires = []\n", "questionnaires must list one or more [[questionnaires]] tables"),
    ('[[questionnaires]]\nid = "Mood!"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     'questionnaires[1].id = "Mood!" cannot be an id'),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\n[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].send is missing"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "lunch" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     'questionnaires[1].send.event cannot be text ("lunch"): use "enrollment" or "intake_complete" or "study_end".'),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment", at = "10:00" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].send.at does not go with event"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { at = "23:00", study_days = [1] }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].send.at = 23:00 is inside the quiet hours (22:00-07:00)"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { at = "10:00", study_days = [0, 29] }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].send.study_days cannot hold a whole number (0): list study days from 1 to 28"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { between = ["20:00", "10:00"] }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].send.between = [20:00, 10:00] must run forward within one day"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { between = ["22:30", "23:30"] }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "lies inside the quiet hours (22:00-07:00)"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { between = ["10:00", "20:00"] }\nopen_for = "20h"\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].open_for is longer than 12h for a questionnaire sent on more than one day"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\nreminders = 9\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].reminders = 9 is too large: use a whole number from 0 to 5."),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n',
     "questionnaires[1].items is missing"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "slider"\n',
     'questionnaires[1].items[1].type cannot be text ("slider"): use "single_choice", "multiple_choice", "scale"'),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "single_choice"\noptions = ["only one"]\n',
     "questionnaires[1].items[1].options must list one or more at least two choices"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "single_choice"\nrequired = false\n'
     f'options = {[str(n) for n in range(12)]}\n'.replace("'", '"'),
     'a WhatsApp poll shows at most 12, one of them "Skip" for an optional item; keep at most 11.'),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "single_choice"\noptions = ["A", "B"]\n'
     "codes = [1, 1]\n",
     "questionnaires[1].items[1].codes lists a code more than once"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "scale"\nmin = 1\nmax = 20\nask_as = "poll"\n',
     'questionnaires[1].items[1].ask_as = "poll" cannot show 20 points'),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "number"\nmin = 5\nmax = 1\n',
     "questionnaires[1].items[1]: min = 5 must be less than max = 1."),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\nunit = "kg"\n',
     'questionnaires[1].items[1].unit does not apply to a type = "yes_no" item: remove it.'),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "text"\nshow_if = { item = "b", codes = [1] }\n'
     '[[questionnaires.items]]\nid = "b"\ntext = "t"\ntype = "yes_no"\n',
     "questionnaires[1].items[1].show_if.item must be the id of an earlier item"),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "b"\ntext = "t"\ntype = "yes_no"\n'
     '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "text"\nshow_if = { item = "b", codes = [2] }\n',
     "questionnaires[1].items[2].show_if.codes lists 2, which b cannot take: use its codes (1, 0)."),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "b"\ntext = "t"\ntype = "yes_no"\n'
     '[[questionnaires.items]]\nid = "b"\ntext = "t"\ntype = "yes_no"\n',
     'questionnaires[1].items[2].id = "b" is already the id of questionnaires[1].items[1]'),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "b"\ntext = "t"\ntype = "yes_no"\nrequird = false\n',
     "questionnaires[1].items[1].requird is not a key the study file format knows: remove it or fix its spelling "
     "(did you mean required?)."),
    ('[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n'
     '[[questionnaires.items]]\nid = "b"\ntext = "' + "x" * 300 + '"\ntype = "yes_no"\n',
     "questionnaires[1].items[1].text is 300 characters long: shorten it to at most 255."),
])
def test_a_wrong_questionnaire_names_the_key_and_the_fix(text: str, expected: str) -> None:
    problems = problems_of(text)
    assert any(expected in problem for problem in problems), problems


def test_two_questionnaires_may_not_share_an_id() -> None:
    one = '[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { event = "enrollment" }\n' \
          '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n'
    assert any('questionnaires[2].id = "m" is already the id of questionnaires[1]' in problem
               for problem in problems_of(one + one))


def test_a_fixed_time_without_study_days_is_every_study_day() -> None:
    study = parse_study((HEAD + '[[questionnaires]]\nid = "m"\ntitle = "t"\nsend = { at = "10:00" }\n'
                         '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n').encode())
    [questionnaire] = study.questionnaires
    assert (questionnaire.send.study_days, questionnaire.send.at) == (None, time(10))
    assert "m (1 item): every study day at 10:00" in describe(study)


def test_the_self_report_runs_as_its_own_questionnaire_whose_id_no_other_may_take() -> None:
    report = '[self_report]\ntime = "20:30"\n'
    study = parse_study((HEAD + report).encode())
    [own] = study.questionnaires
    assert (own.id, own.send.at, [o.label for o in own.items[0].options]) == (
        "self_report", time(20, 30), ["Yes, I did", "Not today"])
    taken = '[[questionnaires]]\nid = "self_report"\ntitle = "t"\nsend = { event = "enrollment" }\n' \
            '[[questionnaires.items]]\nid = "a"\ntext = "t"\ntype = "yes_no"\n'
    assert any("self-report's own id" in problem for problem in problems_of(report + taken))


def test_the_summary_and_study_json_say_back_each_questionnaire() -> None:
    study = parse_study((HEAD + MOOD).encode())
    words = describe(study)
    assert "Questionnaires: 1" in words
    assert ("  mood (5 items): study days 2, 4, 6 at a random time 10:00-20:00, drawn each day, at least 1h30m from "
            "the daily prompt and other questionnaires; open for 2h, 1 reminder; the coach sees the answers") in words
    (as_json,) = study_as_dict(study)["questionnaires"]
    assert as_json["send"] == {"event": None, "delay": 0, "study_days": [2, 4, 6], "at": None,
                               "between": ["10:00", "20:00"], "min_gap": 5400}
    assert as_json["open_for"] == 7200 and as_json["coach_sees_answers"] is True
    assert as_json["items"][1]["show_if"] == {"item": "smoked", "codes": [1]}
    assert as_json["items"][3]["options"] == [{"label": "Home", "code": 10}, {"label": "Work", "code": 20},
                                              {"label": "Out", "code": 30}]
    assert "Questionnaires: none" in describe(parse_study(HEAD.encode()))


def test_the_example_study_file_declares_a_baseline_a_daily_item_and_an_exit_questionnaire() -> None:
    study = load_study(PROJECT / "study.example.toml")
    sends = {q.id: q.send for q in study.questionnaires}
    assert sends["baseline"].event is SendEvent.INTAKE_COMPLETE
    assert sends["exit"].event is SendEvent.STUDY_END
    assert sends["daily_energy"].between is not None and sends["daily_energy"].study_days is None
