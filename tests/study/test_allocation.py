"""Concealed block randomisation: balance within every stratum at every point of recruitment,
the overall ratio, random block sizes, reproducibility from the seed by the documented portable
algorithm (a known vector and a re-implementation from docs/allocation.md), the older scheme a
running database keeps, and the errors a researcher sees."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections import Counter
from fractions import Fraction
from itertools import islice
from pathlib import Path

import pytest

from promptpipe.study.rules.allocation import (
    LEGACY_SCHEME,
    arm_at,
    block_for,
    new_seed,
    places,
    seed_fingerprint,
    stratum_key,
)
from promptpipe.study.rules.protocol import Allocation, Arm

SEED = bytes(range(32))
ARMS = (Arm("coached", ratio=2), Arm("control", ratio=1))
BLOCK = 6
SITES, SEXES = ("A", "B"), ("F", "M")
STRATIFIED = Allocation(block_sizes=(BLOCK,), strata=(("site", SITES), ("sex", SEXES)))


def share(arm: Arm) -> Fraction:
    return Fraction(arm.ratio, sum(a.ratio for a in ARMS))


def sequence(seed: bytes, stratum: str, count: int, arms: tuple[Arm, ...] = ARMS,
             sizes: tuple[int, ...] = (BLOCK,), scheme: str = "hmac-sha256-v1") -> list[str]:
    return [place.arm for place in islice(places(seed, arms, sizes, stratum, scheme), count)]


def test_ten_thousand_enrolments_stay_balanced_in_every_stratum_at_every_point() -> None:
    """Participants arrive in random strata; after every single enrolment each arm's count in
    that stratum is within one block of its ratio share, and every completed block is exact."""
    arrivals = random.Random(20260310)
    enrolled: dict[str, int] = Counter()
    counts: dict[str, Counter[str]] = {}
    overall: Counter[str] = Counter()
    streams = {f"site={site}|sex={sex}": places(SEED, ARMS, (BLOCK,), f"site={site}|sex={sex}")
               for site in SITES for sex in SEXES}
    for _ in range(10_000):
        values = {"sex": arrivals.choice(SEXES), "site": arrivals.choice(SITES)}
        stratum = stratum_key(STRATIFIED, values)
        enrolled[stratum] += 1
        n = enrolled[stratum]
        arm = next(streams[stratum]).arm
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
    assert arm_at(SEED, ARMS, (BLOCK,), "site=A|sex=F", 17) == first[16]
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
        arm_at(SEED, ARMS, (BLOCK,), "", sequence_number)


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
    assert stratum_key(Allocation(block_sizes=(3,)), {}) == ""
    assert stratum_key(Allocation(block_sizes=(3,)), {"site": "A"}) == ""


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
        arm_at(SEED, ARMS, (size,), "", 1)
    with pytest.raises(ValueError, match="multiple"):
        arm_at(SEED, ARMS, (3, size), "", 1)  # every listed size must fit, not just the one drawn first


@pytest.mark.parametrize("arms", [(), (Arm("a", ratio=0), Arm("b"))])
def test_allocation_needs_arms_with_positive_ratios(arms: tuple[Arm, ...]) -> None:
    with pytest.raises(ValueError):
        block_for(arms, 6)


def test_random_block_sizes_mix_the_listed_sizes_and_keep_every_block_exact() -> None:
    """With sizes 3 and 6 (ratio 2:1), blocks of both sizes turn up in an unpredictable order and
    each one holds the arms exactly in their ratio, so counts give no block end away."""
    blocks: dict[int, list[str]] = {}
    sizes: dict[int, int] = {}
    for place in islice(places(SEED, ARMS, (3, 6), "site=A|sex=F"), 900):
        blocks.setdefault(place.block, []).append(place.arm)
        sizes[place.block] = place.block_size
    complete = [block for block, arms in blocks.items() if len(arms) == sizes[block]]
    assert Counter(sizes[block] for block in complete).keys() == {3, 6}
    assert 0.35 < sum(sizes[block] == 3 for block in complete) / len(complete) < 0.65
    for block in complete:
        assert Counter(blocks[block]) == {arm.name: sizes[block] * share(arm) for arm in ARMS}
    ends = {sum(sizes[b] for b in range(block + 1)) for block in complete}
    assert ends != set(range(6, 901, 6))  # block ends are not at fixed multiples of one size


KNOWN_SEED = bytes(range(32))
TWO_ARMS = (Arm("coached"), Arm("control"))


def test_the_portable_scheme_gives_the_documented_known_vector() -> None:
    """The worked example of docs/allocation.md: an R or SAS re-implementation must print this.
    Changing the algorithm would re-allocate running studies, so this vector must never change."""
    first = list(islice(places(KNOWN_SEED, TWO_ARMS, (2, 4), "site=A"), 14))
    assert [(p.block, p.block_size, p.arm) for p in first] == [
        (0, 2, "control"), (0, 2, "coached"), (1, 2, "coached"), (1, 2, "control"), (2, 2, "coached"),
        (2, 2, "control"), (3, 2, "coached"), (3, 2, "control"), (4, 2, "coached"), (4, 2, "control"),
        (5, 4, "coached"), (5, 4, "coached"), (5, 4, "control"), (5, 4, "control"),
    ]


def _documented(seed: bytes, arms: tuple[Arm, ...], sizes: tuple[int, ...], stratum: str, count: int) -> list[str]:
    """docs/allocation.md, step by step, with nothing but HMAC-SHA256 (what R's digest::hmac does)."""
    def mac(key: str) -> bytes:
        return hmac.new(seed, key.encode("utf-8"), hashlib.sha256).digest()

    total = sum(arm.ratio for arm in arms)
    out: list[str] = []
    block = 0
    while len(out) < count:
        if len(sizes) == 1:
            size = sizes[0]
        else:
            u = (int.from_bytes(mac(f"size|{stratum}|{block}")[:8], "big") >> 11) / 2**53
            size = sizes[int(u * len(sizes))]
        unshuffled = [arm.name for arm in arms for _ in range(arm.ratio * size // total)]
        keys = [int.from_bytes(mac(f"order|{stratum}|{block}|{j}"), "big") for j in range(size)]
        out += [unshuffled[j] for j in sorted(range(size), key=lambda j: keys[j])]
        block += 1
    return out[:count]


@pytest.mark.parametrize(("arms", "sizes", "stratum"), [
    (TWO_ARMS, (2, 4), "site=A"), (ARMS, (3, 6, 9), "site=B|sex=M"), (ARMS, (6,), ""),
    ((Arm("a", ratio=1), Arm("b", ratio=2), Arm("c", ratio=1)), (4, 8), "site=Montréal"),
])
def test_the_sequence_follows_the_documented_algorithm(arms: tuple[Arm, ...], sizes: tuple[int, ...],
                                                       stratum: str) -> None:
    for seed in (KNOWN_SEED, new_seed()):
        assert sequence(seed, stratum, 200, arms, sizes) == _documented(seed, arms, sizes, stratum, 200)


def test_a_database_that_allocated_with_the_older_scheme_keeps_its_sequence() -> None:
    """The sequence a running study already handed out (Python's shuffle keyed by HMAC) goes on
    unchanged under the older scheme's name."""
    def older(stratum: str, count: int) -> list[str]:
        out: list[str] = []
        for block in range(count // BLOCK + 1):
            names = block_for(ARMS, BLOCK)
            random.Random(hmac.new(SEED, f"{stratum}|{block}".encode(), hashlib.sha256).digest()).shuffle(names)
            out += names
        return out[:count]

    assert sequence(SEED, "site=A|sex=F", 120, scheme=LEGACY_SCHEME) == older("site=A|sex=F", 120)
    assert sequence(SEED, "site=A|sex=F", 120) != older("site=A|sex=F", 120)
    with pytest.raises(ValueError, match="one fixed block size"):
        sequence(SEED, "", 1, sizes=(3, 6), scheme=LEGACY_SCHEME)


def test_a_seed_fingerprint_tells_seeds_apart_without_showing_them() -> None:
    seed = new_seed()
    assert seed_fingerprint(seed) == seed_fingerprint(bytes(seed))
    assert seed_fingerprint(seed) != seed_fingerprint(new_seed())
    assert seed.hex() not in seed_fingerprint(seed)


def test_the_worked_example_in_the_docs_matches_the_code() -> None:
    """docs/allocation.md quotes the first HMACs and the known vector: a reader checking an R
    version against it must read figures this code produces."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "allocation.md").read_text(encoding="utf-8")
    for message in ("size|site=A|0", "order|site=A|0|0", "order|site=A|0|1"):
        assert hmac.new(KNOWN_SEED, message.encode(), hashlib.sha256).hexdigest() in doc
    assert KNOWN_SEED.hex() in doc
    for place in islice(places(KNOWN_SEED, TWO_ARMS, (2, 4), "site=A"), 14):
        assert f"| {place.sequence} | {place.block} | {place.block_size} | {place.arm} |" in doc
