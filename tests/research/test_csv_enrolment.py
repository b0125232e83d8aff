"""Reading and checking a CSV file of participants to enrol, without a database: each row's
problem in plain words on the file's own line, the file's own problems (header, size, encoding),
and a stratified study's columns."""

from __future__ import annotations

import pytest

from promptpipe.errors import AdminError
from promptpipe.research.csv_enrolment import MAX_IMPORT_ROWS, check_rows, decode_upload, parse
from promptpipe.study.rules.file import parse_study
from promptpipe.study.rules.protocol import OPEN_STUDY

STRATIFIED = parse_study(b"""
name = "Walking pilot"
length_days = 28
fixed_prompts = ["Put your shoes by the door tonight."]
[[arms]]
name = "coach"
[[arms]]
name = "fixed"
prompt_style = "fixed"
[allocation]
block_size = 2
[allocation.strata]
site = ["toronto", "montreal"]
""")


def problems(text: str, study: object = OPEN_STUDY, enrolled: dict[str, str] | None = None) -> dict[int, str | None]:
    result = check_rows(parse(text, study), study, enrolled)  # type: ignore[arg-type]
    assert result.dry_run and result.problem is None, result.problem
    return {row.line: row.problem for row in result.rows}


def file_problem(text: str, study: object = OPEN_STUDY) -> str:
    found = parse(text, study).problem  # type: ignore[arg-type]
    assert found is not None
    return found


def test_each_row_gets_its_own_problem_on_its_own_line() -> None:
    text = ("\ufeffPhone, Name ,timezone,background\r\n"
            "+1 416 555 0100,Ana,America/Toronto,\"works nights,\nlikes mornings\"\r\n"  # lines 2-3
            "\r\n"
            "+1 555 0100,Ben,America/Toronto,\r\n"  # line 5: not a valid number
            "+14165550100,Ana again,America/Toronto,\r\n"  # line 6: line 2's phone
            "+14165550101,Cleo,Mars/Olympus,\r\n"  # line 7: no such zone
            "+14165550102,,Europe/Berlin,\r\n"  # line 8: no name
            "14165550103,Dev,Europe/Berlin,\r\n"  # line 9: a spreadsheet dropped the +
            "+14165550104,Eve,Europe/Berlin\r\n"  # line 10: a value short
            "+14165550105,Fay,Europe/Lisbon,\r\n"  # line 11: enrolled already
            ",,,\r\n"  # line 12: an empty row, skipped
            "+14165550106,Gus,Asia/Tokyo,\r\n")
    found = problems(text, enrolled={"+14165550105": "p_0123456789abcdef (Fay, active)"})
    assert found[2] is None and found[13] is None
    assert list(found) == [2, 5, 6, 7, 8, 9, 10, 11, 13]
    assert found[5] == "phone: '+1 555 0100' is not a valid number for its country code; check the digits"
    assert found[6] == "phone: +14165550100 is on line 2 too; a participant is enrolled once"
    assert found[7] == ("timezone: 'Mars/Olympus' is not an IANA time zone; use a name like America/Toronto or "
                        "Europe/Berlin")
    assert found[8] == "name: give the participant's name (it is used to greet them)"
    assert found[9] is not None and "start with + and the country code" in found[9]
    assert "a spreadsheet may have dropped the +" in found[9]
    assert found[10] == "it has 3 values but the header has 4 columns; a value with a comma in it needs double " \
                        "quotes around it"
    assert found[11] == "phone: +14165550105 is already enrolled as p_0123456789abcdef (Fay, active)"
    result = check_rows(parse(text, OPEN_STUDY), OPEN_STUDY)
    assert (result.total, result.ready, result.with_problems, result.enrolled) == (9, 3, 6, 0)
    assert not result.clean and result.rows[0].phone == "+14165550100"  # E.164, as it would be enrolled
    assert result.problems(2).startswith("line 5: phone: '+1 555 0100'") and result.problems(2).endswith("4 more")


def test_a_row_lists_every_field_that_is_wrong() -> None:
    found = problems("phone,name,timezone\n+1 555 0100,,Nowhere/City\n")
    assert found[2] == ("phone: '+1 555 0100' is not a valid number for its country code; check the digits; "
                        "name: give the participant's name (it is used to greet them); "
                        "timezone: 'Nowhere/City' is not an IANA time zone; use a name like America/Toronto or "
                        "Europe/Berlin")


@pytest.mark.parametrize(("text", "expected"), [
    ("", "the file is empty: it needs a header row (phone,name,timezone) and a row for each participant"),
    ("phone,name,timezone\n\n", "the file has a header but no participants: add a row for each"),
    ("phone,name,timezone,email\n+14165550100,Ana,America/Toronto,a@example.org\n",
     "line 1: the header names a column this import does not know, 'email'; the columns are phone, name, "
     "timezone, background, number"),
    ("phone,name\n+14165550100,Ana\n", "line 1: the header has no timezone column; every participant needs it "
                                       "(the columns are phone, name, timezone, background, number)"),
    ("phone,name,timezone,name\n", "line 1: the header names the column name twice"),
    ("phone,name,,timezone\n", "line 1: column 3 of the header has no name; the columns are phone, name, timezone, "
                               "background, number"),
])
def test_a_file_without_a_usable_header_says_what_to_fix(text: str, expected: str) -> None:
    assert file_problem(text) == expected


def test_the_file_is_capped_and_must_be_utf8() -> None:
    rows = "".join(f"+1416555{n % 100 + 100:04d},P{n},America/Toronto\n" for n in range(MAX_IMPORT_ROWS + 1))
    assert file_problem("phone,name,timezone\n" + rows) == (
        "the file has more than 1,000 participants; at most 1,000 at a time: split it into smaller files")
    assert file_problem("phone,name,timezone\n" + "x" * 80_001).startswith("the file has 80,021 characters; at most "
                                                                          "80,000 at a time")
    assert decode_upload("\ufeffphone,name\n".encode()) == "phone,name\n"
    with pytest.raises(AdminError, match="not UTF-8 text: in your spreadsheet, save it as “CSV UTF-8”"):
        decode_upload("phone,name\n+14165550100,Zoë\n".encode("latin-1"))


def test_a_stratified_study_needs_its_column_and_allowed_values() -> None:
    assert file_problem("phone,name,timezone\n+14165550100,Ana,America/Toronto\n", STRATIFIED) == (
        "line 1: the header has no site column; every participant needs it (the columns are phone, name, "
        "timezone, site, background, number)")
    found = problems("phone,name,timezone,site\n+14165550100,Ana,America/Toronto,toronto\n"
                     "+14165550101,Ben,America/Toronto,ottawa\n+14165550102,Cleo,America/Toronto,\n", STRATIFIED)
    assert found[2] is None
    assert found[3] is not None and found[3].startswith("strata: 'ottawa' is not a site in this study")
    assert found[4] == "site: it is empty"
