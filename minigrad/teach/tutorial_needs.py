"""What a lesson needs besides minigrad (numpy, graphviz's Python package), read from the
lesson itself.

Every lesson says it in its first lines, in an italic paragraph that also tells the reader
that its blocks share their variables and run in order:

    *Run the blocks in order, top to bottom: each one uses what the blocks before it made
    (`python -m minigrad tutorial 17` runs them all). Needs, besides minigrad: PyTorch,
    matplotlib.*

(in Chinese `……除 minigrad 外还需要：PyTorch、matplotlib。*`; with nothing else, "Needs,
besides minigrad: nothing." / "……还需要：无。"). The names are those of
`tutorial_words.NEEDS_WORDS`. So a new lesson
needs no entry anywhere else: `python -m minigrad tutorial N` says in one line what to
install, its notebook's first cell checks it, and the test of the tutorials index reads it.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from dataclasses import dataclass
from typing import Any

from minigrad.teach.tutorial_words import NEEDS_WORDS, TUTORIAL_WORDS

__all__ = ["REQUIREMENTS", "Requirement", "missing", "needs", "needs_text"]


@dataclass(frozen=True)
class Requirement:
    """Something a lesson may need: a Python module to find, or a program on PATH."""

    key: str  # its entry in NEEDS_WORDS ("torch": "PyTorch", "torch_install": ...)
    module: str | None = None
    program: str | None = None

    def name(self, lang: str = "en") -> str:
        return NEEDS_WORDS[lang][self.key]

    def install(self, lang: str = "en") -> str:
        return NEEDS_WORDS[lang][self.key + "_install"]

    def present(self) -> bool:
        if self.module is not None:
            return importlib.util.find_spec(self.module) is not None
        return shutil.which(self.program or "") is not None


REQUIREMENTS: dict[str, Requirement] = {r.key: r for r in (
    Requirement("dot", program="dot"), Requirement("hypothesis", module="hypothesis"),
    Requirement("torch", module="torch"), Requirement("matplotlib", module="matplotlib"))}
MINIGRAD = Requirement("minigrad", module="minigrad")  # (a notebook's kernel may lack it)


def needs(lesson: Any) -> tuple[Requirement, ...]:
    """What `lesson` (a `tutorial.Lesson`) says it needs, in its first lines (see above)."""
    text = "\n".join(lesson.lines)
    head = " ".join(text[:text.find("\n## ") if "\n## " in text else len(text)].split())
    for lang, words in TUTORIAL_WORDS.items():
        found = re.search(re.escape(words["needs"]) + r"([^*]+?)" + re.escape(words["needs_end"])
                          + r"\*", head)
        if found is None:
            continue
        names = found.group(1).split(words["needs_sep"])
        if names == [words["needs_nothing"]]:
            return ()
        by_name = {r.name(lang): r for r in REQUIREMENTS.values()}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise ValueError(f"{lesson.path}: the lesson needs {unknown}, which minigrad does "
                             f"not know; say it in these words: {sorted(by_name)}")
        return tuple(by_name[n] for n in names)
    raise ValueError(f"{lesson.path}: its first lines do not say what it needs, as in "
                     f"*... {TUTORIAL_WORDS['en']['needs']}PyTorch, matplotlib.* (or: "
                     f"{TUTORIAL_WORDS['en']['needs_nothing']}.*)")


def needs_text(reqs: tuple[Requirement, ...], lang: str = "en") -> str:
    """`PyTorch, matplotlib` (`PyTorch、matplotlib`), or `nothing`, as a lesson says it."""
    words = TUTORIAL_WORDS[lang]
    return words["needs_sep"].join(r.name(lang) for r in reqs) or words["needs_nothing"]


def missing(reqs: tuple[Requirement, ...]) -> list[Requirement]:
    """Those of `reqs` that are not installed here."""
    return [r for r in reqs if not r.present()]
