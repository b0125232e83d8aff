"""Tone learning: validation of model proposals, smoothing, hysteresis, conflicts and the guide."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from promptpipe.domain.tone import (
    ACTIVATE_AT,
    ALPHA,
    DEACTIVATE_AT,
    EXCLUSIVE_PAIRS,
    IMPLICIT_MIN_INTERVAL,
    LOSER_SCORE,
    TAGS,
    ToneOutcome,
    ToneProposal,
    ToneSource,
    ToneState,
    ToneUpdate,
    apply_proposal,
    tone_guide,
    validate_proposal,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
STEP = timedelta(minutes=3)
HEADER = "Tone for this participant:"


def activated(update: ToneUpdate) -> tuple[str, ...]:
    return tuple(tag for tag in TAGS if tag in update.after.active and tag not in update.before.active)


def deactivated(update: ToneUpdate) -> tuple[str, ...]:
    return tuple(tag for tag in TAGS if tag in update.before.active and tag not in update.after.active)


def explicit(*tags: str) -> ToneProposal:
    return ToneProposal(tuple(tags), ToneSource.EXPLICIT)


def implicit(*tags: str) -> ToneProposal:
    return ToneProposal(tuple(tags), ToneSource.IMPLICIT)


def ema_up(old: float) -> float:
    return round((1 - ALPHA) * old + ALPHA, 4)


def ema_down(old: float) -> float:
    return round((1 - ALPHA) * old, 4)


def state_with(scores: dict[str, float], active: tuple[str, ...] = ()) -> ToneState:
    return ToneState(scores=scores, active=active)


# --- validation ------------------------------------------------------------------------------


def test_whitelist_has_the_fifteen_tags() -> None:
    assert len(TAGS) == len(set(TAGS)) == 15
    assert {"concise", "no_emojis", "gentle_coach", "high_autonomy"} <= set(TAGS)


def test_unknown_tags_are_stripped_and_reported_after_normalising() -> None:
    proposal = validate_proposal(
        ["  Concise ", "SARCASTIC", "concise", "no_emojis", 42, "Bullet_Points", "sarcastic"], " Explicit ")
    assert proposal.tags == ("concise", "no_emojis", "bullet_points")
    assert proposal.source == ToneSource.EXPLICIT
    assert "sarcastic" in proposal.stripped and "42" in proposal.stripped
    assert proposal.stripped.count("sarcastic") == 1


@pytest.mark.parametrize("source", [None, "", "guessed", 3, "IMPLICIT"])
def test_missing_or_unknown_source_counts_as_implicit(source: object) -> None:
    assert validate_proposal(["casual"], source).source == ToneSource.IMPLICIT


@pytest.mark.parametrize("raw", ["concise", None, {"concise": 1}, 7])
def test_tags_that_are_not_a_list_are_rejected(raw: object) -> None:
    with pytest.raises(ValueError, match="list"):
        validate_proposal(raw, ToneSource.EXPLICIT)


# --- explicit and implicit updates -----------------------------------------------------------


def test_explicit_request_applies_at_once_without_rate_limit() -> None:
    first = apply_proposal(ToneState(), explicit("formal"), T0)
    assert first.outcome == ToneOutcome.APPLIED
    assert first.after.scores["formal"] == 1.0 and first.after.active == ("formal",)
    assert activated(first) == ("formal",)
    second = apply_proposal(first.after, explicit("bullet_points"), T0 + timedelta(seconds=5))
    assert second.outcome == ToneOutcome.APPLIED
    assert second.after.active == ("formal", "bullet_points")  # no decay of the earlier request
    assert second.after.last_source == ToneSource.EXPLICIT


def test_implicit_observation_follows_the_ema() -> None:
    state, expected, seen = ToneState(), 0.0, []
    for step in range(3):
        update = apply_proposal(state, implicit("warm_supportive"), T0 + step * STEP)
        expected = ema_up(expected)
        assert update.outcome == ToneOutcome.APPLIED
        assert update.after.scores["warm_supportive"] == expected
        seen.append(expected)
        state = update.after
    assert seen == [0.15, 0.2775, 0.3859]  # 0 -> 0.15 -> 0.2775 -> 0.3859, rounded to 4 places
    assert state.active == ()


def test_it_takes_eight_implicit_observations_to_activate_a_tag() -> None:
    state, count = ToneState(), 0
    while "casual" not in state.active:
        state = apply_proposal(state, implicit("casual"), T0 + count * STEP).after
        count += 1
        assert count < 20
    assert count == 8
    assert state.scores["casual"] >= ACTIVATE_AT


def test_unobserved_tags_decay_on_implicit_updates() -> None:
    start = state_with({"concise": 0.8, "high_autonomy": 0.5}, ("concise", "high_autonomy"))
    after = apply_proposal(start, implicit("casual"), T0).after
    assert after.scores["concise"] == ema_down(0.8)
    assert after.scores["high_autonomy"] == ema_down(0.5)
    assert after.scores["casual"] == ema_up(0.0)
    assert after.active == ("concise", "high_autonomy")  # 0.68 and 0.425: held by hysteresis
    again = apply_proposal(after, implicit("casual"), T0 + STEP).after
    assert again.scores["high_autonomy"] == ema_down(ema_down(0.5)) <= DEACTIVATE_AT
    assert again.active == ("concise",)


def test_scores_that_decay_to_almost_nothing_are_forgotten() -> None:
    state = state_with({"formal": 0.002})
    for step in range(10):
        state = apply_proposal(state, implicit("casual"), T0 + step * STEP).after
    assert "formal" not in state.scores


def test_implicit_updates_are_rate_limited_by_the_last_implicit_update() -> None:
    first = apply_proposal(ToneState(), implicit("concise"), T0)
    assert first.after.implicit_updated_at == T0
    too_soon = apply_proposal(first.after, implicit("concise"), T0 + timedelta(minutes=2))
    assert too_soon.outcome == ToneOutcome.RATE_LIMITED and too_soon.after == first.after
    # An explicit request in between is not blocked and does not restart the implicit clock.
    asked = apply_proposal(first.after, explicit("formal"), T0 + timedelta(minutes=2, seconds=30))
    assert asked.outcome == ToneOutcome.APPLIED and "formal" in asked.after.active
    assert asked.after.implicit_updated_at == T0
    assert asked.after.updated_at == T0 + timedelta(minutes=2, seconds=30)
    later = apply_proposal(asked.after, implicit("concise"), T0 + IMPLICIT_MIN_INTERVAL)
    assert later.outcome == ToneOutcome.APPLIED
    assert later.after.scores["concise"] == ema_up(ema_up(0.0))
    assert later.after.implicit_updated_at == T0 + IMPLICIT_MIN_INTERVAL


def test_an_explicit_request_right_after_inference_is_not_blocked() -> None:
    inferred = apply_proposal(ToneState(), implicit("casual"), T0).after
    asked = apply_proposal(inferred, explicit("detailed"), T0 + timedelta(seconds=1))
    assert asked.outcome == ToneOutcome.APPLIED and asked.after.active == ("detailed",)


# --- hysteresis ------------------------------------------------------------------------------


def test_middle_scores_keep_the_previous_state() -> None:
    # Explicit proposals do not decay other tags, so the held tag keeps its 0.5.
    was_on = apply_proposal(state_with({"concise": 0.5}, ("concise",)), explicit("formal"), T0).after
    assert was_on.scores["concise"] == 0.5 and "concise" in was_on.active
    was_off = apply_proposal(state_with({"concise": 0.5}), explicit("formal"), T0).after
    assert was_off.scores["concise"] == 0.5 and "concise" not in was_off.active


def test_a_tag_switches_off_at_the_deactivate_threshold() -> None:
    start = state_with({"bullet_points": 0.47}, ("bullet_points",))
    after = apply_proposal(start, implicit("casual"), T0).after
    assert after.scores["bullet_points"] == ema_down(0.47) <= DEACTIVATE_AT
    assert "bullet_points" not in after.active


def test_a_score_of_exactly_the_threshold_is_off() -> None:
    start = state_with({"bullet_points": DEACTIVATE_AT}, ("bullet_points",))
    after = apply_proposal(start, explicit("casual"), T0).after
    assert after.scores["bullet_points"] == DEACTIVATE_AT
    assert after.active == ("casual",)


# --- exclusive pairs -------------------------------------------------------------------------


@pytest.mark.parametrize(("first", "second"), EXCLUSIVE_PAIRS)
def test_explicit_request_beats_its_opposite(first: str, second: str) -> None:
    for held, asked in ((first, second), (second, first)):
        start = state_with({held: 1.0}, (held,))
        update = apply_proposal(start, explicit(asked), T0)
        assert asked in update.after.active and held not in update.after.active
        assert update.after.scores[held] == LOSER_SCORE
        assert deactivated(update) == (held,) and activated(update) == (asked,)


@pytest.mark.parametrize(("first", "second"), EXCLUSIVE_PAIRS)
def test_implicit_conflict_goes_to_the_higher_score(first: str, second: str) -> None:
    # ``second`` is held at 0.9 (active); inferring ``first`` takes it over the line, but the
    # decayed ``second`` still scores higher and keeps the slot.
    start = state_with({first: 0.69, second: 0.9}, (second,))
    update = apply_proposal(start, implicit(first), T0)
    assert ema_up(0.69) >= ACTIVATE_AT and ema_up(0.69) < ema_down(0.9)
    assert update.after.active == (second,)
    assert update.after.scores[first] == LOSER_SCORE
    assert update.after.scores[second] == ema_down(0.9)


def test_tag_held_by_hysteresis_does_not_coexist_with_its_opposite() -> None:
    # concise decays to 0.51 but stays active by hysteresis; detailed passes 0.7 and scores higher.
    start = state_with({"concise": 0.6, "detailed": 0.68}, ("concise",))
    update = apply_proposal(start, implicit("detailed"), T0)
    assert update.after.active == ("detailed",)
    assert update.after.scores["concise"] == LOSER_SCORE


def test_tied_conflict_goes_to_the_tag_observed_now() -> None:
    # casual is observed and rises, formal decays; both land on the same score.
    start = state_with({"formal": 0.8765, "casual": 0.7}, ("formal",))
    assert ema_up(0.7) == ema_down(0.8765) >= ACTIVATE_AT
    update = apply_proposal(start, implicit("casual"), T0)
    assert update.after.active == ("casual",)
    assert update.after.scores["formal"] == LOSER_SCORE


def test_full_tie_goes_to_the_first_of_the_pair() -> None:
    # Neither is part of the proposal and both score the same: the pair's first tag stays.
    start = state_with({"formal": 0.8, "casual": 0.8})
    update = apply_proposal(start, explicit("gentle_coach"), T0)
    assert update.after.active == ("formal", "gentle_coach")
    assert update.after.scores["casual"] == LOSER_SCORE


# --- emojis ----------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [ToneSource.EXPLICIT, ToneSource.IMPLICIT])
def test_no_emojis_wins_when_both_are_proposed(source: str) -> None:
    start = state_with({"no_emojis": 0.8, "emojis_ok": 0.8}, ())
    after = apply_proposal(start, ToneProposal(("emojis_ok", "no_emojis"), source), T0).after
    assert "no_emojis" in after.active and "emojis_ok" not in after.active
    assert after.scores.get("emojis_ok", 0.0) == 0.0


def test_inferring_both_emoji_tags_never_strengthens_emojis_ok() -> None:
    start = state_with({"emojis_ok": 0.65})
    after = apply_proposal(start, implicit("emojis_ok", "no_emojis"), T0).after
    assert after.scores["emojis_ok"] == ema_down(0.65) and after.active == ()
    assert after.scores["no_emojis"] == ema_up(0.0)


def test_active_no_emojis_zeroes_emojis_ok() -> None:
    start = state_with({"emojis_ok": 0.9, "no_emojis": 0.69}, ("emojis_ok",))
    after = apply_proposal(start, implicit("no_emojis"), T0).after
    assert after.active == ("no_emojis",)
    assert after.scores.get("emojis_ok", 0.0) == 0.0


def test_explicit_emojis_request_overrides_no_emojis() -> None:
    no = apply_proposal(ToneState(), explicit("no_emojis"), T0).after
    yes = apply_proposal(no, explicit("emojis_ok"), T0 + timedelta(minutes=10))
    assert yes.after.active == ("emojis_ok",)
    assert yes.after.scores["no_emojis"] == LOSER_SCORE
    assert deactivated(yes) == ("no_emojis",)
    assert "Emojis are welcome" in tone_guide(yes.after.active)


def test_inferred_emojis_do_not_override_an_active_no_emojis() -> None:
    start = state_with({"no_emojis": 1.0, "emojis_ok": 0.0}, ("no_emojis",))
    after = apply_proposal(start, implicit("emojis_ok"), T0).after
    assert after.active == ("no_emojis",) and "emojis_ok" not in after.scores


# --- no change -------------------------------------------------------------------------------


def test_proposal_without_valid_tags_changes_nothing() -> None:
    start = apply_proposal(ToneState(), explicit("casual"), T0).after
    proposal = validate_proposal(["rude", "sarcastic"], ToneSource.EXPLICIT)
    update = apply_proposal(start, proposal, T0 + timedelta(hours=1))
    assert update.outcome == ToneOutcome.NO_CHANGE and update.after == start


def test_repeating_an_explicit_request_is_no_change() -> None:
    start = apply_proposal(ToneState(), explicit("casual"), T0).after
    update = apply_proposal(start, explicit("casual"), T0 + timedelta(hours=1))
    assert update.outcome == ToneOutcome.NO_CHANGE and update.after.updated_at == T0


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError):
        apply_proposal(ToneState(), explicit("casual"), datetime(2026, 3, 2, 9, 0))


# --- storage ---------------------------------------------------------------------------------


def test_state_round_trips_through_json() -> None:
    state = apply_proposal(ToneState(), explicit("formal", "no_emojis"), T0).after
    state = apply_proposal(state, implicit("warm_supportive"), T0 + STEP).after
    stored = json.loads(json.dumps(state.to_json()))
    assert ToneState.from_json(stored) == state
    assert stored["implicit_updated_at"] == (T0 + STEP).isoformat()


@pytest.mark.parametrize("junk", [None, {}, [], "tone", {"scores": "x", "active": 3, "updated_at": "soon"}])
def test_junk_json_is_an_empty_state(junk: object) -> None:
    state = ToneState.from_json(junk)  # type: ignore[arg-type]
    assert state.scores == {} and state.active == () and state.updated_at is None


def test_from_json_drops_unknown_tags_and_bad_scores() -> None:
    state = ToneState.from_json({
        "scores": {"casual": 0.9, "shouty": 1.0, "formal": "high", "concise": 7, "detailed": True},
        "active": ["casual", "shouty", "concise"],
        "last_source": "telepathy",
    })
    assert state.scores == {"concise": 1.0, "casual": 0.9}
    assert state.active == ("concise", "casual")
    assert state.last_source is None


# --- guide -----------------------------------------------------------------------------------


def test_guide_is_empty_without_active_tags() -> None:
    assert tone_guide([]) == ""
    assert tone_guide(["made_up"]) == ""


def test_guide_has_a_line_per_active_tag_and_the_safety_line() -> None:
    active = ["concise", "casual", "bullet_points", "one_question_at_a_time", "direct_coach",
              "confirm_before_acting", "default_actionable", "high_autonomy"]
    guide = tone_guide(active)
    lines = guide.splitlines()
    assert lines[0] == HEADER
    # one line per tag, one safety line; no default stance because a stance tag is active
    assert len(lines) == 1 + len(active) + 1
    assert "one question" in guide and "directly" in guide and "agree" in guide
    assert "never mirror rudeness, sarcasm, insults" in lines[-1].lower()
    assert "emoji" not in guide.lower()


def test_each_tag_changes_the_guide() -> None:
    base = tone_guide(["high_autonomy"])
    for tag in TAGS:
        if tag != "high_autonomy":
            assert tone_guide(["high_autonomy", tag]) != base, tag


def test_guide_without_stance_gets_a_default_stance_line() -> None:
    with_default = tone_guide(["concise"]).splitlines()
    with_stance = tone_guide(["concise", "warm_supportive"]).splitlines()
    assert len(with_default) == len(with_stance) == 4
    assert with_default[2] != with_stance[2]
    assert "sarcasm" in with_default[-1]


def test_guide_never_says_both_emoji_things() -> None:
    guide = tone_guide(["emojis_ok", "no_emojis", "bogus"])
    assert "Do not use emojis." in guide and "welcome" not in guide
    assert len(guide.splitlines()) == 4  # header, emoji, default stance, safety
