"""One spelling per closed set: a value of one of our enums is written as its member.

Every enum class under ``promptpipe/`` is found by reading the source (a class statement with an
``Enum``, ``StrEnum`` or ``IntEnum`` base) and its members are read from the class itself (only
the modules that define one are imported). Then, in every module, two things fail with their file
and line:

* a module-level alias of a member (``ACTIVE = Status.ACTIVE``, ``A, B = E.A, E.B``) or of a whole
  enum (``ROLES = tuple(Role)``, ``Kind = MessageKind``, a tuple of all its members): write
  ``Status.ACTIVE`` and ``Role`` where they are meant. A named group of some members
  (``INTAKE_STAGES``) is a constant of its own and stays, built from the members;
* a comparison (``==``, ``!=``, ``in``/``not in`` a literal tuple, list or set) with a string
  literal that is the value of one of our ``StrEnum`` s: compare with the member (a ``StrEnum``
  equals its value, so a plain ``str`` read from the database or JSON compares the same).

A constant that merely has a member as its value but means a choice of its own goes on
:data:`KEPT_CONSTANTS`; a comparison about something else that happens to share a word (a key of
a file, a word of another system's protocol, a word in a URL) goes on :data:`ALLOWED`, each with
its reason. A closed set of our own that shares a word gets an enum instead."""

from __future__ import annotations

import ast
import functools
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import pytest

pytestmark = [pytest.mark.xdist_group("static"), pytest.mark.long]  # one worker parses the package once for all;
# together they take tens of seconds there, so they start first

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "promptpipe"

SKIPPED_DIRS = ("storage/migrations/versions",)
"""A migration is frozen history: it spells the values as they were when it was written, and must
not change when an enum does."""

KEPT_CONSTANTS: dict[tuple[str, str], str] = {
    ("domain/safety.py", "SCREEN_SEVERITY"): "a choice, not a spelling: the severity a phrase of the crisis list "
                                             "is taken as",
}
"""(module under promptpipe/, name) -> why this module-level name for a member is a constant of its own."""

_CLOUD_API = "the WhatsApp Cloud API's webhook vocabulary (a message's type, a message's status), not ours"
_URL_STEP = "a step of the dashboard's participant pages in the URL (the keys of lifecycle.STEPS)"
ALLOWED: dict[tuple[str, str], str] = {
    ("cli/serve.py", "args.command == 'study'"): "a subcommand of `promptpipe serve`'s own argument parser",
    ("domain/safety.py", "word == 'number'"): "the phrase list's placeholder word that stands for any number",
    ("evaluation/personas.py", "key != 'persona'"): "the personas file's table name (TOML)",
    ("evaluation/personas.py", "key == 'timezone'"): "a persona's field name in the personas file (TOML)",
    ("transport/_cloud_payloads.py", "kind == 'text'"): _CLOUD_API,
    ("transport/_cloud_payloads.py", "kind == 'reaction'"): _CLOUD_API,
    ("transport/_cloud_payloads.py", "kind == 'audio'"): _CLOUD_API,
    ("transport/_cloud_payloads.py", "status == 'failed'"): _CLOUD_API,
    ("web/api.py", "k not in ('text', 'kind')"): "names of TranscriptEntry's fields, filled apart",
    ("web/pages/actions.py", "action == 'message'"): "a dashboard action in the URL (the keys of actions.ACTIONS)",
    ("web/pages/flags.py", "back == 'flag'"): "which page a resolve form was posted from",
    ("web/pages/lifecycle.py", "step in ('withdraw', 'extend', 'number')"): _URL_STEP,
    ("web/pages/lifecycle.py", "step == 'extend'"): _URL_STEP,
}
"""(module under promptpipe/, the comparison as ``ast.unparse`` writes it) -> what it compares,
when it is not one of our closed sets."""

ENUM_BASES = {"Enum", "StrEnum", "IntEnum"}
COLLECTIONS = {"tuple", "frozenset", "set", "list"}


@dataclass(frozen=True)
class EnumClass:
    module: str
    name: str
    values: dict[str, object]
    """member name -> value"""
    is_str: bool


@functools.cache
def _modules() -> tuple[tuple[str, ast.Module], ...]:
    """Every module under promptpipe/ (its path there) with its syntax tree, parsed when a test first asks (not at
    collection: every worker collects every file)."""
    paths = (path for path in sorted(PACKAGE.rglob("*.py"))
             if not path.relative_to(PACKAGE).as_posix().startswith(tuple(skip + "/" for skip in SKIPPED_DIRS)))
    return tuple((path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
                 for path in paths)


def _module_name(relative: str) -> str:
    parts = ["promptpipe", *relative.removesuffix(".py").split("/")]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Name):
        return base.id
    return base.attr if isinstance(base, ast.Attribute) else None


@functools.cache
def _enums() -> dict[tuple[str, str], EnumClass]:
    """Every enum class defined at the top of a module under promptpipe/, by (module, class name)."""
    found: dict[tuple[str, str], EnumClass] = {}
    for relative, tree in _modules():
        module = _module_name(relative)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and {_base_name(base) for base in node.bases} & ENUM_BASES:
                cls = getattr(importlib.import_module(module), node.name)
                assert issubclass(cls, Enum), f"{relative}:{node.lineno}: {node.name} is not an enum"
                values = {member.name: member.value for member in cls}
                found[module, node.name] = EnumClass(module, node.name, values, issubclass(cls, str))
    return found


@functools.cache
def _enum_values() -> frozenset[object]:
    return frozenset(value for enum in _enums().values() if enum.is_str for value in enum.values.values())


def _enum_names(module: str, tree: ast.Module) -> dict[str, EnumClass]:
    """The names a module binds to one of our enum classes (defined there or imported)."""
    ours = {(enum.module, enum.name): enum for enum in _enums().values()}
    names: dict[str, EnumClass] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and (module, node.name) in ours:
            names[node.name] = ours[module, node.name]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if (node.module, alias.name) in ours:
                    names[alias.asname or alias.name] = ours[node.module, alias.name]
    return names


def _member_of(node: ast.expr, enums: dict[str, EnumClass]) -> EnumClass | None:
    """The enum ``node`` names a member of (``Status.ACTIVE``), if it does."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        enum = enums.get(node.value.id)
        if enum is not None and node.attr in enum.values:
            return enum
    return None


def _whole_enum(node: ast.expr, enums: dict[str, EnumClass]) -> EnumClass | None:
    """The enum ``node`` spells again as a whole: ``Role``, ``tuple(Role)``, or all its members."""
    if isinstance(node, ast.Name):
        return enums.get(node.id)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in COLLECTIONS
            and len(node.args) == 1 and not node.keywords):
        if isinstance(node.args[0], ast.Name):
            return enums.get(node.args[0].id)
        node = node.args[0]
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
        first = _member_of(node.elts[0], enums)
        if first is not None and all(_member_of(element, enums) is first for element in node.elts):
            named = {element.attr for element in node.elts if isinstance(element, ast.Attribute)}
            return first if named == set(first.values) else None
    return None


def _module_level(tree: ast.Module) -> Iterator[ast.stmt]:
    """The module's own statements, also those under a top-level ``if`` or ``try``."""
    pending = list(tree.body)
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, ast.If | ast.Try):
            handlers = [line for handler in statement.handlers for line in handler.body] \
                if isinstance(statement, ast.Try) else []
            finals = statement.finalbody if isinstance(statement, ast.Try) else []
            pending[:0] = [*statement.body, *handlers, *statement.orelse, *finals]
        else:
            yield statement


def _aliases(relative: str, tree: ast.Module) -> Iterator[str]:
    enums = _enum_names(_module_name(relative), tree)
    for statement in _module_level(tree):
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        for target in targets:
            pairs: list[tuple[ast.expr, ast.expr]] = [(target, value)]
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
                pairs = list(zip(target.elts, value.elts, strict=True))
            for name, bound in pairs:
                if not isinstance(name, ast.Name) or (relative, name.id) in KEPT_CONSTANTS:
                    continue
                whole = _whole_enum(bound, enums)
                if _member_of(bound, enums) is not None:
                    yield f"{relative}:{statement.lineno}: {name.id} = {ast.unparse(bound)}"
                elif whole is not None:
                    yield f"{relative}:{statement.lineno}: {name.id} = {ast.unparse(bound)} (all of {whole.name})"


def _ours(node: ast.expr) -> list[str]:
    """``node`` as a string literal that is one of our enum values (else nothing)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in _enum_values():
        return [node.value]
    return []


def _raw_comparisons(relative: str, tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        left, found = node.left, []
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.Eq | ast.NotEq):
                found += [*_ours(left), *_ours(right)]
            elif isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.Tuple | ast.List | ast.Set):
                found += [value for element in right.elts for value in _ours(element)]
            left = right
        source = ast.unparse(node)
        if found and (relative, source) not in ALLOWED:
            yield f"{relative}:{node.lineno}: {source}  ({', '.join(map(repr, sorted(set(found))))})"


def test_every_enum_is_found() -> None:
    """Reading the source misses no enum: every subclass of ``Enum`` from promptpipe/ that is
    loaded by now (the imports above and those of the other tests) is one of them."""
    assert len(_enums()) > 30

    def subclasses(cls: type) -> Iterator[type]:
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    loaded = {(cls.__module__, cls.__qualname__) for cls in subclasses(Enum)
              if cls.__module__.startswith("promptpipe.")}
    assert sorted(loaded - set(_enums())) == []


def test_no_module_level_alias_of_an_enum() -> None:
    found = [alias for relative, tree in _modules() for alias in _aliases(relative, tree)]
    assert found == [], "write the member (or the enum) itself:\n" + "\n".join(found)


def test_no_comparison_with_the_raw_value_of_an_enum() -> None:
    found = [hit for relative, tree in _modules() for hit in _raw_comparisons(relative, tree)]
    assert found == [], "compare with the member:\n" + "\n".join(found)


def test_every_exception_is_still_needed() -> None:
    """An entry of :data:`ALLOWED` or :data:`KEPT_CONSTANTS` whose code is gone comes off its list."""
    comparisons, names = set(), set()
    for relative, tree in _modules():
        comparisons |= {(relative, ast.unparse(node)) for node in ast.walk(tree) if isinstance(node, ast.Compare)}
        names |= {(relative, node.id) for statement in _module_level(tree) for node in ast.walk(statement)
                  if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    assert sorted(set(ALLOWED) - comparisons) == []
    assert sorted(set(KEPT_CONSTANTS) - names) == []


def test_the_checks_catch_what_they_are_for() -> None:
    """The two checks on a made-up module: each finds what it is for, and no more."""
    tree = ast.parse(
        "from promptpipe.domain.states import Stage, Status\n"
        "ACTIVE = Status.ACTIVE\n"
        "A, B = Status.PAUSED, 3\n"
        "ALL = tuple(Stage)\n"
        "EVERY = (Stage.INTAKE, Stage.FEEDBACK, Stage.INTAKE_SUSPENDED)\n"
        "SOME = (Stage.INTAKE, Stage.INTAKE_SUSPENDED)\n"
        "if x == 'active' or y in ('sent', 'whatever') or z != 'no value of ours':\n"
        "    pass\n"
        "ok = status == Status.ACTIVE and 'active' in words\n")
    assert [hit.split(": ", 1)[1] for hit in _aliases("made_up.py", tree)] == [
        "ACTIVE = Status.ACTIVE", "A = Status.PAUSED", "ALL = tuple(Stage) (all of Stage)",
        "EVERY = (Stage.INTAKE, Stage.FEEDBACK, Stage.INTAKE_SUSPENDED) (all of Stage)"]
    assert sorted(hit.split(": ", 1)[1] for hit in _raw_comparisons("made_up.py", tree)) == [
        "x == 'active'  ('active')", "y in ('sent', 'whatever')  ('sent')"]
