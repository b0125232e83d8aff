"""Loaded by `st run` (SCHEMATHESIS_HOOKS) in test_api_contract_cli.py: what the schema's format
``phone`` means (a number valid for its country, which no pattern can say): fictional Toronto
lines that pass the project's validation."""

import schemathesis
from hypothesis import strategies as st

schemathesis.openapi.format("phone", st.sampled_from([f"+1416555{n:04d}" for n in range(150, 200)]))
