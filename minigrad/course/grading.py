"""`course grade`: grade one submission, op by op; the scores and the feedback.

    grade(SUBMISSION, teacher=TEACHER)   the teacher's grade: ops, points and hidden cases
                                         from TEACHER's course.json; from SUBMISSION only the
                                         package's .py files are read
    grade(MY_COPY)                       a student's own run: the visible checks only

The checks run here, in the grader's process; the submission runs only in sandboxed children
(sandbox.py) that answer requests. A batch (`course grade-all`) makes the `Grader` once and
grades every submission with it: the sandbox's start-up and the expected answers are paid once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minigrad.course import checks, custom, render, solutions
from minigrad.course.catalog import select
from minigrad.course.entry import Op
from minigrad.course.manifest import Course, load_course
from minigrad.course.reference import Prepared, prepare
from minigrad.course.runner import BuiltinRunner, ChildRunner
from minigrad.course.sandbox import Limits, Session, remove_copy

STATUSES = ("passed", "failed", "not_judged", "hidden", "skipped")


@dataclass
class OpGrade:
    """One op's result: a status per check, each check's points."""

    op: Op
    checks: list[dict[str, Any]]
    points: dict[str, int]
    printed: str = ""
    printed_dropped: int = 0
    seconds: float = 0.0

    @property
    def score(self) -> int:
        return sum(self.points[c["check"]] for c in self.checks if c["status"] == "passed")

    @property
    def max_score(self) -> int:
        return sum(self.points[c["check"]] for c in self.checks
                   if c["status"] not in ("hidden", "skipped"))

    @property
    def passed(self) -> bool:
        return all(c["status"] in ("passed", "hidden", "skipped") for c in self.checks)

    def failed_checks(self) -> list[str]:
        return [c["check"] for c in self.checks if c["status"] in ("failed", "not_judged")]

    def lines(self, lang: str, reveal: bool = True) -> list[str]:
        """The feedback for this op (`reveal`: show hidden cases' values too)."""
        return render.op_lines(self, lang, reveal)


@dataclass
class GradeReport:
    """Every op's grade; `text()` is the feedback (reports.py makes the files from it)."""

    folder: Path
    ops: list[OpGrade]
    lang: str
    seconds: float
    teacher: bool
    package: str = "homework"
    notes: list[str] = field(default_factory=list)
    isolation: dict[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> int:
        return sum(g.score for g in self.ops)

    @property
    def max_score(self) -> int:
        return sum(g.max_score for g in self.ops)

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.ops)

    def text(self, lang: str | None = None, timing: bool = False, reveal: bool = True) -> str:
        return render.report_text(self, lang or self.lang, timing, reveal)


class Grader:
    """Grades submissions of one course: a sandbox session and the expected answers, made
    once. `teacher`: the teacher's copy (None: a student's own copy, visible checks only)."""

    def __init__(self, course: Course, ops: list[str] | None = None,
                 limits: Limits | None = None, slot: int = 0,
                 prepared: dict[str, Prepared] | None = None) -> None:
        names = [o.name for o in course.ops]
        wanted = names if ops is None else [op.name if isinstance(op, Op) else op
                                            for op in _wanted(ops, course)]
        missing = [n for n in wanted if n not in names]
        if missing:
            raise ValueError(f"{', '.join(missing)}: not in this assignment (it has "
                             f"{', '.join(names)})")
        limits = limits or Limits()
        self.course, self.limits = course, limits
        self.ops = [o for o in course.ops if o.name in wanted]
        self.session = Session(limits, slot)
        self.solutions = {op.name: solutions.load(course, op) for op in self.ops}
        self.prepared = prepared if prepared is not None else self._prepare()
        self.checks = custom.load_checks(course)

    def _prepare(self) -> dict[str, Prepared]:
        prepared: dict[str, Prepared] = {}
        for op in self.ops:
            reference = self.reference(op)
            if reference is not None:  # (else a lecturer's op in a student's copy)
                prepared[op.name] = prepare(op, self.course.secret, reference,
                                            self.timer(op))
        return prepared

    def reference(self, op: Op) -> BuiltinRunner | None:
        """What gives the right answers for `op`, in this process: minigrad's own op, or for
        a lecturer's op the teacher's solution."""
        solution = self.solutions.get(op.name)
        if op.reference is not None:
            return BuiltinRunner(op.reference, op.inputs)
        return BuiltinRunner(solution.apply, op.inputs) if solution is not None else None

    def timer(self, op: Op) -> Any:
        """Seconds for `repeat` vjps of a case by `op`'s solution (None: no solution here)."""
        solution = self.solutions.get(op.name)
        if solution is None:
            return None
        return lambda case, repeat: solutions.seconds(solution, case, repeat)

    def grade(self, submission: str | Path, lang: str | None = None) -> GradeReport:
        """Grade the submission in `submission` (its package folder, or loose files)."""
        started = time.monotonic()
        course = self.course
        folder = Path(submission)
        package, notes = locate_package(folder, course.package, [o.name for o in self.ops])
        grades = []
        copy = self.session.copy_package(package, course.package) if package else None
        try:
            for op in self.ops:
                grades.append(self._grade_op(op, copy, notes))
        finally:
            if copy is not None:
                remove_copy(copy)
        return GradeReport(folder, grades, lang or course.lang, time.monotonic() - started,
                           course.teacher, course.package, notes, self.session.isolation())

    def _grade_op(self, op: Op, copy: Path | None, notes: list[str]) -> OpGrade:
        course, started = self.course, time.monotonic()
        points = dict(course.points[op.name])
        extra = [c for c in course.custom_checks if c.op == op.name]
        points.update({c.name: c.points for c in extra})
        prepared = self.prepared.get(op.name)
        if prepared is None:
            results = [{"check": c, "status": "hidden"} for c in op.checks]
            return OpGrade(op, results + custom.not_run(extra), points)
        if copy is None:
            files = ", ".join(f"{o.name}.py" for o in self.ops)
            results = checks.everything_failed(op, "no_package", {"package": course.package,
                                                                  "files": files})
            return OpGrade(op, results + custom.not_run(extra, "no_package"), points)
        runner = ChildRunner(self.session, copy, course.package, op.name, op.cls, op.inputs,
                             self.limits.timeout)
        reference = self.reference(op)
        try:
            results = checks.run_checks(prepared, runner, course.teacher,
                                        course.speed_factor, reference)
            results += custom.run(extra, self.checks, results, runner, reference)
        finally:
            runner.close()
        return OpGrade(op, results, points, runner.printed, runner.dropped,
                       time.monotonic() - started)

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _wanted(ops: Any, course: Course) -> list[Any]:
    if isinstance(ops, str) and any(n.strip() in course.custom_ops for n in ops.split(",")):
        return [n.strip() for n in ops.split(",") if n.strip()]
    if isinstance(ops, list) and any(n in course.custom_ops for n in ops):
        return list(ops)
    return select(ops)


def locate_package(folder: Path, package: str, ops: list[str]) -> tuple[Path | None,
                                                                        list[str]]:
    """Where the submission's op files are: `folder/package`, or the files uploaded loose
    (no package folder), or one folder down (an upload of the whole copy). A link is never
    followed (it could point at the teacher's solutions)."""
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder")
    real = lambda p: p.is_dir() and not p.is_symlink()  # noqa: E731
    if real(folder / package):
        return folder / package, []
    if any((folder / f"{op}.py").is_file() for op in ops):
        return folder, ["loose"]
    nested = [p / package for p in sorted(folder.iterdir()) if real(p) and real(p / package)]
    if len(nested) == 1:
        return nested[0], ["nested"]
    return None, ["no_package"]


def grade(folder: str | Path, ops: list[str] | str | None = None, timeout: float = 5.0,
          memory_mb: int = 1024, lang: str | None = None, teacher: str | Path | None = None
          ) -> GradeReport:
    """Grade one submission: with the teacher's copy `teacher` (what is graded comes from
    it), or else the visible checks of the copy's own course.json."""
    if not (0 < timeout < 3600) or not (0 < memory_mb < 1 << 20):
        raise ValueError("timeout must be a number of seconds between 0 and 3600, memory a "
                         "positive number of MiB")
    course = load_course(teacher if teacher is not None else folder, teacher is not None)
    with Grader(course, ops, Limits(timeout=timeout, memory_mb=memory_mb)) as grader:
        return grader.grade(folder, lang)
