"""Which WhatsApp number a new participant is given."""

from __future__ import annotations

import pytest

from promptpipe.domain.numbers import NumberPlan, assign_number, parse_rule

TWO = ("toronto", "montreal")


def given(rule: str, *, arm: str | None = None, strata: dict[str, str] | None = None,
          counts: dict[str, int] | None = None, asked: str | None = None) -> str:
    return assign_number(NumberPlan(TWO, parse_rule(rule)), arm=arm, strata=strata or {}, counts=counts or {},
                         asked=asked)


def test_balanced_gives_the_number_with_the_fewest_participants_the_first_on_a_tie() -> None:
    assert given("balanced") == "toronto"
    assert given("balanced", counts={"toronto": 3, "montreal": 2}) == "montreal"
    assert given("balanced", counts={"toronto": 2, "montreal": 2}) == "toronto"


def test_by_arm_or_by_stratum_the_number_is_named_like_theirs() -> None:
    assert given("arm", arm="montreal") == "montreal"
    assert given("stratum:site", strata={"site": "montreal"}) == "montreal"
    with pytest.raises(ValueError, match="their level of site, but theirs is 'quebec'"):
        given("stratum:site", strata={"site": "quebec"})
    with pytest.raises(ValueError, match="their arm, but theirs is None"):
        given("arm")


def test_a_number_the_team_names_wins_and_must_exist() -> None:
    assert given("balanced", asked="montreal", counts={"montreal": 99}) == "montreal"
    with pytest.raises(ValueError, match="there is no number 'ottawa'; this deployment has toronto, montreal"):
        given("balanced", asked="ottawa")


def test_one_number_needs_no_rule_and_a_bad_rule_says_what_is_accepted() -> None:
    assert assign_number(NumberPlan(), arm="x", strata={}, counts={}) == "main"
    with pytest.raises(ValueError, match="balanced, arm, or stratum:FIELD"):
        parse_rule("by-site")
