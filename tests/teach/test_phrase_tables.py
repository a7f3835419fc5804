"""One convention for what minigrad says in English and Chinese (`minigrad.teach.words`):
every sentence lives in a phrase table, language -> key -> text, with the same keys and the
same placeholders in every language, and no Chinese string lives anywhere else."""

from __future__ import annotations

import ast
import importlib
import re
import string
from pathlib import Path

import pytest

from minigrad.teach.words import LANGS, both, say

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("minigrad", "compare")
# Not yet in the convention, and why (each a folder or file, relative to the repository).
NOT_YET = {
    "minigrad/course/": "the coursework kit, rewritten for issue 31; its texts map key -> "
                        "language -> text today and move to the convention there",
}
# placeholders only English grammar needs (plural endings: "1 step", "2 steps")
ENGLISH_GRAMMAR = {"s", "ss", "ves", "es", "ies"}
CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def modules() -> list[tuple[str, Path]]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if any(rel.startswith(prefix) for prefix in NOT_YET):
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found.append((".".join(parts), path))
    return found


def tables(module: object) -> dict[str, dict]:
    """The module's phrase tables: its dicts whose keys are languages and values dicts."""
    return {name: value for name, value in vars(module).items()
            if isinstance(value, dict) and value and set(value) <= set(LANGS)
            and all(isinstance(v, dict) for v in value.values())}


def chinese_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant written with Chinese in it, docstrings left out
    (a regular expression's range written as escapes, "\\u4e00-\\u9fff", is no text)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings
            and CHINESE.search(ast.get_source_segment(source, node) or "")]


def fields(text: str) -> set[str]:
    """The placeholders a text fills, but for a plural's count (`{n:|s}`: English grammar)."""
    return {name for _, name, spec, _ in string.Formatter().parse(text)
            if name is not None and "|" not in (spec or "")}


MODULES = modules()
TABLED = [(name, path) for name, path in MODULES if chinese_strings(path)]


def test_the_tables_are_found() -> None:
    found = {name for name, _ in TABLED}
    assert {"minigrad.teach.phrases", "minigrad.teach.player_words", "minigrad.teach.expr_words",
            "minigrad.teach.tutorial_words", "minigrad.__main__", "minigrad.nn.grad_report",
            "compare.trace_ddp"} <= found, found


@pytest.mark.parametrize("name", [name for name, _ in TABLED])
def test_every_chinese_string_is_in_a_phrase_table(name: str) -> None:
    path = dict(TABLED)[name]
    module = importlib.import_module(name)
    found = tables(module)
    assert found, f"{path} has Chinese text but no phrase table (minigrad.teach.words)"
    said = [text for table in found.values() for words in table.values()
            for pair in words.items() for text in pair]
    outside = [(line, text) for line, text in chinese_strings(path)
               if not any(text in whole for whole in said)]
    assert not outside, (f"{path}: Chinese outside a phrase table (language -> key -> text), "
                         f"at lines {[line for line, _ in outside]}: {outside[0][1]!r}")


@pytest.mark.parametrize("name", [name for name, _ in TABLED])
def test_each_table_has_the_same_keys_and_placeholders_in_every_language(name: str) -> None:
    for table_name, table in tables(importlib.import_module(name)).items():
        where = f"{name}.{table_name}"
        for lang, words in table.items():
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in words.items()), \
                f"{where}[{lang!r}]: keys and texts are strings"
        if set(table) == {"zh"}:  # keyed by the English text itself (a rule's formula)
            assert all(CHINESE.search(v) or v == k for k, v in table["zh"].items()), where
            continue
        assert set(table) == set(LANGS), f"{where}: a table says everything in {LANGS}"
        en, zh = table["en"], table["zh"]
        assert set(en) == set(zh), (f"{where}: keys only in English {sorted(set(en) - set(zh))},"
                                    f" only in Chinese {sorted(set(zh) - set(en))}")
        differ = [(key, en[key], zh[key]) for key in en
                  if not fields(en[key]) - ENGLISH_GRAMMAR <= fields(zh[key]) <= fields(en[key])]
        assert not differ, f"{where}: the languages say different things: {differ}"


def test_say_and_both_fill_a_table_in_each_language() -> None:
    table = {"en": {"wrote": "Wrote {path} ({kind})"}, "zh": {"wrote": "已写入 {path}（{kind}）"}}
    kind = {"en": "a notebook", "zh": "笔记本"}
    assert say(table, "zh", "wrote", path="a.ipynb", kind=kind) == "已写入 a.ipynb（笔记本）"
    assert both(table, "wrote", path="a", kind=kind) == ("Wrote a (a notebook)",
                                                          "已写入 a（笔记本）")


def test_a_planted_chinese_string_outside_a_table_is_found(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('"""模块说明（文档字符串不算）。"""\nWORDS = {"en": {"a": "A"}, '
                       '"zh": {"a": "甲"}}\n\ndef f(lang):\n    return "乙" if lang == "zh" '
                       'else "B"\n', encoding="utf-8")
    assert chinese_strings(planted) == [(2, "甲"), (5, "乙")]
