"""The JSON objects in a model's answer, however it wrapped them (bare, in a ``json`` fence, or with prose around)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["fenced", "json_objects"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def fenced(text: str) -> list[str]:
    return [str(found) for found in _FENCE.findall(text)]


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object found, fenced ones first, each at the first ``{`` that starts one."""
    decoder = json.JSONDecoder()
    for candidate in [*fenced(text), text]:
        for start in (index for index, char in enumerate(candidate) if char == "{"):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except ValueError:
                continue
            if isinstance(value, dict):
                yield value
