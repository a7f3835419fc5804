"""`python -m minigrad course ...`: the coursework kit on the command line.

    course new DIR [--ops mul,div,exp,sum,matmul] [--lang zh]
    course release TEACHER STUDENT
    course grade DIR [--teacher TEACHER] [--json results.json] [--junit report.xml]
                     [--ops ...] [--lang zh] [--timeout S] [--memory MB]
    course grade-all SUBMISSIONS --teacher TEACHER --csv scores.csv [--results DIR]
                     [--workers N]
    course gradescope TEACHER -o autograder.zip
    course autograde SUBMISSION --teacher TEACHER --results results.json   (Gradescope's)

`grade` exits 0 only when every check of every op passes, 1 when some fail, and 2 when the
folder is not a submission (or another misuse): so a CI job or a shell loop can tell.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from minigrad.course import batch, gradescope, grading, make, render, reports
from minigrad.course.catalog import OPS
from minigrad.course.manifest import read_manifest
from minigrad.course.sandbox import Limits, SandboxError
from minigrad.course.texts import LANGS, word

DEFAULT = Limits()


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise argparse.ArgumentTypeError(f"{text}: give a number of seconds between 0 and "
                                         "3600")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: give a whole number, at least 1")
    return value


def _file(text: str) -> Path:
    """A file to write: not a folder, in a folder that exists."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder: give the name of a file to write")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: there is no folder "
                                         f"{path.parent}")
    return path


def add_course(commands: Any) -> None:
    p = commands.add_parser("course", help="make a coursework assignment, or grade one",
                            description="The coursework kit: write an assignment of ops to "
                                        "implement, and grade submissions of it.")
    sub = p.add_subparsers(dest="course_command", metavar="ACTION", required=True)
    new = sub.add_parser("new", help="write an assignment: teacher/ and student/ copies")
    new.add_argument("folder", metavar="DIR", help="a new (or empty) folder")
    new.add_argument("--ops", help=f"comma-separated ops (default: all {len(OPS)}): "
                                   f"{','.join(OPS)}")
    new.add_argument("--lang", choices=LANGS, default="en",
                     help="language of the README and docstrings (zh: Chinese)")
    new.set_defaults(run=run_new)
    release = sub.add_parser("release", help="make the student's copy again from the "
                                             "teacher's (after editing it)")
    release.add_argument("teacher", metavar="TEACHER", help="the teacher's copy")
    release.add_argument("student", metavar="STUDENT", help="a new (or empty) folder")
    release.set_defaults(run=run_release)
    grade = sub.add_parser("grade", help="grade one submission, op by op, in a sandbox")
    grade.add_argument("folder", metavar="DIR", help="a submission (or your own copy)")
    grade.add_argument("--teacher", metavar="TEACHER",
                       help="the teacher's copy: what is graded comes from it (without it, "
                            "the visible checks of DIR's own course.json)")
    grade.add_argument("--ops", help="grade only these ops (comma-separated)")
    grade.add_argument("--json", metavar="PATH", type=_file,
                       help="write Gradescope's results.json here")
    grade.add_argument("--junit", metavar="PATH", type=_file,
                       help="write a JUnit XML report here")
    grade.add_argument("--no-timing", action="store_true",
                       help="leave the grading time out (stable output)")
    _limits(grade)
    grade.set_defaults(run=run_grade)
    every = sub.add_parser("grade-all", help="grade a folder of submissions into a CSV")
    every.add_argument("folder", metavar="SUBMISSIONS", help="one folder per student")
    every.add_argument("--teacher", metavar="TEACHER", required=True,
                       help="the teacher's copy")
    every.add_argument("--csv", metavar="PATH", type=_file, required=True,
                       help="the scores: one row per student")
    every.add_argument("--results", metavar="DIR",
                       help="one results file per student (default: beside the CSV)")
    every.add_argument("--workers", type=_positive, help="submissions graded at once "
                                                         "(default: one per core)")
    every.add_argument("--no-timing", action="store_true",
                       help="leave the time and the sandbox's report out (stable output)")
    _limits(every)
    every.set_defaults(run=run_grade_all)
    scope = sub.add_parser("gradescope", help="build a Gradescope autograder zip")
    scope.add_argument("teacher", metavar="TEACHER", help="the teacher's copy")
    scope.add_argument("-o", "--out", metavar="ZIP", type=_file, required=True)
    scope.set_defaults(run=run_gradescope)
    auto = sub.add_parser("autograde", help="(run by Gradescope) grade one submission into "
                                            "results.json, whatever happens")
    auto.add_argument("folder", metavar="SUBMISSION")
    auto.add_argument("--teacher", metavar="TEACHER", required=True)
    auto.add_argument("--results", metavar="PATH", required=True)
    _limits(auto)
    auto.set_defaults(run=run_autograde)


def _limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", choices=LANGS, help="language of the feedback (default: "
                                                      "the assignment's)")
    parser.add_argument("--timeout", type=_seconds, default=DEFAULT.timeout,
                        help=f"seconds per request to a submission (default "
                             f"{DEFAULT.timeout:g})")
    parser.add_argument("--memory", type=_positive, default=DEFAULT.memory_mb, metavar="MB",
                        help=f"memory per sandboxed process, MiB (default "
                             f"{DEFAULT.memory_mb})")


def _limits_of(args: argparse.Namespace) -> Limits:
    return Limits(timeout=args.timeout, memory_mb=args.memory)


def _error(exc: BaseException) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 2


def run_new(args: argparse.Namespace) -> int:
    try:
        teacher, student = make.new_assignment(args.folder, args.ops, args.lang)
    except (ValueError, OSError) as exc:
        return _error(exc)
    count = len(read_manifest(teacher)["ops"])
    print(word("wrote", args.lang).format(count=count, teacher=teacher, student=student))
    return 0


def run_release(args: argparse.Namespace) -> int:
    try:
        student = make.release(args.teacher, args.student)
    except (ValueError, OSError) as exc:
        return _error(exc)
    print(word("released", read_manifest(student)["lang"]).format(student=student))
    return 0


def run_grade(args: argparse.Namespace) -> int:
    try:
        course = grading.load_course(args.teacher or args.folder, args.teacher is not None)
        with grading.Grader(course, args.ops, _limits_of(args)) as grader:
            report = grader.grade(args.folder, args.lang)
    except (ValueError, OSError, SandboxError) as exc:
        return _error(exc)
    print(report.text(timing=not args.no_timing), end="")
    if args.json:
        args.json.write_text(json.dumps(reports.gradescope(report), ensure_ascii=False,
                                        indent=2) + "\n", encoding="utf-8")
    if args.junit:
        args.junit.write_text(reports.junit(report), encoding="utf-8")
    return 0 if report.passed else 1


def run_grade_all(args: argparse.Namespace) -> int:
    try:
        batch.grade_all(Path(args.folder), Path(args.teacher), args.csv,
                        Path(args.results) if args.results else None, args.workers,
                        _limits_of(args), args.lang, timing=not args.no_timing)
    except (ValueError, OSError, SandboxError) as exc:
        return _error(exc)
    return 0


def run_gradescope(args: argparse.Namespace) -> int:
    try:
        out = gradescope.build(args.teacher, args.out)
    except (ValueError, OSError) as exc:
        return _error(exc)
    print(render.word("zip", read_manifest(args.teacher)["lang"], out=out))
    return 0


def run_autograde(args: argparse.Namespace) -> int:
    gradescope.autograde(args.folder, args.teacher, args.results, _limits_of(args))
    return 0
