"""The export takes phone numbers out of free text in whatever way people type them, their own
and anyone else's, and leaves dates, times, counts and ids alone."""

from __future__ import annotations

import pytest

from promptpipe.export.pseudonyms import PHONE_MARK, People

ANA = "+14165550106"
PEOPLE = People([("p-ana", "America/Toronto", ANA, "Ana Lindqvist"),
                 ("p-ravi", "Asia/Kolkata", "+14165550142", "Ravi")])

PHONES = [
    "+14165550106", "+1 416 555 0106", "1-416-555-0106", "(416) 555-0106", "416.555.0106", "416 - 555 - 0106",
    "416/555/0106", "416–555–0106", "416—555—0106", "416 – 555 – 0106",
    "４１６ ５５５ ０１０６", "４１６５５５０１０６",
    "+1\u00a0416\u00a0555\u00a00106", "416‑555‑0106", "555-0106", "+14165550142", "(416) 555-0142", "416/555/0142",
    "+44 20 7946 0958", "+1 (416) 555-0199",
]
NOT_PHONES = [
    "2026-11-24", "on 24/11/2026 at 08:00", "12:30 to 13:45", "I walked 10000 steps", "3 of 10 days",
    "1,234,567 steps", "id 12345", "p_0123456789abcdef", "version 1.2.3", "2026/11/24", "20 minutes, 5 km",
]


@pytest.mark.parametrize("phone", PHONES)
def test_a_phone_number_in_any_spelling_is_taken_out(phone: str) -> None:
    scrubbed = PEOPLE.scrub("p-ana", f"call me on {phone} tonight")
    assert scrubbed == f"call me on {PHONE_MARK} tonight"


@pytest.mark.parametrize("text", NOT_PHONES)
def test_dates_times_counts_and_ids_stay(text: str) -> None:
    assert PEOPLE.scrub("p-ana", text) == text
