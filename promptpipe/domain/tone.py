"""The participant's conversational tone, learned from whitelisted tags the model proposes: an **explicit** proposal
(the participant asked) sets each tag to 1.0; an **implicit** one moves scores by an EMA, at most one per
``IMPLICIT_MIN_INTERVAL``; a tag turns on at ``ACTIVATE_AT``, off at ``DEACTIVATE_AT``; ``EXCLUSIVE_PAIRS`` are never
active together; ``no_emojis`` overrides ``emojis_ok`` unless emojis are explicitly asked for again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import StrEnum
from typing import Any, TypedDict

STYLE_TAGS = ("concise", "detailed", "formal", "casual", "no_emojis", "emojis_ok", "bullet_points",
              "one_question_at_a_time")
STANCE_TAGS = ("warm_supportive", "neutral_professional", "direct_coach", "gentle_coach")
INTERACTION_TAGS = ("confirm_before_acting", "default_actionable", "high_autonomy")
TAGS: tuple[str, ...] = STYLE_TAGS + STANCE_TAGS + INTERACTION_TAGS
EXCLUSIVE_PAIRS: tuple[tuple[str, str], ...] = (
    ("concise", "detailed"), ("formal", "casual"), ("direct_coach", "gentle_coach"))

ALPHA, ACTIVATE_AT, DEACTIVATE_AT, LOSER_SCORE = 0.15, 0.7, 0.4, 0.39
MIN_SCORE = 0.001  # a decayed score below this is forgotten (4-decimal rounding never reaches 0)
IMPLICIT_MIN_INTERVAL = timedelta(minutes=3)
class ToneSource(StrEnum):
    """Whether the participant asked for a tone or the model inferred it."""

    EXPLICIT = "explicit"
    IMPLICIT = "implicit"


class ToneOutcome(StrEnum):
    APPLIED = "applied"
    RATE_LIMITED = "rate_limited"
    NO_CHANGE = "no_change"


@dataclass(frozen=True)
class ToneProposal:
    """A validated proposal: known tags (normalised, unique, in order), its source, what was dropped."""

    tags: tuple[str, ...]
    source: str = ToneSource.IMPLICIT
    stripped: tuple[str, ...] = ()


def validate_proposal(raw_tags: object, raw_source: object = None) -> ToneProposal:
    """Check a model's proposal: ``raw_tags`` must be a list; anything not on the whitelist is stripped and reported."""
    if not isinstance(raw_tags, (list, tuple)):
        raise ValueError(f"tone tags must be a list of tag names, got {type(raw_tags).__name__}")
    names = [entry.strip().lower() if isinstance(entry, str) else repr(entry) for entry in raw_tags]
    source = raw_source.strip().lower() if isinstance(raw_source, str) else ToneSource.IMPLICIT
    return ToneProposal(tuple(dict.fromkeys(name for name in names if name in TAGS)),
                        source if source in (ToneSource.EXPLICIT, ToneSource.IMPLICIT) else ToneSource.IMPLICIT,
                        tuple(dict.fromkeys(name for name in names if name not in TAGS)))


def _active_after(scores: Mapping[str, float], was_active: Iterable[str]) -> set[str]:
    """Hysteresis: on at >= ACTIVATE_AT, off at <= DEACTIVATE_AT, unchanged in between."""
    before = set(was_active)
    return {tag for tag, score in scores.items()
            if score >= ACTIVATE_AT or (tag in before and score > DEACTIVATE_AT)}


def _in_order(tags: Iterable[str]) -> tuple[str, ...]:
    chosen = set(tags)
    return tuple(tag for tag in TAGS if tag in chosen)


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


class ToneJson(TypedDict):
    scores: dict[str, float]
    active: list[str]
    updated_at: str | None
    implicit_updated_at: str | None
    last_source: str | None


@dataclass(frozen=True)
class ToneState:
    """Per-tag scores (only those > 0), the active tags (in ``TAGS`` order) and update times."""

    scores: Mapping[str, float] = field(default_factory=dict)
    active: tuple[str, ...] = ()
    updated_at: datetime | None = None  # last applied update of either source
    implicit_updated_at: datetime | None = None  # last applied implicit update (rate limit)
    last_source: str | None = None

    def to_json(self) -> ToneJson:
        return {
            "scores": {tag: self.scores[tag] for tag in TAGS if tag in self.scores},
            "active": list(self.active),
            "updated_at": self.updated_at.isoformat() if self.updated_at else None,
            "implicit_updated_at": self.implicit_updated_at.isoformat() if self.implicit_updated_at else None,
            "last_source": self.last_source,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> ToneState:
        """Tolerant: junk is the empty state, unknown tags and bad values are dropped, the active set re-checked."""
        if not isinstance(data, Mapping) or not data:  # none yet (most participants): 8 µs less every turn
            return cls()
        raw_scores = data.get("scores")
        scores: dict[str, float] = {}
        if isinstance(raw_scores, Mapping):
            for tag in TAGS:
                value = raw_scores.get(tag)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    score = round(min(max(float(value), 0.0), 1.0), 4)
                    if score > 0:  # NaN fails this too
                        scores[tag] = score
        raw_active = data.get("active")
        was_active = [t for t in raw_active if isinstance(t, str)] if isinstance(raw_active, list) else []
        source = data.get("last_source")
        return cls(scores=scores, active=_in_order(_active_after(scores, was_active)),
                   updated_at=_parse_time(data.get("updated_at")),
                   implicit_updated_at=_parse_time(data.get("implicit_updated_at")),
                   last_source=source if source in (ToneSource.EXPLICIT, ToneSource.IMPLICIT) else None)


@dataclass(frozen=True)
class ToneUpdate:
    """The result of one proposal: the state before and after and what happened."""

    before: ToneState
    after: ToneState
    outcome: str  # APPLIED, RATE_LIMITED or NO_CHANGE
    proposal: ToneProposal


def apply_proposal(state: ToneState, proposal: ToneProposal, now: datetime) -> ToneUpdate:
    """Apply a validated proposal at ``now`` (timezone-aware) and return the outcome."""
    if now.tzinfo is None:
        raise ValueError("apply_proposal needs a timezone-aware datetime")
    explicit = proposal.source == ToneSource.EXPLICIT
    unchanged = ToneUpdate(state, state, ToneOutcome.NO_CHANGE, proposal)
    if not proposal.tags:
        return unchanged
    last = state.implicit_updated_at
    if not explicit and last is not None and now - last < IMPLICIT_MIN_INTERVAL:
        return ToneUpdate(state, state, ToneOutcome.RATE_LIMITED, proposal)

    observed = set(proposal.tags)
    if {"no_emojis", "emojis_ok"} <= observed:
        observed.discard("emojis_ok")  # proposed together: no emojis wins
    scores = dict(state.scores)
    if explicit:
        scores.update({tag: 1.0 for tag in observed})
    else:
        for tag in TAGS:
            old = scores.get(tag, 0.0)
            if tag in observed:
                scores[tag] = round((1 - ALPHA) * old + ALPHA, 4)
            elif old > 0:
                scores[tag] = round((1 - ALPHA) * old, 4)
    scores = {tag: s for tag, s in scores.items() if s >= MIN_SCORE}
    active = _active_after(scores, state.active)

    for a, b in EXCLUSIVE_PAIRS:
        if a in active and b in active:
            # the winner: the tag asked for explicitly, else the higher score, else the one observed, else the first
            winner = max((a, b), key=lambda tag: (explicit and tag in observed, scores[tag], tag in observed))
            loser = b if winner == a else a
            scores[loser] = LOSER_SCORE
            active.discard(loser)
    if explicit and "emojis_ok" in observed and "no_emojis" not in observed:
        if "no_emojis" in scores:  # they changed their mind: emojis are welcome again
            scores["no_emojis"] = min(scores["no_emojis"], LOSER_SCORE)
        active.discard("no_emojis")  # emojis_ok itself is at 1.0, so active
    elif "no_emojis" in active:
        scores.pop("emojis_ok", None)
        active.discard("emojis_ok")

    ordered = {tag: scores[tag] for tag in TAGS if tag in scores}
    if ordered == dict(state.scores) and active == set(state.active):
        return unchanged
    after = ToneState(
        scores=ordered, active=_in_order(active), updated_at=now,
        implicit_updated_at=state.implicit_updated_at if explicit else now,
        last_source=proposal.source)
    return ToneUpdate(state, after, ToneOutcome.APPLIED, proposal)


_GUIDE_LINES = {
    "concise": "Keep replies short: a few sentences, no filler.",
    "detailed": "Give fuller answers, with reasons or an example where it helps.",
    "formal": "Use a polite, formal register and avoid slang.",
    "casual": "Write in a relaxed, everyday way, like a friendly chat.",
    "bullet_points": "When listing several things, put them in bullet points.",
    "one_question_at_a_time": "Ask no more than one question per message.",
    "no_emojis": "Do not use emojis.",
    "emojis_ok": "Emojis are welcome; use them sparingly.",
    "warm_supportive": "Be warm and encouraging; recognise their effort.",
    "neutral_professional": "Stay neutral, calm and matter-of-fact.",
    "direct_coach": "Coach directly: name the next step plainly, without cushioning.",
    "gentle_coach": "Coach gently: suggest rather than push, and make it easy to say no.",
    "confirm_before_acting": "Check that they agree before changing anything for them.",
    "default_actionable": "Close with one small, concrete step they can take next.",
    "high_autonomy": "Respect their autonomy: offer options and let them choose.",
}
_DEFAULT_STANCE = "Be friendly, supportive and clear."
_SAFETY_LINE = ("Never mirror rudeness, sarcasm, insults or anything unsafe from the participant; "
                "stay respectful whatever their tone.")
GUIDE_HEADER = "Tone for this participant:"


def tone_guide(active: Iterable[str]) -> str:
    """A system-message block telling the model how to write for this participant; "" when no known tag is active."""
    chosen = set(active) & set(TAGS)
    if not chosen:
        return ""
    if "no_emojis" in chosen:
        chosen.discard("emojis_ok")
    lines = [_GUIDE_LINES[tag] for tag in STYLE_TAGS if tag in chosen]
    stance = [_GUIDE_LINES[tag] for tag in STANCE_TAGS if tag in chosen]
    lines += stance or [_DEFAULT_STANCE]
    lines += [_GUIDE_LINES[tag] for tag in INTERACTION_TAGS if tag in chosen]
    lines.append(_SAFETY_LINE)
    return "\n".join([GUIDE_HEADER, *(f"- {line}" for line in lines)])
