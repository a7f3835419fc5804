"""The teacher's solution gets full marks on every op of the catalogue; the student's copy gets
none; the assignment's own tests run the same (visible) checks; every misuse is refused with
a clear message; the maximum is the teacher's points, with or without PyTorch; what a child
sends back is trusted only as far as its plain data."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from minigrad.__main__ import main
from minigrad.course import grade, load_course, new_assignment
from minigrad.course.catalog import OPS
from minigrad.course.child import Bounded
from minigrad.course.runner import Stopped, _answers
from minigrad.course.sandbox import ROOT


@pytest.fixture(scope="module")
def assignment(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return new_assignment(tmp_path_factory.mktemp("course") / "hw")


def test_the_teachers_solution_gets_full_marks(assignment: tuple[Path, Path],
                                               tmp_path: Path) -> None:
    teacher, _ = assignment
    out = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out):
        code = main(["course", "grade", str(teacher), "--teacher", str(teacher), "--json",
                     str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml")])
    printed = out.getvalue()
    assert code == 0, printed
    results = json.loads((tmp_path / "r.json").read_text())
    course = load_course(teacher)
    top = sum(sum(points.values()) for points in course.points.values())
    assert {t["name"].split(":")[0] for t in results["tests"]} == set(OPS)  # all 22 ops
    assert all(t["score"] == t["max_score"] for t in results["tests"]), printed
    assert results["score"] == results["max_score"] == top == 141
    suite = ET.parse(tmp_path / "r.xml").getroot()[0]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("119", "0", "0")
    assert "✗" not in printed and printed.splitlines()[-3] == "  total        141/141"
    assert printed.splitlines()[-1].startswith("sandbox: ")  # (what it kept submissions from)
    print(f"graded {len(OPS)} ops in {time.monotonic() - started:.1f} s")


def test_the_student_copy_scores_nothing_yet(assignment: tuple[Path, Path]) -> None:
    teacher, student = assignment
    mine = grade(student, ops=["mul", "matmul"])  # (a student's own run: visible checks)
    assert (mine.score, mine.max_score, mine.passed, mine.teacher) == (0, 12, False, False)
    assert "(visible checks only: the hidden ones run when your teacher grades; this is " \
           "not your grade)" in mine.text()
    graded = grade(student, ops="mul,matmul", teacher=teacher)
    assert (graded.score, graded.max_score) == (0, 14)
    for g in graded.ops:
        reasons = {c.get("reason") for c in g.checks if c["status"] == "failed"}
        assert reasons == {"not_implemented"}
        assert g.lines("en")[2] == "      forward is not written yet (it raises " \
                                   "NotImplementedError)."


def test_the_assignments_own_tests_run_the_grader(assignment: tuple[Path, Path]) -> None:
    teacher, student = assignment
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    run = lambda folder: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", "-k", "neg"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    passed, failed = run(teacher), run(student)
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout
    assert failed.returncode == 1 and "forward is not written yet" in failed.stdout


def test_the_maximum_does_not_depend_on_pytorch(assignment: tuple[Path, Path]) -> None:
    teacher, _ = assignment
    code = ("import sys; sys.modules['torch'] = None\n"  # (import torch fails)
            "from minigrad.course import grade\n"
            f"r = grade({str(teacher)!r}, ops='exp,mul', teacher={str(teacher)!r})\n"
            "print(r.score, r.max_score)")
    run = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=300)
    assert run.stdout.split() == ["13", "13"], run.stderr


def test_grade_refuses_misuse(assignment: tuple[Path, Path], tmp_path: Path,
                              capsys: pytest.CaptureFixture) -> None:
    teacher, _ = assignment
    cases = [
        (["--ops", "foo"], "error: unknown op foo"),
        (["--json", str(tmp_path / "nowhere/r.json")], "cannot write"),
        (["--json", str(tmp_path)], "is a folder: give the name of a file to write"),
        (["--timeout", "inf"], "inf: give a number of seconds between 0 and 3600"),
        (["--timeout", "0"], "0: give a number of seconds between 0 and 3600"),
        (["--timeout", "soon"], "'soon' is not a number of seconds"),
        (["--memory", "0"], "0: give a whole number, at least 1"),
        (["--teacher", str(tmp_path)], "is not an assignment: it has no course.json"),
    ]
    for argv, message in cases:
        assert run(["course", "grade", str(teacher), *argv]) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert main(["course", "grade", str(tmp_path)]) == 2
    assert "is not an assignment: it has no course.json" in capsys.readouterr().err
    partial = new_assignment(tmp_path / "small", "mul")[0]
    with pytest.raises(ValueError, match="exp: not in this assignment"):
        grade(partial, ops=["exp"])


def run(argv: list[str]) -> int:
    """main(argv)'s exit code, also when argparse exits on a bad argument."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code)


# -- what comes back from a child is data, checked -----------------------------------------------
def test_an_answer_that_does_not_add_up_counts_as_a_crash() -> None:
    arrays = [np.zeros(2), np.ones(2)]
    assert [a.arrays for a in _answers({"results": [{"count": 1}] * 2}, arrays, 1, 2)] == \
        [[arrays[0]], [arrays[1]]]
    for forged in ({"results": [{"count": 2}]}, {"results": "all passed"},
                   {"results": [{"count": 1}] * 3}, {"results": [7]}):
        with pytest.raises(Stopped) as stopped:
            _answers(forged, arrays, 1, 2)
        assert stopped.value.reason == "crashed"
    (error, rest) = _answers({"results": [{"error": {"reason": "exception"}}]}, [], 1, 2)
    assert error.error == {"reason": "exception"} and rest.arrays is None


def test_printed_output_is_bounded() -> None:
    out = Bounded(limit=10)
    print("x" * 25, file=out)
    assert out.take() == {"text": "x" * 10, "dropped": 16}
    assert out.take() == {"text": "", "dropped": 16}
