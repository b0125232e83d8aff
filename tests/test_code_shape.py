"""The code's shape where a machine can tell: the environment is read in ``config/`` only; no
two modules import each other, directly or round a circle (function-local imports and those made
for type checking only count: they hide a circle, they do not remove it); no module, function or
parameter list grows past what a reader takes in at once."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

pytestmark = [pytest.mark.xdist_group("static"), pytest.mark.long]  # one worker parses the package once for all;
# together they take tens of seconds there, so they start first

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "promptpipe"


@functools.cache
def modules() -> dict[str, ast.Module]:
    """Parsed when a test first asks (not at collection: every worker collects every file)."""
    found = {}
    for path in sorted([*PACKAGE.rglob("*.py"), *(ROOT / "recovery").rglob("*.py")]):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return found


MODULE_LINES, FUNCTION_LINES, PARAMETERS = 400, 60, 10


def _imports(name: str, tree: ast.Module) -> set[str]:
    """The modules of ours that ``name`` imports, anywhere in it (``from package import module`` is
    an import of the module: the package's own ``__init__`` runs first for every module in it)."""
    is_package = (ROOT / name.replace(".", "/") / "__init__.py").exists()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            submodules = {f"{source}.{alias.name}" for alias in node.names} & modules().keys()
            found.update(submodules or {source})
    return {module for module in found if module in modules() and module != name}


def _cycles() -> list[list[str]]:
    graph = {name: _imports(name, tree) for name, tree in modules().items()}
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for name in graph:
        if name not in index:
            visit(name)
    return components


def test_no_module_imports_another_that_imports_it_back() -> None:
    assert _cycles() == []


def test_the_environment_is_read_in_config_only() -> None:
    readers = []
    for name, tree in modules().items():
        if not name.startswith("promptpipe.") or name.startswith("promptpipe.config"):
            continue
        for node in ast.walk(tree):
            text = ast.unparse(node) if isinstance(node, ast.Attribute | ast.Constant) else ""
            if text in {"os.environ", "os.getenv", "os.putenv", "os.environb"} or "/proc/self/environ" in text:
                readers.append(f"{name}:{node.lineno}")
    assert readers == []


def _our_private_names() -> set[str]:
    names: set[str] = set()
    for tree in modules().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    # the standard library's public names that start with one underscore
    return {name for name in names if name.startswith("_")} | {"_exit", "_fields", "_asdict", "_replace", "_make"}


def test_no_call_into_a_library_s_private_api() -> None:
    """``thing._name`` where no code of ours defines ``_name`` reaches into a library's insides
    (a subclass using what its base class keeps for subclasses, through ``self``, is allowed)."""
    ours, reaching = _our_private_names(), []
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and node.attr not in ours and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                reaching.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert reaching == []


def test_no_module_function_or_parameter_list_is_too_long() -> None:
    """In the package: at most 400 lines a module, 60 a function, fewer than 10 parameters (``self`` and ``cls``
    not counted; a frozen dataclass of options carries more)."""
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        if text.count("\n") > MODULE_LINES:
            too_long.append(f"{where}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            count = len([a for a in arguments if a.arg not in ("self", "cls")])
            if lines > FUNCTION_LINES:
                too_long.append(f"{where}:{node.lineno} {node.name}: {lines} lines")
            if count >= PARAMETERS:
                too_long.append(f"{where}:{node.lineno} {node.name}: {count} parameters")
    assert too_long == []
