"""Repeats (``promptpipe evaluate --repeats N``): each persona and case runs N times, each time with a seed of its
own, so one sample's luck neither passes nor fails the coach. Here: the seed of each repeat and of each judging pass,
and the id each repeat's conversation gets."""

from __future__ import annotations

import zlib

__all__ = ["MAX_REPEATS", "pass_seed", "repeat_id", "repeat_seed"]

MAX_REPEATS = 100
"""The most runs of each conversation one evaluation takes (each costs a whole run's model calls)."""
_SEED_BITS = 0x7FFFFFFF
"""Seeds stay positive 31-bit numbers, which every OpenAI-compatible server takes."""


def repeat_seed(seed: int, index: int) -> int:
    """The seed of repeat ``index`` (from 0) of a run seeded ``seed``: ``seed + index``, so the first
    repeat is the run a single repeat would have been."""
    return seed + index


def pass_seed(seed: int, judge: str) -> int:
    """The seed a judging pass samples with when it reads a conversation that ran with ``seed``: mixed with the pass's
    name, since two passes of one model given one seed would agree by construction, not by judgement."""
    return zlib.crc32(f"{seed}:{judge}".encode()) & _SEED_BITS


def repeat_id(subject: str, repeat: int, repeats: int) -> str:
    """The id of repeat ``repeat`` (from 1) of the conversation ``subject`` (``persona:<name>``, ``case:<id>``):
    ``subject#2`` …, or ``subject`` itself when it runs once, so a single run reads as before."""
    return subject if repeats == 1 else f"{subject}#{repeat}"
