"""Concealed block randomisation of participants to arms (docs/allocation.md specifies the draws). Each stratum's
blocks hold every arm in its ratio; sizes and order come from a secret seed, so staff predict neither the next arm nor
a block's end, yet an auditor with the seed reproduces the sequence. ``hmac-sha256-v1`` uses only HMAC-SHA256 (R, SAS or
Stata can redo it); databases that allocated under ``python-random-v0`` keep it."""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from promptpipe.study.rules.decision_rule import uniform
from promptpipe.study.rules.protocol import Allocation, Arm

__all__ = ["LEGACY_SCHEME", "SCHEME", "SCHEMES", "SEED_BYTES", "Place", "arm_at", "block_for", "new_seed", "places",
           "seed_fingerprint", "stratum_key"]

SEED_BYTES = 32
SCHEME = "hmac-sha256-v1"
LEGACY_SCHEME = "python-random-v0"
SCHEMES = (SCHEME, LEGACY_SCHEME)
_FINGERPRINT_LABEL = b"promptpipe study seed fingerprint"


@dataclass(frozen=True)
class Place:
    sequence: int
    """1-based, counted over the whole stratum; ``block`` and ``position`` (in the block) count from 0."""
    block: int
    block_size: int
    position: int
    arm: str


def _stratum_hint(name: str, allowed: tuple[str, ...]) -> str:
    example = allowed[0] if allowed else "VALUE"
    return f"give --stratum {name}={example} (one of {', '.join(allowed)})"


def stratum_key(allocation: Allocation, values: Mapping[str, str]) -> str:
    """The stratum of these enrollment ``values``: ``"site=A|sex=F"`` in the declared field order ("" unstratified)."""
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
    """The arm names of one block before shuffling: each arm ``ratio * block_size // total`` times, in arm order."""
    if not arms:
        raise ValueError("allocation needs at least one arm")
    if any(arm.ratio < 1 for arm in arms):
        raise ValueError("every arm's ratio must be a positive whole number")
    total = sum(arm.ratio for arm in arms)
    if block_size < 1 or block_size % total:
        raise ValueError(f"block size {block_size} must be a positive multiple of the arms' ratios' total ({total})")
    return [arm.name for arm in arms for _ in range(arm.ratio * block_size // total)]


def _mac(seed: bytes, key: str) -> bytes:
    return hmac.new(seed, key.encode(), hashlib.sha256).digest()


def _shuffled(seed: bytes, arms: Sequence[Arm], size: int, stratum: str, block: int, scheme: str) -> list[str]:
    names = block_for(arms, size)
    if scheme == LEGACY_SCHEME:
        random.Random(_mac(seed, f"{stratum}|{block}")).shuffle(names)
        return names
    keys = [_mac(seed, f"order|{stratum}|{block}|{place}") for place in range(size)]
    return [names[place] for place in sorted(range(size), key=lambda place: (keys[place], place))]


def places(seed: bytes, arms: Sequence[Arm], sizes: Sequence[int], stratum: str,
           scheme: str = SCHEME) -> Iterator[Place]:
    """The stratum's allocation sequence from its first place on, block after block (endless)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown allocation scheme {scheme!r} (known: {', '.join(SCHEMES)})")
    if not sizes:
        raise ValueError("allocation needs at least one block size")
    if scheme == LEGACY_SCHEME and len(sizes) > 1:
        raise ValueError(f"the {LEGACY_SCHEME} scheme has one fixed block size")
    for size in sizes:
        block_for(arms, size)  # every listed size must hold the arms in their ratio
    sequence, block = 0, 0
    while True:
        size = sizes[0] if len(sizes) == 1 else sizes[int(uniform(seed, f"size|{stratum}|{block}") * len(sizes))]
        for position, arm in enumerate(_shuffled(seed, arms, size, stratum, block, scheme)):
            sequence += 1
            yield Place(sequence, block, size, position, arm)
        block += 1


def arm_at(seed: bytes, arms: Sequence[Arm], sizes: Sequence[int], stratum: str, sequence: int,
           scheme: str = SCHEME) -> str:
    """The arm of the ``sequence``-th (1-based) enrolment in ``stratum``."""
    if sequence < 1:
        raise ValueError(f"enrolment sequence numbers start at 1, not {sequence}")
    for place in places(seed, arms, sizes, stratum, scheme):
        if place.sequence == sequence:
            return place.arm
    raise AssertionError("unreachable: the sequence is endless")


def new_seed() -> bytes:
    """A fresh secret allocation seed (32 random bytes); keep it away from enrolling staff."""
    return secrets.token_bytes(SEED_BYTES)


def seed_fingerprint(seed: bytes) -> str:
    """What the database keeps of a seed held outside it: it tells a changed seed without revealing it."""
    return hmac.new(seed, _FINGERPRINT_LABEL, hashlib.sha256).hexdigest()
