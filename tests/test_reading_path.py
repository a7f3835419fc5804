"""The engine's reading path (minigrad/autograd/README.md and README.zh.md) stays true.

The page takes a learner through the algorithm in the order the data flows: a table of stops
(a file under `minigrad/` and the names to read in it, in order), then one section per stop
with what to skip on a first read. These tests check that
- every file the page names exists, and every name it asks to read or to skip is defined in
  its stop's file (a function, a class, a method or property, a class attribute);
- the lines it asks a learner to read stay at most 1,000 (the figure is printed);
- the English and the Chinese page ask for the same reading;
and that each check fails on a planted missing name.

How lines are counted: a function, method or property from its first decorator to its last
line (a property's setter too); a class named alone, its head (from the class line to its first
method); `__doc__`, the module's docstring; `*`, the whole file. A line read at two stops
counts once.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "minigrad"
PAGES = {"en": PACKAGE / "autograd/README.md", "zh": PACKAGE / "autograd/README.zh.md"}
MAX_LINES = 1000
ROW = re.compile(r"^\| (\d+) \| `([^`]+)` \| (.+) \|$")
HEADING = re.compile(r"^## (\d+)\. `([^`]+)`")
CODE = re.compile(r"`([^`]+)`")


def stops(text: str) -> list[tuple[int, str, list[str]]]:
    """The table's rows: (stop, file, the names to read)."""
    return [(int(m[1]), m[2], CODE.findall(m[3]))
            for m in map(ROW.match, text.splitlines()) if m]


def skipped(text: str) -> list[tuple[int, str, str]]:
    """(stop, file, name) for every name a stop's section lists: each list item that starts
    with code spans names them before its colon."""
    found, stop, path = [], None, None
    for line in text.splitlines():
        m = HEADING.match(line)
        if m:
            stop, path = int(m[1]), m[2]
        elif line.startswith("## "):
            stop = path = None
        elif stop is not None and line.startswith("- `"):
            head = re.split(r"[:：]", line[2:], maxsplit=1)[0]
            found += [(stop, path, name) for name in CODE.findall(head)]
    return found


def _defined(body: list, name: str) -> list[ast.AST]:
    """The statements of `body` that define `name` (defs, classes, assignments)."""
    out = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            out.append(node)
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            out.append(node)
        elif isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == name:
            out.append(node)
    return out


def _start(node: ast.AST) -> int:
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def lines_of(path: Path, name: str) -> set[int]:
    """The line numbers `name` asks a learner to read in `path` (see the module docstring);
    LookupError when `path` defines no such name."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    if name == "*":
        return set(range(1, len(text.splitlines()) + 1))
    if name == "__doc__":
        doc = tree.body[0] if tree.body else None
        if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)):
            raise LookupError(f"{path.name} has no docstring")
        return set(range(doc.lineno, doc.end_lineno + 1))
    body, found = tree.body, []
    for part in name.split("."):
        found = _defined(body, part)
        if not found:
            raise LookupError(f"{path.relative_to(ROOT)} defines no {name}")
        body = found[0].body if isinstance(found[0], ast.ClassDef) else []
    lines: set[int] = set()
    for node in found:
        end = node.end_lineno
        if isinstance(node, ast.ClassDef):  # its head: up to its first method
            first = next((_start(n) for n in node.body
                          if isinstance(n, ast.FunctionDef | ast.ClassDef)), end + 1)
            end = first - 1
        lines.update(range(_start(node), end + 1))
    return lines


def problems(text: str) -> list[str]:
    """What the page names that does not exist."""
    out = []
    table = stops(text)
    if not table:
        return ["the page has no table of stops"]
    for stop, path, names in table + [(s, p, [n]) for s, p, n in skipped(text)]:
        file = PACKAGE / path
        if not file.is_file():
            out.append(f"stop {stop}: no file minigrad/{path}")
            continue
        for name in names:
            if "/" in name or name.endswith(".py"):  # a file named in a skip list
                if not (PACKAGE / name).exists():
                    out.append(f"stop {stop}: no file minigrad/{name}")
                continue
            try:
                lines_of(file, name)
            except LookupError as exc:
                out.append(f"stop {stop}: {exc}")
    return out


def reading_lines(text: str) -> tuple[int, dict[str, int]]:
    """The lines the table asks a learner to read: the total, and per file."""
    per_file: dict[str, set[int]] = {}
    for _, path, names in stops(text):
        for name in names:
            per_file.setdefault(path, set()).update(lines_of(PACKAGE / path, name))
    counts = {path: len(lines) for path, lines in per_file.items()}
    return sum(counts.values()), counts


@pytest.mark.parametrize("lang", PAGES)
def test_every_file_and_name_on_the_reading_path_exists(lang: str) -> None:
    assert problems(PAGES[lang].read_text(encoding="utf-8")) == []


def test_the_reading_path_asks_for_at_most_1000_lines() -> None:
    total, per_file = reading_lines(PAGES["en"].read_text(encoding="utf-8"))
    print(f"\nthe reading path asks a learner to read {total} lines:")
    for path, n in per_file.items():
        print(f"  {n:4d}  minigrad/{path}")
    assert 500 <= total <= MAX_LINES


def test_both_languages_ask_for_the_same_reading() -> None:
    en, zh = (PAGES[lang].read_text(encoding="utf-8") for lang in ("en", "zh"))
    assert stops(zh) == stops(en)
    assert [(s, p, n) for s, p, n in skipped(zh)] == [(s, p, n) for s, p, n in skipped(en)]
    assert len(re.findall(r"[\u4e00-\u9fff]", zh)) > 1000  # written in Chinese


def test_the_page_is_linked_from_the_readme_and_contributing() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `minigrad/autograd/`"))
    assert "(minigrad/autograd/README.md)" in row
    assert "(minigrad/autograd/README.md)" in (ROOT / "CONTRIBUTING.md").read_text(
        encoding="utf-8")
    assert "(README.zh.md)" in PAGES["en"].read_text(encoding="utf-8")
    assert "(README.md)" in PAGES["zh"].read_text(encoding="utf-8")


# -- the checks catch what they are for ------------------------------------------------------
def test_a_planted_missing_name_is_named() -> None:
    text = PAGES["en"].read_text(encoding="utf-8")
    planted = text.replace("`Function.apply`", "`Function.run`", 1)
    planted = planted.replace("- `_view_of`:", "- `_view_of`, `_gone`:", 1)
    planted = planted.replace("`autograd/ready_queue.py`", "`autograd/queue.py`", 1)
    assert problems(planted) == [
        "stop 5: minigrad/autograd/function.py defines no Function.run",
        "stop 10: no file minigrad/autograd/queue.py",
        "stop 5: minigrad/autograd/function.py defines no _gone"]


def test_lines_are_counted_as_the_page_says(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text('"""doc\nstring"""\n\n\nclass A:\n    """head"""\n\n    x = 1\n\n'
                    "    @property\n    def p(self):\n        return 1\n\n    @p.setter\n"
                    "    def p(self, v):\n        pass\n\n\ndef f():\n    return 2\n")
    assert lines_of(path, "__doc__") == {1, 2}
    assert lines_of(path, "A") == {5, 6, 7, 8, 9}
    assert lines_of(path, "A.p") == {10, 11, 12, 14, 15, 16}
    assert lines_of(path, "A.x") == {8}
    assert lines_of(path, "f") == {19, 20}
    assert lines_of(path, "*") == set(range(1, 21))


def test_a_reading_path_over_the_budget_fails() -> None:
    text = PAGES["en"].read_text(encoding="utf-8")
    longer = text.replace("| 14 | `autograd/grad_mode.py` |", "| 15 | `ops/losses.py` | `*` |\n"
                          "| 16 | `ops/views.py` | `*` |\n| 14 | `autograd/grad_mode.py` |", 1)
    assert reading_lines(longer)[0] > MAX_LINES
