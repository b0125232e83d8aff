"""The closed sets (statuses, stages, kinds, roles, reasons …) are enums, and what a researcher or a
client reads about them, the codebook and the API's schema, lists exactly the enum's values."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest

from promptpipe.domain.access import Role
from promptpipe.domain.consent import ConsentKind, ConsentSource
from promptpipe.domain.messages import MessageKind, MessageStatus, VoteSource
from promptpipe.domain.outcomes import Outcome
from promptpipe.domain.safety import FlagSource, FlagStatus, Severity
from promptpipe.domain.states import Stage, Status, Vote
from promptpipe.domain.tone import ToneOutcome, ToneSource
from promptpipe.domain.transition_log import Actor
from promptpipe.export.codebook import FILES
from promptpipe.study.rules.protocol import Unavailable
from tests.web.conftest import Web

CODEBOOK: list[tuple[str, str, type[StrEnum]]] = [
    ("participants", "status", Status), ("messages", "kind", MessageKind), ("messages", "status", MessageStatus),
    ("messages", "vote_source", VoteSource), ("deliveries", "vote", Vote), ("deliveries", "outcome", Outcome),
    ("decisions", "unavailable_reason", Unavailable), ("transitions", "actor", Actor),
    ("tone_changes", "source", ToneSource), ("tone_changes", "outcome", ToneOutcome),
    ("consent", "event", ConsentKind), ("consent", "source", ConsentSource), ("flags", "source", FlagSource),
    ("flags", "severity", Severity), ("flags", "status", FlagStatus),
]


@pytest.mark.parametrize(("file", "column", "enum"), CODEBOOK, ids=lambda v: getattr(v, "__name__", v))
def test_the_codebook_lists_each_closed_set_from_its_enum(file: str, column: str, enum: type[StrEnum]) -> None:
    [doc] = [doc for doc in FILES if doc.name == file]
    entry = doc.entry(column)
    assert entry is not None
    listed = entry.values.split(";")[0].split(", ")
    assert listed == [member.value for member in enum]


SCHEMA: list[tuple[str, str, type[StrEnum]]] = [
    ("ParticipantSummary", "status", Status), ("ParticipantSummary", "stage", Stage),
    ("TranscriptEntry", "kind", MessageKind), ("TranscriptEntry", "status", MessageStatus),
    ("Delivery", "outcome", Outcome), ("TokenRequest", "role", Role),
    ("FlagOut", "severity", Severity),
]


async def test_the_api_schema_lists_each_closed_set_from_its_enum(web: Web) -> None:
    async with web.client("researcher") as client:
        schema = (await client.get("/openapi.json")).json()
    components = schema["components"]["schemas"]

    def values(model: str, field: str) -> list[Any]:
        prop = components[model]["properties"][field]
        ref = prop.get("$ref") or next((o["$ref"] for o in prop.get("anyOf", []) if "$ref" in o), None)
        return list(components[ref.rsplit("/", 1)[-1]]["enum"] if ref else prop["enum"])

    for model, field, enum in SCHEMA:
        assert values(model, field) == [member.value for member in enum], (model, field)
