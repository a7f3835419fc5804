"""`course new`: write an assignment, the teacher's copy and the student's.

    DIR/teacher/   homework/<op>.py with the solutions between ### BEGIN SOLUTION and
                   ### END SOLUTION, README.md, tests/, course.json
    DIR/student/   the same files with every solution region replaced by
                   `raise NotImplementedError(...)`: the copy to hand out (`release` makes
                   it again from an edited teacher's copy)

As in nbgrader and otter-grader, the solution lives in the source and the student version is
made from it by stripping (`strip_solutions`), so the two can never drift apart.
"""

from __future__ import annotations

import json
import secrets
import textwrap
from pathlib import Path

from minigrad.course import texts
from minigrad.course.catalog import select
from minigrad.course.entry import KIND_NOTES, POINTS, Op
from minigrad.course.manifest import (
    FORMAT,
    GRADING,
    MANIFEST,
    SPEED_FACTOR,
    TEACHER_ONLY,
    read_manifest,
)

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
PACKAGE = "homework"


def new_assignment(folder: str | Path, ops: str | list[str] | None = None,
                   lang: str = "en") -> tuple[Path, Path]:
    """Write the assignment under `folder`; return (teacher copy, student copy)."""
    if lang not in texts.LANGS:
        raise ValueError(f"--lang {lang}: the languages are {', '.join(texts.LANGS)}")
    chosen = select(ops)
    root = Path(folder)
    _refuse_to_overwrite(root)
    teacher, student = root / "teacher", root / "student"
    for rel, text in assignment_files(chosen, lang).items():
        _write(teacher / rel, text)
    release(teacher, student)
    return teacher, student


def release(teacher: str | Path, student: str | Path) -> Path:
    """Make the student's copy from the teacher's: every file, solutions stripped, without the
    hidden cases' seed and the teacher's grading/ folder. Run it again (into a new folder)
    after editing the teacher's copy."""
    teacher, student = Path(teacher), Path(student)
    manifest = read_manifest(teacher)
    lang = manifest["lang"]
    _refuse_to_overwrite(student)
    for path in sorted(p for p in teacher.rglob("*") if p.is_file()):
        rel = path.relative_to(teacher)
        if "__pycache__" in rel.parts or rel.parts[0] == GRADING:
            continue
        if rel.as_posix() == MANIFEST:
            public = {k: v for k, v in manifest.items() if k not in TEACHER_ONLY}
            _write(student / rel, json.dumps(public, indent=2, ensure_ascii=False) + "\n")
            continue
        text = path.read_text(encoding="utf-8")
        _write(student / rel, strip_solutions(text, rel.as_posix(),
                                              texts.word("your_code", lang)))
    return student


def _refuse_to_overwrite(folder: Path) -> None:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise FileExistsError(f"{folder} already exists and is not an empty folder: choose a "
                              "new one (the course commands never overwrite a copy)")


def assignment_files(ops: list[Op], lang: str) -> dict[str, str]:
    """Relative path -> text of every file of the teacher's copy."""
    files = {f"{PACKAGE}/__init__.py": texts.word("package_doc", lang) + "\n"}
    files.update({f"{PACKAGE}/{op.name}.py": op_source(op, lang) for op in ops})
    files["README.md"] = texts.readme(ops, lang)
    files["tests/test_homework.py"] = texts.TESTS
    files[MANIFEST] = json.dumps({
        "minigrad_course": FORMAT, "package": PACKAGE, "lang": lang,
        "ops": [op.name for op in ops], "points": POINTS, "speed_factor": SPEED_FACTOR,
        "hidden_seed": secrets.randbits(62)}, indent=2) + "\n"
    return files


def op_source(op: Op, lang: str) -> str:
    """The teacher's `homework/<op>.py`: the class, its docstrings and the solution regions."""
    notes = [KIND_NOTES[op.kind][lang]] + ([op.hint[lang]] if op.hint else [])
    wrapped = "\n\n".join("\n".join(texts.wrap(n, 92, "    ")) for n in notes)
    word = lambda key: texts.word(key, lang).format(cls=op.cls, name=op.name)  # noqa: E731
    return (f'"""{word("module_doc")}\n"""\n\n'
            "import numpy as np\n\nimport minigrad\n\n\n"
            f"class {op.cls}(minigrad.Function):\n"
            f'    r"""{op.what[lang]}\n\n        {op.maths_in(lang)}\n\n{wrapped}\n    """\n\n'
            "    @staticmethod\n"
            f"    def forward(ctx, {op.signature}):\n"
            f'        """{word("forward_doc")}"""\n'
            f"{_solution(op.forward)}\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            f'        """{word("backward_doc")}"""\n'
            f"{_solution(op.backward)}")


def _solution(body: str) -> str:
    inner = textwrap.indent(body.rstrip() + "\n", " " * 8)
    return f"        {BEGIN}\n{inner}        {END}\n"


def strip_solutions(text: str, where: str = "<source>", message: str = "your code here"
                    ) -> str:
    """`text` with each BEGIN/END SOLUTION region (markers included) replaced by
    `raise NotImplementedError(message)` at the marker's indentation."""
    out: list[str] = []
    begin: int | None = None
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        marker = line.strip()
        if marker == BEGIN:
            if begin is not None:
                raise ValueError(f"{where}:{number}: {BEGIN} inside the region opened at "
                                 f"line {begin} (regions do not nest)")
            begin = number
            indent = line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}raise NotImplementedError({message!r})\n")
        elif marker == END:
            if begin is None:
                raise ValueError(f"{where}:{number}: {END} without a {BEGIN} before it")
            begin = None
        elif begin is None:
            out.append(line)
    if begin is not None:
        raise ValueError(f"{where}:{begin}: the {BEGIN} opened here is never closed")
    return "".join(out)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
