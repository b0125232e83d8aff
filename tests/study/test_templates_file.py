"""The study file's [whatsapp_templates]: which template each kind goes as outside the Cloud API's window."""

from __future__ import annotations

import pytest

from promptpipe.study.rules.file import StudyFileError, parse_study
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.study.rules.summary import describe

HEAD = 'name = "Walking pilot"\nlength_days = 28\n'


def test_templates_are_read_per_kind_and_shown_by_study_check() -> None:
    study = parse_study((HEAD + '[whatsapp_templates]\nprompt = { name = "daily_nudge", language = "fr_CA" }\n'
                         'reminder = { name = "gentle_reminder" }\n').encode())
    templates = dict(study.whatsapp_templates)
    assert templates["prompt"] == WhatsAppTemplate("daily_nudge", "fr_CA")
    assert templates["reminder"] == WhatsAppTemplate("gentle_reminder", "en_US")
    assert "check_in" not in templates
    assert "prompt as daily_nudge (fr_CA), reminder as gentle_reminder (en_US)" in describe(study)
    assert "WhatsApp templates: none" in describe(parse_study(HEAD.encode()))


def test_every_wrong_entry_is_named_with_its_fix() -> None:
    with pytest.raises(StudyFileError) as error:
        parse_study((HEAD + '[whatsapp_templates]\nnudge = { name = "x" }\nprompt = "daily_nudge"\n'
                     'reminder = { language = "en_US" }\ncheck_in = { name = "Check In", colour = 1 }\n').encode())
    problems = "\n".join(error.value.problems)
    assert 'whatsapp_templates.nudge: "nudge" is not a kind of message we send' in problems
    assert "whatsapp_templates.prompt must be a table" in problems
    assert "whatsapp_templates.reminder.name is missing" in problems
    assert 'whatsapp_templates.check_in.name = "Check In" cannot be a template name' in problems
    assert "whatsapp_templates.check_in.colour is not a key the study file format knows" in problems
