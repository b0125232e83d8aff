"""The benchmarks are not tests, but the parts they build the service from must still fit it: a
benchmark transport that no longer takes what the outbox hands it makes every send fail and
retry, and the benchmark measures nothing (bench_burst "gave up" after the send protocol grew)."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

import pytest

from promptpipe.transport.base import Transport

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("method", ["send_text", "send_poll"])
def test_the_benchmark_transport_takes_every_argument_the_protocol_gives(method: str) -> None:
    timed = _load("_common").TimedTransport
    wanted = set(inspect.signature(getattr(Transport, method)).parameters)
    taken = inspect.signature(getattr(timed, method)).parameters
    assert wanted <= set(taken) or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in taken.values())
