"""`python -m minigrad tutorial`: list the lessons, run one, or write them as notebooks.

    python -m minigrad tutorial                         # list the lessons (and what each needs)
    python -m minigrad tutorial 2 [--lang zh]           # run lesson 2, block by block
    python -m minigrad tutorial teachers                # the teacher's page, run the same way
    python -m minigrad tutorial 2 --notebook l02.ipynb  # lesson 2 as a Jupyter notebook
    python -m minigrad tutorial --notebook lessons/     # every lesson and teachers.md

The lessons are found in the tutorials folder (`tutorial.lessons`), and what each needs is read
from the lesson itself (`tutorial_needs`): a lesson whose requirement is missing says so in one
line instead of failing halfway through. The words are in `tutorial_words`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from minigrad.teach.tutorial import TEACHERS, find, lessons, load, pages, run
from minigrad.teach.tutorial_needs import missing, needs, needs_text
from minigrad.teach.tutorial_notebook import write_notebook
from minigrad.teach.tutorial_words import TUTORIAL_WORDS


def add_tutorial(commands: Any) -> None:
    """The `python -m minigrad tutorial` subcommand."""
    p = commands.add_parser(
        "tutorial", help="run a lesson of the tutorial (or write lessons as notebooks)",
        description="Run lesson N's code blocks in order and print what they print.",
        epilog="examples: python -m minigrad tutorial 2 --lang zh; "
               "python -m minigrad tutorial --notebook lessons/")
    p.add_argument("number", nargs="?", type=_lesson_name,
                   help=f"the lesson number, or {TEACHERS} (omit to list them, or with "
                        "--notebook to write them all)")
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="the lesson's language (zh: Chinese)")
    p.add_argument("--notebook", metavar="PATH",
                   help="write the lesson as a Jupyter notebook to PATH instead of running it "
                        "(without a lesson number: every lesson, into the folder PATH)")
    p.set_defaults(run=run_tutorial)


def _lesson_name(text: str) -> int | str:
    if text == TEACHERS:
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a lesson number: {text!r}") from None


def run_tutorial(args: argparse.Namespace) -> int:
    lang, words = args.lang, TUTORIAL_WORDS[args.lang]
    if args.number is None:
        return _write_all(args.notebook, lang) if args.notebook else _list(lang)
    try:
        lesson = load(find(args.number, lang))
    except FileNotFoundError:
        available = ", ".join(str(int(p.name[:2])) for p in lessons(lang))
        print(words["no_lesson"].format(number=args.number, available=available),
              file=sys.stderr)
        return 2
    if args.notebook:
        path = write_notebook(lesson, args.notebook)
        print(words["wrote"].format(path=path, title=lesson.title))
        return 0
    absent = missing(needs(lesson))
    for req in absent:
        print(words["missing"].format(number=args.number, what=req.name(lang),
                                      install=req.install(lang)), file=sys.stderr)
    if absent:
        return 2
    print(f"# {lesson.title}\n# ({lesson.path})")
    run(lesson, echo=True)
    if any(c.error for c in lesson.cells):
        return 1
    changed = [k for k, c in enumerate(lesson.cells, 1) if not c.ok]
    if changed:
        print(words["changed"].format(blocks=", ".join(map(str, changed))), file=sys.stderr)
    return 0


def _list(lang: str) -> int:
    words = TUTORIAL_WORDS[lang]
    for path in lessons(lang):
        lesson = load(path)
        reqs = needs(lesson)
        note = words["listed_needs"].format(needs=needs_text(reqs, lang)) if reqs else ""
        print(f"{int(path.name[:2]):3d}  {lesson.title}{note}")
    print(words["run_one"].format(lang=lang))
    return 0


def _write_all(folder: str, lang: str) -> int:
    """Every lesson of `lang`, and the teacher's page, as notebooks in `folder`."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = [write_notebook(load(path), out / f"{path.stem}.ipynb") for path in pages(lang)]
    print(TUTORIAL_WORDS[lang]["wrote_all"].format(n=len(written), folder=out))
    return 0
