"""The arguments of ``promptpipe evaluate``, apart from the command: ``serve`` builds its parser with them and loads
the evaluation (its judge, checks, language identification and report templates, ~5 MB) only to run it."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_arguments"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--personas", type=Path, help="personas file (TOML; see personas.example.toml). "
                        "Without it only the hard cases run")
    parser.add_argument("--cases", type=Path, help="the team's own hard cases (TOML), run after the built-in ones")
    parser.add_argument("--no-builtin-cases", action="store_true", help="leave out the built-in hard cases")
    parser.add_argument("--only", default="", metavar="NAMES",
                        help="run only these hard cases and personas: comma-separated case groups (crisis, opt-out …), "
                             "case ids or persona names")
    parser.add_argument("--days", type=int, default=14, help="study days each persona lives through (default 14)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the personas' habits and silences and of the "
                        "models' sampling; with --repeats, repeat r (from 0) uses SEED+r (default 1)")
    parser.add_argument("--repeats", type=int, default=1, metavar="N",
                        help="run each persona and hard case N times, each with its own seed, and report how much "
                             "they vary; a check failed in any repeat fails (default 1)")
    parser.add_argument("--label", default="", help="this configuration's name in the report, e.g. 'prompts v2'")
    parser.add_argument("--out", type=Path, default=Path("evaluation"), help="directory for the report files "
                        "(default ./evaluation)")
    parser.add_argument("--thresholds", type=Path, help="thresholds file (TOML): exit 3 when one is not met "
                        "(default: the default gate, promptpipe/data/evaluation/gate.toml)")
    parser.add_argument("--compare-with", type=Path, metavar="DIR",
                        help="an earlier run's directory: the report sets it (A) beside this run (B)")
    parser.add_argument("--no-judge", action="store_true", help="only the deterministic checks, no judge model")
    parser.add_argument("--concurrency", type=int, help="conversations under way at once (default EVAL_CONCURRENCY)")
