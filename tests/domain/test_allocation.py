"""Concealed block randomisation: balance within every stratum at every point of recruitment,
the overall ratio, reproducibility from the seed, and the errors a researcher sees."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from promptpipe.domain.allocation import arm_at, block_for, new_seed, stratum_key
from promptpipe.domain.study import Allocation, Arm

SEED = bytes(range(32))
ARMS = (Arm("coached", ratio=2), Arm("control", ratio=1))
BLOCK = 6
SITES, SEXES = ("A", "B"), ("F", "M")
STRATIFIED = Allocation(block_size=BLOCK, strata=(("site", SITES), ("sex", SEXES)))


def share(arm: Arm) -> Fraction:
    return Fraction(arm.ratio, sum(a.ratio for a in ARMS))


def sequence(seed: bytes, stratum: str, count: int, arms: tuple[Arm, ...] = ARMS, block: int = BLOCK) -> list[str]:
    return [arm_at(seed, arms, block, stratum, n) for n in range(1, count + 1)]


def test_ten_thousand_enrolments_stay_balanced_in_every_stratum_at_every_point() -> None:
    """Participants arrive in random strata; after every single enrolment each arm's count in
    that stratum is within one block of its ratio share, and every completed block is exact."""
    arrivals = random.Random(20260310)
    enrolled: dict[str, int] = Counter()
    counts: dict[str, Counter[str]] = {}
    overall: Counter[str] = Counter()
    for _ in range(10_000):
        values = {"sex": arrivals.choice(SEXES), "site": arrivals.choice(SITES)}
        stratum = stratum_key(STRATIFIED, values)
        enrolled[stratum] += 1
        n = enrolled[stratum]
        arm = arm_at(SEED, ARMS, BLOCK, stratum, n)
        counts.setdefault(stratum, Counter())[arm] += 1
        overall[arm] += 1
        for each in ARMS:
            assert abs(counts[stratum][each.name] - n * share(each)) <= BLOCK * share(each)
            if n % BLOCK == 0:
                assert counts[stratum][each.name] == n * share(each)
    assert set(enrolled) == {f"site={s}|sex={x}" for s in SITES for x in SEXES}
    assert sum(overall.values()) == 10_000
    for each in ARMS:
        assert abs(overall[each.name] / 10_000 - share(each)) < 0.002


def test_blocks_are_shuffled_not_handed_out_in_arm_order() -> None:
    """Position in a block does not give the arm away: across many blocks every arm turns up
    in every position, and the block orders differ."""
    arms = sequence(SEED, "", 600)
    blocks = [tuple(arms[i:i + BLOCK]) for i in range(0, len(arms), BLOCK)]
    assert len(set(blocks)) > 1
    for position in range(BLOCK):
        assert {block[position] for block in blocks} == {arm.name for arm in ARMS}


def test_the_same_seed_gives_the_same_sequence_and_another_seed_another() -> None:
    first = sequence(SEED, "site=A|sex=F", 60)
    assert sequence(SEED, "site=A|sex=F", 60) == first  # a retried enrolment allocates the same way
    assert arm_at(SEED, ARMS, BLOCK, "site=A|sex=F", 17) == first[16]
    assert sequence(bytes(32), "site=A|sex=F", 60) != first
    assert sequence(new_seed(), "site=A|sex=F", 60) != first


def test_each_stratum_has_its_own_sequence() -> None:
    assert sequence(SEED, "site=A|sex=F", 60) != sequence(SEED, "site=B|sex=F", 60)


def test_new_seeds_are_32_secret_bytes() -> None:
    seeds = {new_seed() for _ in range(5)}
    assert len(seeds) == 5
    assert all(isinstance(seed, bytes) and len(seed) == 32 for seed in seeds)


@pytest.mark.parametrize("sequence_number", [0, -1])
def test_enrolment_numbers_start_at_one(sequence_number: int) -> None:
    with pytest.raises(ValueError, match="start at 1"):
        arm_at(SEED, ARMS, BLOCK, "", sequence_number)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"site": "A", "sex": "F"}, "site=A|sex=F"),
        ({"sex": "M", "site": "B"}, "site=B|sex=M"),  # the study file's order, not the caller's
        ({"site": "B", "sex": "F", "cohort": "2"}, "site=B|sex=F"),  # undeclared fields do not stratify
    ],
)
def test_stratum_key_follows_the_declared_field_order(values: dict[str, str], expected: str) -> None:
    assert stratum_key(STRATIFIED, values) == expected


def test_an_unstratified_study_has_one_stratum() -> None:
    assert stratum_key(Allocation(block_size=3), {}) == ""
    assert stratum_key(Allocation(block_size=3), {"site": "A"}) == ""


@pytest.mark.parametrize(
    ("values", "named_field", "allowed"),
    [
        ({"sex": "F"}, "site", "A, B"),  # missing
        ({"site": "A"}, "sex", "F, M"),
        ({"site": "C", "sex": "F"}, "site", "A, B"),  # not one of the allowed values
        ({"site": "a", "sex": "F"}, "site", "A, B"),  # values are exact
        ({"site": "A", "sex": ""}, "sex", "F, M"),
    ],
)
def test_a_missing_or_unknown_stratum_value_names_the_field_and_its_values(
    values: dict[str, str], named_field: str, allowed: str
) -> None:
    with pytest.raises(ValueError) as error:
        stratum_key(STRATIFIED, values)
    message = str(error.value)
    assert f"--stratum {named_field}=" in message
    assert f"(one of {allowed})" in message


def test_a_block_holds_every_arm_in_its_ratio() -> None:
    for size in (3, 6, 12):
        block = block_for(ARMS, size)
        assert len(block) == size
        assert Counter(block) == {arm.name: size * share(arm) for arm in ARMS}
        assert block == sorted(block, key=[arm.name for arm in ARMS].index)  # arm order before shuffling
    assert block_for((Arm("only"),), 1) == ["only"]


@pytest.mark.parametrize("size", [0, -3, 1, 2, 4, 5, 7])
def test_a_block_size_that_is_not_a_multiple_of_the_ratios_fails(size: int) -> None:
    with pytest.raises(ValueError, match="multiple"):
        block_for(ARMS, size)
    with pytest.raises(ValueError, match="multiple"):
        arm_at(SEED, ARMS, size, "", 1)


@pytest.mark.parametrize("arms", [(), (Arm("a", ratio=0), Arm("b"))])
def test_allocation_needs_arms_with_positive_ratios(arms: tuple[Arm, ...]) -> None:
    with pytest.raises(ValueError):
        block_for(arms, 6)
