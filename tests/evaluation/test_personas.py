"""The personas file and the seeded draws that make a persona act over the study days."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from promptpipe.errors import AdminError
from promptpipe.evaluation.personas import ADHERENCE_PATTERNS, TRAITS, Persona, answers, did_habit, load_personas

EXAMPLE = Path(__file__).resolve().parents[2] / "personas.example.toml"
GOOD = '''
[[persona]]
name = "Ana"
habit = "a walk"
preferred_time = "08:30"
anchor = "after breakfast"
motivation = "energy"
'''


def test_the_example_file_loads_and_covers_every_trait_and_pattern() -> None:
    personas = load_personas(EXAMPLE)
    assert len(personas) == 20
    assert set(TRAITS) <= {trait for persona in personas for trait in persona.traits}
    assert set(ADHERENCE_PATTERNS) == {persona.adherence for persona in personas}
    assert len({persona.language for persona in personas}) >= 4
    assert len({persona.timezone for persona in personas}) >= 4


def test_defaults_and_group(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(GOOD + 'traits = ["terse", "night owl"]\n', encoding="utf-8")
    (ana,) = load_personas(path)
    defaults = (ana.timezone, ana.language, ana.adherence, ana.adherence_rate, ana.answer_rate)
    assert defaults == ("America/Toronto", "English", "steady", 0.7, 0.9)
    assert ana.traits == ("terse", "night owl") and ana.group == "terse"
    assert replace(ana, traits=()).group == "persona"


@pytest.mark.parametrize(("text", "expected"), [
    (GOOD + 'colour = "red"\n', ["persona 'Ana' (#1)", "colour", "unknown field"]),
    (GOOD.replace('preferred_time = "08:30"', 'preferred_time = "8.30am"'), ["'Ana'", "preferred_time", "8.30am"]),
    (GOOD + 'timezone = "Mars/Olympus"\n', ["'Ana'", "timezone", "Mars/Olympus"]),
    (GOOD + "answer_rate = 1.5\n", ["'Ana'", "answer_rate", "0 to 1"]),
    (GOOD + "adherence_rate = true\n", ["adherence_rate"]),
    (GOOD + 'adherence = "sometimes"\n', ["adherence", "sometimes", "fading"]),
    (GOOD + 'traits = ["Terse!"]\n', ["traits", "lowercase"]),
    (GOOD + "language = 3\n", ["language", "text"]),
    (GOOD + GOOD, ["persona 'Ana' (#2)", "name", "already"]),
    (GOOD.replace('name = "Ana"\n', ""), ["persona #1", "name", "missing"]),
    ('title = "x"\n', ["no personas"]),
    ('[persona]\nname = "Ana"\n', ["[[persona]]"]),
    ("[[persona]\n", ["not valid TOML"]),
])
def test_bad_files_name_the_file_persona_and_field(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = tmp_path / "team.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(AdminError) as caught:
        load_personas(path)
    message = str(caught.value)
    assert str(path) in message
    for part in expected:
        assert part in message


def _persona(adherence: str, rate: float = 0.7) -> Persona:
    return Persona("P", "a walk", "08:00", "after breakfast", "energy", adherence=adherence, adherence_rate=rate)


def _days_done(persona: Persona, days: range, seeds: range) -> int:
    return sum(did_habit(persona, day, (day - 1) % 7, seed) for day in days for seed in seeds)


def test_did_habit_is_deterministic_and_depends_on_the_seed() -> None:
    persona = _persona("steady", 0.5)
    first = [did_habit(persona, day, day % 7, 7) for day in range(1, 30)]
    assert first == [did_habit(persona, day, day % 7, 7) for day in range(1, 30)]
    assert first != [did_habit(persona, day, day % 7, 8) for day in range(1, 30)]


def test_the_patterns_shape_the_days() -> None:
    seeds = range(200)
    assert _days_done(_persona("never", 1.0), range(1, 15), seeds) == 0
    fading = _persona("fading")
    assert _days_done(fading, range(8, 15), seeds) < 0.7 * _days_done(fading, range(1, 8), seeds)
    improving = _persona("improving")
    assert _days_done(improving, range(8, 15), seeds) > 1.3 * _days_done(improving, range(1, 8), seeds)
    steady = _persona("steady")
    assert 0.6 < _days_done(steady, range(1, 15), seeds) / (14 * 200) < 0.8
    weekends, weekdays = _persona("weekends", 1.0), _persona("weekdays", 1.0)
    assert all(did_habit(weekends, day, weekday, 1) == (weekday >= 5) for day in range(1, 15) for weekday in range(7))
    assert all(did_habit(weekdays, day, weekday, 1) == (weekday < 5) for day in range(1, 15) for weekday in range(7))


def test_erratic_swings_more_than_steady() -> None:
    def weekly_rates(persona: Persona) -> list[float]:
        return [_days_done(persona, range(day, day + 3), range(seed, seed + 1)) / 3
                for seed in range(100) for day in (1, 4, 7)]

    def spread(rates: list[float]) -> float:
        mean = sum(rates) / len(rates)
        return sum((rate - mean) ** 2 for rate in rates) / len(rates)

    assert spread(weekly_rates(_persona("erratic", 0.5))) > 1.5 * spread(weekly_rates(_persona("steady", 0.5)))


def test_answers_follows_the_answer_rate() -> None:
    quiet = replace(_persona("steady"), answer_rate=0.0)
    keen = replace(_persona("steady"), answer_rate=1.0)
    half = replace(_persona("steady"), answer_rate=0.5)
    assert not any(answers(quiet, day, index, 3) for day in range(1, 15) for index in range(5))
    assert all(answers(keen, day, index, 3) for day in range(1, 15) for index in range(5))
    draws = [answers(half, day, index, 3) for day in range(1, 41) for index in range(10)]
    assert draws == [answers(half, day, index, 3) for day in range(1, 41) for index in range(10)]
    assert 0.4 < sum(draws) / len(draws) < 0.6
