"""`python -m minigrad course new|grade`: the coursework kit on the command line.

    python -m minigrad course new DIR [--ops mul,div,exp,sum,matmul] [--lang zh]
    python -m minigrad course release TEACHER STUDENT
    python -m minigrad course grade DIR [--json results.json] [--junit report.xml]
                                        [--lang zh] [--timeout S] [--memory MB] [--workers N]

`grade` exits 0 only when every check of every op passes, 1 when some fail, and 2 when the
folder is not a submission (or another misuse): so a CI job or a shell loop can tell.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from minigrad.course import grading, make, reports
from minigrad.course.catalog import OPS
from minigrad.course.texts import LANGS, word


def add_course(commands: Any) -> None:
    p = commands.add_parser("course", help="make a coursework assignment, or grade one",
                            description="The coursework kit: write an assignment of ops to "
                                        "implement, and grade submissions of it.")
    sub = p.add_subparsers(dest="course_command", metavar="ACTION", required=True)
    new = sub.add_parser("new", help="write an assignment: teacher/ and student/ copies",
                         description="Write an assignment under DIR: DIR/teacher (with the "
                                     "solutions) and DIR/student (the stubs to hand out).")
    new.add_argument("folder", metavar="DIR", help="a new (or empty) folder")
    new.add_argument("--ops", help=f"comma-separated ops (default: all {len(OPS)}): "
                                   f"{','.join(OPS)}")
    new.add_argument("--lang", choices=LANGS, default="en",
                     help="language of the README and docstrings (zh: Chinese)")
    new.set_defaults(run=run_new)
    release = sub.add_parser("release", help="make the student's copy again from the "
                                             "teacher's (after editing it)",
                             description="Copy TEACHER to STUDENT with every solution region "
                                         "replaced by raise NotImplementedError.")
    release.add_argument("teacher", metavar="TEACHER", help="the teacher's copy")
    release.add_argument("student", metavar="STUDENT", help="a new (or empty) folder")
    release.set_defaults(run=run_release)
    grade = sub.add_parser("grade", help="grade a submission, op by op, in a sandbox",
                           description="Check every op of the submission in DIR and print "
                                       "the feedback and a score per op.")
    grade.add_argument("folder", metavar="DIR", help="a submission (a copy with course.json)")
    grade.add_argument("--ops", help="grade only these ops (comma-separated)")
    grade.add_argument("--json", metavar="PATH", help="write Gradescope's results.json here")
    grade.add_argument("--junit", metavar="PATH", help="write a JUnit XML report here")
    grade.add_argument("--lang", choices=LANGS, help="language of the feedback (default: the "
                                                     "assignment's)")
    grade.add_argument("--timeout", type=float, default=grading.TIMEOUT,
                       help=f"seconds per op (default {grading.TIMEOUT:g})")
    grade.add_argument("--memory", type=int, default=grading.MEMORY_MB, metavar="MB",
                       help=f"memory per op, MiB (default {grading.MEMORY_MB})")
    grade.add_argument("--workers", type=int, default=grading.WORKERS,
                       help=f"ops graded at once (default {grading.WORKERS})")
    grade.add_argument("--no-timing", action="store_true",
                       help="leave the grading time out (stable output)")
    grade.set_defaults(run=run_grade)


def run_new(args: argparse.Namespace) -> int:
    try:
        teacher, student = make.new_assignment(args.folder, args.ops, args.lang)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    count = len(make.read_manifest(teacher)["ops"])
    print(word("wrote", args.lang).format(count=count, teacher=teacher, student=student))
    return 0


def run_release(args: argparse.Namespace) -> int:
    try:
        student = make.release(args.teacher, args.student)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(word("released", make.read_manifest(student)["lang"]).format(student=student))
    return 0


def run_grade(args: argparse.Namespace) -> int:
    try:
        for option in (args.json, args.junit):
            if option and not Path(option).parent.is_dir():
                raise ValueError(f"cannot write {option}: there is no folder "
                                 f"{Path(option).parent}")
        report = grading.grade(args.folder, args.ops, args.timeout, args.memory, args.workers,
                               args.lang)
    except (ValueError, OSError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report.text(timing=not args.no_timing), end="")
    if args.json:
        Path(args.json).write_text(json.dumps(reports.gradescope(report), ensure_ascii=False,
                                              indent=2) + "\n", encoding="utf-8")
    if args.junit:
        Path(args.junit).write_text(reports.junit(report), encoding="utf-8")
    return 0 if report.passed else 1
