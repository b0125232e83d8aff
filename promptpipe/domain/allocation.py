"""Concealed block randomisation of participants to arms.

Within each stratum, every block of ``block_size`` enrolments holds each arm exactly in its ratio,
so the arms stay balanced however recruitment goes. The order inside a block is drawn from a
secret seed: staff enrolling participants cannot predict the next arm (allocation concealment),
yet the allocation is a pure function of (seed, stratum, position), so an enrolment retried after
a crash gets the same arm and an auditor holding the seed can reproduce the whole sequence.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Mapping, Sequence

from promptpipe.domain.study import Allocation, Arm

__all__ = ["SEED_BYTES", "arm_at", "block_for", "new_seed", "stratum_key"]

SEED_BYTES = 32


def _stratum_hint(name: str, allowed: tuple[str, ...]) -> str:
    example = allowed[0] if allowed else "VALUE"
    return f"give --stratum {name}={example} (one of {', '.join(allowed)})"


def stratum_key(allocation: Allocation, values: Mapping[str, str]) -> str:
    """The stratum a participant with these enrollment ``values`` falls in: ``"site=A|sex=F"``
    in the allocation's declared field order ("" when the study does not stratify). Fields the
    allocation does not declare are ignored."""
    parts = []
    for name, allowed in allocation.strata:
        value = values.get(name)
        if value is None:
            raise ValueError(f"this study stratifies by {name}: {_stratum_hint(name, allowed)}")
        if value not in allowed:
            raise ValueError(f"{value!r} is not a {name} in this study: {_stratum_hint(name, allowed)}")
        parts.append(f"{name}={value}")
    return "|".join(parts)


def block_for(arms: Sequence[Arm], block_size: int) -> list[str]:
    """The arm names of one block before shuffling: each arm ``ratio * block_size // total``
    times, in arm order. The block size must be a positive multiple of the ratios' total."""
    if not arms:
        raise ValueError("allocation needs at least one arm")
    if any(arm.ratio < 1 for arm in arms):
        raise ValueError("every arm's ratio must be a positive whole number")
    total = sum(arm.ratio for arm in arms)
    if block_size < 1 or block_size % total:
        raise ValueError(
            f"block size {block_size} must be a positive multiple of the arms' ratios' total ({total})"
        )
    return [arm.name for arm in arms for _ in range(arm.ratio * block_size // total)]


def _block_rng(seed: bytes, stratum: str, block_index: int) -> random.Random:
    digest = hmac.new(seed, f"{stratum}|{block_index}".encode(), hashlib.sha256).digest()
    return random.Random(digest)


def arm_at(seed: bytes, arms: Sequence[Arm], block_size: int, stratum: str, sequence: int) -> str:
    """The arm of the ``sequence``-th (1-based) enrolment in ``stratum``.

    Block ``(sequence - 1) // block_size`` is :func:`block_for` shuffled by ``random.Random``
    seeded with HMAC-SHA256(seed, ``f"{stratum}|{block_index}"``); the enrolment takes its
    ``(sequence - 1) % block_size``-th place.
    """
    if sequence < 1:
        raise ValueError(f"enrolment sequence numbers start at 1, not {sequence}")
    block = block_for(arms, block_size)
    block_index, position = divmod(sequence - 1, block_size)
    _block_rng(seed, stratum, block_index).shuffle(block)
    return block[position]


def new_seed() -> bytes:
    """A fresh secret allocation seed (32 random bytes); keep it away from enrolling staff."""
    return secrets.token_bytes(SEED_BYTES)
