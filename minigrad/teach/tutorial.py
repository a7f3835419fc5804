"""Run a Markdown lesson: its ```python blocks in order, in one namespace, each checked against
the ```text block right after it (what the block printed when the lesson was written).

    python -m minigrad.teach.tutorial tutorials/en/01-first-backward.md           # check
    python -m minigrad.teach.tutorial --update tutorials/en/01-first-backward.md  # rewrite outputs
    python -m minigrad.teach.tutorial --torch tutorials/en/01-first-backward.md   # on PyTorch
    python -m minigrad.teach.tutorial --notebook lesson01.ipynb tutorials/en/01-first-backward.md
    python -m minigrad tutorial 1 [--lang zh] [--notebook lesson01.ipynb]

Works for any Markdown file (README.md too). A ```python block runs; ```python no-run shows
code without running it; other fences are prose.

Lessons teach PyTorch too, so they are also checked on PyTorch (`torch_version`, `run` it,
then `torch_failures`): every python block is run with `minigrad` renamed `torch` and must
print what the lesson shows, except a block fenced ```python minigrad-only (it uses minigrad's
own tools, or shows where minigrad differs: tutorials/differences.md says where). A block may
name masks (```python torch-mask=random): parts of the output that differ by design, blanked
on both sides before comparing; each mask is in `tutorial_torch.MASKS` and listed in the
differences page. `python -m minigrad tutorial` is `tutorial_cli`; what a lesson needs is read
from the lesson by `tutorial_needs`.

Only stdout is captured: warnings and anomaly-mode tracebacks go to stderr, so they never make
a lesson's output unstable. The code is compiled under the Markdown file's own name and line
numbers, so a traceback points at the lesson's line (and a trace's source lines name it:
`02-reading-the-graph.md:250: ...`). Notebooks are written by `tutorial_notebook`.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import linecache
import os
import re
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minigrad.teach.tutorial_notebook import write_notebook
from minigrad.teach.tutorial_torch import torch_failures, torch_version

TUTORIALS = Path(__file__).resolve().parents[2] / "tutorials"
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$")
MINIGRAD_ONLY = "minigrad-only"


@dataclass
class Block:
    """A fenced block (`lang` "python", "text", ...) or a run of prose (`lang` "")."""

    lang: str
    text: str
    start: int  # index of its first line in the file (the opening fence for a fence)
    end: int  # index just after its last line (after the closing fence)
    info: str = ""  # what follows the language on the opening fence ("no-run")

    @property
    def minigrad_only(self) -> bool:
        """Fenced ```python minigrad-only: not run on PyTorch."""
        return MINIGRAD_ONLY in self.info.split()

    @property
    def masks(self) -> list[str]:
        """The masks named on the fence (```python torch-mask=random,address)."""
        return [name for word in self.info.split() if word.startswith("torch-mask=")
                for name in word.split("=", 1)[1].split(",") if name]


@dataclass
class Cell:
    """A python block to run, with the text block after it (its recorded output), if any."""

    code: Block
    output: Block | None = None
    printed: str = ""  # filled in by `run`
    error: str | None = None  # the traceback, if the block raised

    @property
    def expected(self) -> str:
        return self.output.text if self.output is not None else ""

    @property
    def ok(self) -> bool:
        return self.error is None and normalise(self.printed) == normalise(self.expected)


@dataclass
class Lesson:
    """A parsed Markdown file: its blocks in order and the python cells among them."""

    path: Path | None
    lines: list[str]
    blocks: list[Block]
    cells: list[Cell] = field(default_factory=list)
    # the name its code is compiled under, when it is not the file's own (its lines are then
    # what tracebacks and traced source lines show): the PyTorch version of a lesson
    filename: str | None = None

    @property
    def title(self) -> str:
        for line in self.lines:
            if line.startswith("# "):
                return line[2:].strip()
        return self.path.stem if self.path else ""


def parse(text: str, path: str | os.PathLike | None = None) -> Lesson:
    """Split Markdown into prose and fenced blocks; pair each python block with its output."""
    lines = text.splitlines()
    blocks: list[Block] = []
    prose_start, i = 0, 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang, info = m.groups()
        close = next((j for j in range(i + 1, len(lines))
                      if lines[j].startswith(fence[0] * len(fence))
                      and not lines[j].strip(fence[0]).strip()), None)
        if close is None:
            raise ValueError(f"{path or 'markdown'}:{i + 1}: the ``` fence opened here is "
                             "never closed")
        if prose_start < i:
            blocks.append(Block("", "\n".join(lines[prose_start:i]), prose_start, i))
        blocks.append(Block(lang.lower(), "\n".join(lines[i + 1:close]), i, close + 1, info))
        i = prose_start = close + 1
    if prose_start < len(lines):
        blocks.append(Block("", "\n".join(lines[prose_start:]), prose_start, len(lines)))
    lesson = Lesson(Path(path) if path else None, lines, blocks)
    for k, b in enumerate(blocks):
        if b.lang != "python" or "no-run" in b.info:
            continue
        nxt = blocks[k + 1] if k + 1 < len(blocks) else None
        if nxt is not None and nxt.lang == "" and not nxt.text.strip() and k + 2 < len(blocks):
            nxt = blocks[k + 2]  # only blank lines between the code and its output
        lesson.cells.append(Cell(b, nxt if nxt is not None and nxt.lang == "text" else None))
    return lesson


def load(path: str | os.PathLike) -> Lesson:
    path = Path(path).resolve()
    return parse(path.read_text(encoding="utf-8"), path)


def normalise(text: str) -> str:
    """Outputs compare without trailing spaces and trailing blank lines (Markdown loses them)."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


def run(lesson: Lesson, workdir: str | os.PathLike | None = None, stop_on_error: bool = True,
        echo: bool = False) -> Lesson:
    """Run every cell in order in one fresh namespace, filling in `printed` and `error`.

    `workdir`: the directory the code runs in (files a lesson writes land there). `echo`:
    also print each block's code and output as it runs (the `tutorial` command).
    """
    filename = lesson.filename or (str(lesson.path) if lesson.path else "<markdown>")
    if lesson.path is None or lesson.filename:  # so tracebacks and source lines show the code
        linecache.cache[filename] = (0, None, [line + "\n" for line in lesson.lines], filename)
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": filename}
    previous = os.getcwd()
    try:
        if workdir is not None:
            os.chdir(workdir)
        for k, cell in enumerate(lesson.cells, 1):
            if echo:
                _echo_code(k, cell)
            source = "\n" * (cell.code.start + 1) + cell.code.text + "\n"  # lines match file
            buffer = io.StringIO()
            try:
                code = compile(source, filename, "exec")
                with contextlib.redirect_stdout(buffer):
                    exec(code, namespace)  # noqa: S102  (running the lesson is the point)
            except Exception:  # noqa: BLE001  (reported as the cell's error)
                cell.error = _traceback_of_lesson(filename)
            cell.printed = buffer.getvalue()
            if echo:
                sys.stdout.write(cell.printed)
                if cell.error:
                    sys.stdout.write(cell.error)
            if cell.error and stop_on_error:
                break
    finally:
        os.chdir(previous)
    return lesson


def _traceback_of_lesson(filename: str) -> str:
    """The traceback from the lesson's own frame down (the runner's frames left out)."""
    etype, value, tb = sys.exc_info()
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return "".join(traceback.format_exception(etype, value, tb))


def _echo_code(k: int, cell: Cell) -> None:
    line = cell.code.start + 2
    print(f"\n# --- [{k}] line {line} " + "-" * max(0, 60 - len(str(k)) - len(str(line))))
    print("\n".join("    " + row if row else "" for row in cell.code.text.splitlines()))
    print("# ->")


def failures(lesson: Lesson) -> list[str]:
    """One message per cell that raised or printed something else than its output block."""
    where = lesson.path or "markdown"
    messages = []
    for k, cell in enumerate(lesson.cells, 1):
        line = cell.code.start + 1
        if cell.error is not None:
            messages.append(f"{where}:{line}: code block {k} raised:\n{cell.error}")
            break
        if not cell.ok:
            diff = difflib.unified_diff(normalise(cell.expected).splitlines(),
                                        normalise(cell.printed).splitlines(),
                                        "lesson's text block", "printed now", lineterm="")
            what = "has no ```text block after it" if cell.output is None else "printed"
            messages.append(f"{where}:{line}: code block {k} {what} something else than "
                            "the lesson shows:\n" + "\n".join(diff))
    return messages


def updated(lesson: Lesson) -> str:
    """The Markdown with every output block replaced by what its code printed (run first).

    A block that printed nothing loses its output block; one that printed something and had
    none gets one, right after the code.
    """
    lines = list(lesson.lines)
    for cell in reversed(lesson.cells):
        if cell.error is not None:
            raise RuntimeError(f"{lesson.path}:{cell.code.start + 1}: cannot update, this "
                               f"code block raised:\n{cell.error}")
        text = normalise(cell.printed)
        new = ["```text", *text.splitlines(), "```"] if text else []
        if cell.output is not None:
            lines[cell.output.start:cell.output.end] = new
        elif new:
            lines[cell.code.end:cell.code.end] = ["", *new]
    return "\n".join(lines) + "\n"


# -- finding lessons ---------------------------------------------------------------------------
TEACHERS = "teachers"  # tutorials/LANG/teachers.md: run and exported like a lesson


def lessons(lang: str = "en", root: str | os.PathLike | None = None) -> list[Path]:
    """The lesson files of one language, in order (`NN-name.md`), found in the folder."""
    folder = Path(root or TUTORIALS) / lang
    return sorted(folder.glob("[0-9][0-9]-*.md"))


def pages(lang: str = "en", root: str | os.PathLike | None = None) -> list[Path]:
    """Every page that runs like a lesson: the lessons in order, then the teacher's page."""
    teachers = Path(root or TUTORIALS) / lang / f"{TEACHERS}.md"
    return lessons(lang, root) + ([teachers] if teachers.exists() else [])


def find(number: int | str, lang: str = "en", root: str | os.PathLike | None = None) -> Path:
    """Lesson `number` (or "teachers", the teacher's page) in language `lang`."""
    for path in pages(lang, root):
        if path.stem == number or (path.name[:2].isdigit() and int(path.name[:2]) == number):
            return path
    available = ", ".join(str(int(p.name[:2])) for p in lessons(lang, root)) or "none"
    raise FileNotFoundError(f"there is no lesson {number} in {Path(root or TUTORIALS) / lang} "
                            f"(lessons: {available}, {TEACHERS})")


# -- the checker's command line ---------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minigrad.teach.tutorial",
        description="Check (or --update) the outputs shown in Markdown lessons.")
    parser.add_argument("files", nargs="+", help="Markdown files")
    parser.add_argument("--update", action="store_true",
                        help="rewrite each ```text block with what its code prints now")
    parser.add_argument("--notebook", metavar="PATH",
                        help="write the (single) file as a Jupyter notebook to PATH")
    parser.add_argument("--torch", action="store_true",
                        help="check the blocks not fenced minigrad-only on PyTorch instead")
    args = parser.parse_args(argv)
    if args.notebook:
        if len(args.files) != 1:
            parser.error("--notebook takes exactly one Markdown file")
        print(f"Wrote {write_notebook(load(args.files[0]), args.notebook)}")
        return 0
    status = 0
    for name in args.files:
        if args.torch:
            with tempfile.TemporaryDirectory() as work:  # (what the lesson writes goes there)
                ran = run(torch_version(load(name)), workdir=work)
            problems = torch_failures(ran)
            for message in problems:
                print(message, file=sys.stderr)
            print(f"{'FAIL' if problems else 'ok'}  {name} on PyTorch ({len(ran.cells)} code "
                  "blocks)")
            status = status or (1 if problems else 0)
            continue
        with tempfile.TemporaryDirectory() as work:
            lesson = run(load(name), workdir=work)
        if args.update:
            try:
                text = updated(lesson)
            except RuntimeError as exc:
                print(exc, file=sys.stderr)
                status = 1
                continue
            if text != lesson.path.read_text(encoding="utf-8"):
                lesson.path.write_text(text, encoding="utf-8")
                print(f"updated {name}")
            else:
                print(f"unchanged {name}")
            continue
        problems = failures(lesson)
        for message in problems:
            print(message, file=sys.stderr)
        print(f"{'FAIL' if problems else 'ok'}  {name} ({len(lesson.cells)} code blocks)")
        status = status or (1 if problems else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
