"""A lesson as a Jupyter notebook (nbformat 4.5 JSON, written directly: no Jupyter package is
needed to write one).

The notebook opens with a code cell that checks what the lesson needs (`tutorial_needs`):
minigrad itself, then each requirement, without importing any of them; if one is missing it
stops with one line saying what to install, before any lesson code runs. Then the lesson:
prose as markdown cells, each python block as a code cell whose stored output is the lesson's
own output block (so the notebook reads right before it is run).

    python -m minigrad tutorial 3 --notebook lesson03.ipynb      # one lesson
    python -m minigrad tutorial --notebook lessons/ [--lang zh]  # every lesson, teachers.md too
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from minigrad.teach.tutorial_needs import MINIGRAD, needs, needs_text
from minigrad.teach.tutorial_words import TUTORIAL_WORDS

__all__ = ["check_source", "lesson_lang", "notebook", "write_notebook"]


def lesson_lang(lesson: Any) -> str:
    """"zh" for a lesson in tutorials/zh, else "en"."""
    return "zh" if lesson.path is not None and lesson.path.parent.name == "zh" else "en"


def check_source(lesson: Any, lang: str | None = None) -> str:
    """The code of the notebook's first cell: it checks what `lesson` needs, in plain Python."""
    lang = lang or lesson_lang(lesson)
    words = TUTORIAL_WORDS[lang]
    reqs = (MINIGRAD, *needs(lesson))
    rows = []
    for r in reqs:
        found = (f"importlib.util.find_spec({r.module!r})" if r.module is not None
                 else f"shutil.which({r.program!r})")
        rows.append(f"    ({r.name(lang)!r}, {found},\n     {r.install(lang)!r}),")
    name = lesson.title.split(" · ")[0]  # "Lesson 17", "第 17 课", "For teachers"
    failure = words["check_missing"].format(lesson=name, what="{what}", install="{how}")
    ok = words["check_ok"].format(lesson=name, needs=needs_text(reqs, lang))
    return "\n".join([
        words["check_comment"].format(title=lesson.title),
        "import importlib.util",
        "import shutil",
        "",
        "_missing = [(what, how) for what, found, how in [",
        *rows,
        "] if not found]",
        f"_said = {failure!r}",
        "if _missing:",
        f"    raise RuntimeError({words['check_sep']!r}.join(_said.format(what=what, how=how)",
        "                                   for what, how in _missing))",
        f"print({ok!r})",
    ])


def notebook(lesson: Any, lang: str | None = None) -> dict[str, Any]:
    """`lesson` (a `tutorial.Lesson`) as an nbformat 4.5 notebook: the check cell, then prose
    as markdown cells and each python block as a code cell with the lesson's output."""
    outputs = {id(c.output) for c in lesson.cells if c.output is not None}
    code_blocks = {id(c.code): c for c in lesson.cells}
    cells: list[dict[str, Any]] = [_code(check_source(lesson, lang), "", 1)]
    prose: list[str] = []

    def flush() -> None:
        text = "\n".join(prose).strip("\n")
        prose.clear()
        if text.strip():
            cells.append({"cell_type": "markdown", "id": f"cell-{len(cells) + 1}",
                          "metadata": {}, "source": _source(text)})

    for b in lesson.blocks:
        if id(b) in outputs:
            continue  # becomes the output of its code cell
        cell = code_blocks.get(id(b))
        if cell is None:
            prose.append("\n".join(lesson.lines[b.start:b.end]))
            continue
        flush()
        cells.append(_code(b.text, cell.output.text if cell.output is not None else "",
                           len(cells) + 1))
    flush()
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _code(source: str, output: str, number: int) -> dict[str, Any]:
    out = [{"name": "stdout", "output_type": "stream", "text": _source(output + "\n")}
           ] if output else []
    return {"cell_type": "code", "execution_count": None, "id": f"cell-{number}",
            "metadata": {}, "outputs": out, "source": _source(source)}


def _source(text: str) -> list[str]:
    """Jupyter's multi-line string: a list of lines, each but the last ending in a newline."""
    return text.splitlines(keepends=True)


def write_notebook(lesson: Any, path: str | os.PathLike, lang: str | None = None) -> Path:
    """Write `notebook(lesson)` to `path` (UTF-8 JSON); return the path."""
    path = Path(path)
    path.write_text(json.dumps(notebook(lesson, lang), indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    return path
