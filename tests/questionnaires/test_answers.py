"""A participant's replies to questionnaire items, as they would type or tap them: each becomes
the coded answer a statistician expects, a skip where the item allows one, or a short re-ask that
says what fits."""

from __future__ import annotations

import pytest

from promptpipe.questionnaires.rules.answers import (
    SKIP_OPTION,
    Answer,
    AnswerSource,
    Reask,
    ask_text,
    poll_options,
    read_typed,
    read_vote,
)
from promptpipe.questionnaires.rules.definition import ItemType, Option, QuestionnaireItem

MINUTES = QuestionnaireItem("walked", "How many minutes did you walk?", ItemType.NUMBER, low=0, high=180,
                            unit="minutes")
WEIGHT = QuestionnaireItem("weight", "Your weight?", ItemType.NUMBER, low=30, high=250, unit="kg", decimals=1,
                           required=False)
TYPED_SCALE = QuestionnaireItem("pain", "Pain now?", ItemType.SCALE, low=0, high=100, low_label="none",
                                high_label="worst imaginable")
POLL_SCALE = QuestionnaireItem("mood", "Mood?", ItemType.SCALE, low=1, high=5, as_poll=True,
                               options=tuple(Option(str(n), n) for n in range(1, 6)))
YES_NO = QuestionnaireItem("smoked", "Did you smoke today?", ItemType.YES_NO,
                           options=(Option("Yes", 1), Option("No", 0)))
WHERE = QuestionnaireItem("where", "Where?", ItemType.MULTIPLE_CHOICE, required=False,
                          options=(Option("Home", 10), Option("Work", 20), Option("Out", 30)))
ONE = QuestionnaireItem("company", "With whom?", ItemType.SINGLE_CHOICE,
                        options=(Option("Alone", 0), Option("With a friend", 1)))
NOTE = QuestionnaireItem("note", "Anything else?", ItemType.TEXT, max_chars=20, required=False)


@pytest.mark.parametrize(("item", "typed", "number"), [
    (MINUTES, "25", 25), (MINUTES, "about 25 minutes", 25), (MINUTES, " 0 ", 0), (MINUTES, "180", 180),
    (WEIGHT, "72,5", 72.5), (WEIGHT, "72.5 kg", 72.5), (WEIGHT, "80.0", 80), (TYPED_SCALE, "37", 37),
    (POLL_SCALE, "4", 4),
])
def test_a_typed_number_that_fits_is_kept_with_its_value(item: QuestionnaireItem, typed: str, number: float) -> None:
    answer = read_typed(item, typed)
    assert isinstance(answer, Answer) and answer.number == number and answer.source is AnswerSource.TYPED
    assert answer.raw == typed


@pytest.mark.parametrize(("item", "typed"), [
    (MINUTES, "181"), (MINUTES, "-5"), (MINUTES, "25.5"), (MINUTES, "20 or 30"), (MINUTES, "lots"),
    (MINUTES, ""), (WEIGHT, "72.55"), (WEIGHT, "12"), (TYPED_SCALE, "4.5"), (TYPED_SCALE, "101"),
    (MINUTES, "25 " + "and then some more walking later on"),
])
def test_a_typed_number_that_does_not_fit_is_asked_again_with_the_range(item: QuestionnaireItem, typed: str) -> None:
    reask = read_typed(item, typed)
    assert isinstance(reask, Reask)
    assert f"from {item.low:g} to {item.high:g}" in reask.text


def test_a_scale_answer_is_coded_as_its_point() -> None:
    typed, tapped = read_typed(TYPED_SCALE, "37"), read_vote(POLL_SCALE, ["4"])
    assert isinstance(typed, Answer) and typed.codes == (37,) and typed.coded == "37"
    assert isinstance(tapped, Answer) and tapped.codes == (4,) and tapped.number == 4
    assert tapped.source is AnswerSource.TAP


@pytest.mark.parametrize(("typed", "code"), [("yes", 1), ("Yes!", 1), ("y", 1), ("nope", 0), ("No.", 0),
                                             ("nein", 0), ("oui", 1)])
def test_yes_or_no_typed_is_coded_one_or_zero(typed: str, code: int) -> None:
    answer = read_typed(YES_NO, typed)
    assert isinstance(answer, Answer) and answer.codes == (code,)


def test_a_yes_no_reply_that_is_neither_is_asked_again() -> None:
    assert isinstance(read_typed(YES_NO, "maybe"), Reask)


def test_choices_tapped_are_coded_by_the_study_files_codes() -> None:
    several = read_vote(WHERE, ["Home", "Out"])
    assert isinstance(several, Answer) and several.codes == (10, 30) and several.coded == "10;30"
    single = read_vote(ONE, ["With a friend"])
    assert isinstance(single, Answer) and single.codes == (1,)
    assert read_vote(ONE, []) is None  # a vote taken back leaves the item as it was


def test_a_choice_typed_by_its_label_counts_and_other_words_ask_for_a_tap() -> None:
    typed = read_typed(ONE, "with a friend")
    assert isinstance(typed, Answer) and typed.codes == (1,)
    reask = read_typed(WHERE, "home and work")
    assert isinstance(reask, Reask) and "tap" in reask.text and "more than one" in reask.text


def test_an_optional_item_can_be_skipped_by_tap_or_word_and_a_required_one_cannot() -> None:
    assert poll_options(WHERE) == ("Home", "Work", "Out", SKIP_OPTION)
    assert poll_options(ONE) == ("Alone", "With a friend")
    tapped, typed = read_vote(WHERE, [SKIP_OPTION]), read_typed(WEIGHT, "Skip")
    assert isinstance(tapped, Answer) and tapped.skipped and tapped.coded == ""
    assert isinstance(typed, Answer) and typed.skipped
    assert isinstance(read_typed(MINUTES, "skip"), Reask)
    assert isinstance(read_vote(WHERE, [SKIP_OPTION, "Home"]), Reask)


def test_a_text_answer_is_kept_within_its_length() -> None:
    kept = read_typed(NOTE, "  felt great  ")
    assert isinstance(kept, Answer) and kept.text == "felt great"
    too_long = read_typed(NOTE, "x" * 21)
    assert isinstance(too_long, Reask) and "20 characters" in too_long.text


def test_each_typed_item_is_asked_with_what_fits() -> None:
    assert ask_text(MINUTES) == "How many minutes did you walk?\n(Reply with a number from 0 to 180 minutes.)"
    assert ask_text(WEIGHT).endswith('(Reply with a number from 30 to 250 kg, or "skip".)')
    assert ask_text(TYPED_SCALE).endswith("(Reply with a whole number from 0 to 100 (0 = none; 100 = worst "
                                          "imaginable).)")
    assert ask_text(NOTE).endswith('(Reply in your own words, or "skip".)')
    assert ask_text(YES_NO) == "Did you smoke today?"  # asked by its poll
