"""`python -m minigrad tutorial`, and what each lesson needs besides minigrad.

    python -m minigrad tutorial [N] [--lang zh] [--notebook PATH]

`REQUIREMENTS` says, by lesson number, what a lesson needs besides minigrad (numpy, graphviz's
Python package); `tutorial N` says in one line what to install when it is missing, instead of
failing halfway through the lesson, and tutorials/README.md says the same (a test checks).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
from dataclasses import dataclass
from typing import Any

from minigrad.teach.tutorial import find, lessons, load, run, write_notebook


# -- what a lesson needs ------------------------------------------------------------------------
@dataclass(frozen=True)
class Requirement:
    """Something a lesson needs besides minigrad (and numpy, graphviz's Python package)."""

    what: str  # as a learner would name it
    module: str | None  # a Python module to find, or
    program: str | None  # a program to find on PATH
    install: str  # how to install it
    what_zh: str = ""  # its name in Chinese, where it differs
    install_zh: str = ""  # how to install it, said in Chinese

    def name(self, lang: str = "en") -> str:
        return self.what_zh if lang == "zh" and self.what_zh else self.what

    def present(self) -> bool:
        if self.module is not None:
            return importlib.util.find_spec(self.module) is not None
        return shutil.which(self.program or "") is not None


DOT = Requirement("graphviz's `dot` program", None, "dot",
                  "sudo apt-get install graphviz (macOS: brew install graphviz)",
                  "graphviz 的 `dot` 程序",
                  "sudo apt-get install graphviz（macOS 上：brew install graphviz）")
HYPOTHESIS = Requirement("hypothesis", "hypothesis", None,
                         "pip install hypothesis (or: pip install -e '.[dev]')",
                         install_zh="pip install hypothesis（或者 pip install -e '.[dev]'）")
TORCH = Requirement("PyTorch", "torch", None,
                    "pip install torch==2.13.0 (or: pip install -e '.[compare]')",
                    install_zh="pip install torch==2.13.0（或者 pip install -e '.[compare]'）")
MATPLOTLIB = Requirement("matplotlib", "matplotlib", None,
                         "pip install matplotlib (or: pip install -e '.[plot]')",
                         install_zh="pip install matplotlib（或者 pip install -e '.[plot]'）")
# lesson number -> what it needs (tutorials/README.md says the same; a test checks it)
REQUIREMENTS: dict[int, tuple[Requirement, ...]] = {
    3: (DOT,), 10: (HYPOTHESIS,), 11: (TORCH,), 16: (TORCH,), 17: (TORCH, MATPLOTLIB),
    18: (TORCH,), 19: (HYPOTHESIS, TORCH), 25: (TORCH,)}


def missing(number: int) -> list[Requirement]:
    """What lesson `number` needs and is not installed here."""
    return [req for req in REQUIREMENTS.get(number, ()) if not req.present()]


# -- command lines -----------------------------------------------------------------------------
def add_tutorial(commands: Any) -> None:
    """The `python -m minigrad tutorial` subcommand."""
    p = commands.add_parser(
        "tutorial", help="run a lesson of the tutorial (or write it as a notebook)",
        description="Run lesson N's code blocks in order and print what they print.",
        epilog="example: python -m minigrad tutorial 2 --lang zh")
    p.add_argument("number", nargs="?", type=int, help="the lesson number (omit to list them)")
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="the lesson's language (zh: Chinese)")
    p.add_argument("--notebook", metavar="PATH",
                   help="write the lesson as a Jupyter notebook to PATH instead of running it")
    p.set_defaults(run=run_tutorial)


def run_tutorial(args: argparse.Namespace) -> int:
    zh = args.lang == "zh"
    if args.number is None:
        for path in lessons(args.lang):
            needs = ", ".join(req.name(args.lang)
                              for req in REQUIREMENTS.get(int(path.name[:2]), ()))
            note = (f"  （需要 {needs}）" if zh else f"  (needs {needs})") if needs else ""
            print(f"{int(path.name[:2]):3d}  {load(path).title}{note}")
        print(f"\n运行其中一课：python -m minigrad tutorial N --lang {args.lang}" if zh else
              f"\nRun one with: python -m minigrad tutorial N --lang {args.lang}")
        return 0
    try:
        lesson = load(find(args.number, args.lang))
    except FileNotFoundError:
        available = ", ".join(str(int(p.name[:2])) for p in lessons(args.lang))
        print(f"错误：没有第 {args.number} 课（已有的课：{available}）" if zh else
              f"error: there is no lesson {args.number} (lessons: {available})", file=sys.stderr)
        return 2
    if args.notebook:
        path = write_notebook(lesson, args.notebook)
        print(f"已写入 {path}（{lesson.title}）" if zh else f"Wrote {path} ({lesson.title})")
        return 0
    absent = missing(args.number)
    if absent:
        for req in absent:
            print(f"错误：第 {args.number} 课需要 {req.name('zh')}，但这里没有安装；"
                  f"安装方法：{req.install_zh}" if zh else
                  f"error: lesson {args.number} needs {req.what}, which is not installed here; "
                  f"install it with: {req.install}", file=sys.stderr)
        return 2
    print(f"# {lesson.title}\n# ({lesson.path})")
    run(lesson, echo=True)
    if any(c.error for c in lesson.cells):
        return 1
    changed = [k for k, c in enumerate(lesson.cells, 1) if not c.ok]
    if changed:
        blocks = ", ".join(map(str, changed))
        print(f"\n注意：第 {blocks} 段代码打印的内容和课文里的不一样" if zh else
              f"\nnote: block(s) {blocks} printed something else than the lesson shows",
              file=sys.stderr)
    return 0
