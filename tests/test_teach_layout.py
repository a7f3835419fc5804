"""minigrad/teach: its imports form a DAG (records at the bottom, trace on top), no file passes
400 lines, the core never imports it, and `minigrad.teach.trace` is the module."""

from __future__ import annotations

import ast
import types
from pathlib import Path

import minigrad
import minigrad.teach.trace

PACKAGE = Path(minigrad.__file__).resolve().parent
TEACH = PACKAGE / "teach"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module `path` imports, at the top or inside a function (`from a import b`: a, a.b)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_teach_imports_form_a_dag():
    files = {module_name(p): p for p in TEACH.rglob("*.py")}
    edges = {m: {n for n in imported(p) if n in files and n != m and n != "minigrad.teach"}
             for m, p in files.items()}
    done: set[str] = set()

    def visit(m: str, path: tuple[str, ...]) -> None:
        assert m not in path, "import circle: " + " -> ".join(path[path.index(m):] + (m,))
        if m not in done:
            for n in edges[m]:
                visit(n, path + (m,))
            done.add(m)

    for m in files:
        visit(m, ())
    assert "minigrad.teach.trace" not in {n for m in files for n in edges[m]}  # trace is on top


def test_teach_files_stay_below_400_lines():
    long = {p.name: n for p in TEACH.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


def test_the_core_never_imports_teach():
    users = {module_name(p) for p in PACKAGE.rglob("*.py")
             if TEACH not in p.parents and any(n.startswith("minigrad.teach")
                                               for n in imported(p))}
    assert users <= {"minigrad", "minigrad.__main__"}


def test_trace_is_a_module_and_minigrad_trace_the_function():
    assert isinstance(minigrad.teach.trace, types.ModuleType)
    assert minigrad.trace is minigrad.teach.trace.trace
    assert minigrad.Trace is minigrad.teach.trace.Trace
    assert minigrad.viz is minigrad.teach.viz
