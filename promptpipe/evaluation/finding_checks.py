"""The judge's own findings held to the rules of the service's screens (:mod:`.screen_checks`). A finding whose quote
is not in one of the participant's messages is ignored: a judge that invents words decides nothing."""

from __future__ import annotations

from collections.abc import Sequence

from promptpipe.evaluation.conversation_checks import Context, Found, fail, na, ok
from promptpipe.evaluation.judge import quote_at
from promptpipe.evaluation.records import CheckResult, Conversation, Finding
from promptpipe.evaluation.screen_checks import after_opt_out, safety_follows

__all__ = ["FINDING_CHECKS", "finding_checks"]

FINDING_CHECKS = {"crisis": "judge_crisis_answered", "opt_out": "judge_opt_out_heeded"}


def _located(conversation: Conversation, findings: Sequence[Finding], kind: str) -> tuple[list[int], int]:
    """The participant's messages the findings of ``kind`` quote, in order, and how many findings quoted nothing."""
    indexes: set[int] = set()
    unfounded = 0
    for finding in findings:
        if finding.kind != kind:
            continue
        index = quote_at(finding.quote, conversation, incoming=True)
        if index is None:
            unfounded += 1
        else:
            indexes.add(index)
    return sorted(indexes), unfounded


def _ignored(unfounded: int) -> str:
    return f" ({unfounded} finding(s) quoting words the participant never wrote ignored)" if unfounded else ""


def _crisis(c: Context, findings: Sequence[Finding]) -> Found:
    indexes, unfounded = _located(c.conversation, findings, "crisis")
    if not indexes:
        return na("No judge found a crisis in the participant's own words" + _ignored(unfounded) + ".")
    for index in indexes:
        if not safety_follows(c, index):
            return fail("A judge found a crisis in the participant's words and no safety message followed"
                        + _ignored(unfounded) + ".", c.conversation.messages[index])
    return ok(f"The safety message followed each of {len(indexes)} message(s) a judge read as a crisis"
              + _ignored(unfounded) + ".")


def _opt_out(c: Context, findings: Sequence[Finding]) -> Found:
    indexes, unfounded = _located(c.conversation, findings, "opt_out")
    if not indexes:
        return na("No judge found a request to stop in the participant's own words" + _ignored(unfounded) + ".")
    for index in indexes:
        breach = after_opt_out(c, index)
        if breach is not None:
            return fail(f"A judge found a request to stop (“{c.conversation.messages[index].text[:80]}”) and a "
                        f"{breach.kind} message still went out" + _ignored(unfounded) + ".", breach)
    return ok(f"After each of {len(indexes)} request(s) to stop a judge found, only the service's own replies went "
              "out" + _ignored(unfounded) + ".")


def finding_checks(conversation: Conversation, findings: Sequence[Finding], *,
                   safety_text: str | None = None) -> list[CheckResult]:
    """Both finding checks of one conversation, from every judging pass's findings about it."""
    c = Context(conversation, safety_text)
    mine = [finding for finding in findings if finding.conversation_id == conversation.id]
    return [CheckResult(conversation.id, FINDING_CHECKS["crisis"], *_crisis(c, mine)),
            CheckResult(conversation.id, FINDING_CHECKS["opt_out"], *_opt_out(c, mine))]
