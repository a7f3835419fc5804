"""The teacher's solution gets full marks on every op of the catalogue, in time; the student's
copy gets none; the assignment's own tests run the same checks; what a child process writes
back is trusted only as far as its plain data."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from minigrad.__main__ import main
from minigrad.course import grade, new_assignment
from minigrad.course.catalog import OPS
from minigrad.course.grading import ROOT, _op_grade
from minigrad.course.sandbox import Bounded

BUDGET = 60.0  # seconds for grading 20 ops of a correct submission (the bar)


@pytest.fixture(scope="module")
def assignment(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return new_assignment(tmp_path_factory.mktemp("course") / "hw")


def test_the_teachers_solution_gets_full_marks_in_time(assignment: tuple[Path, Path],
                                                       tmp_path: Path) -> None:
    teacher, _ = assignment
    out = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out):
        code = main(["course", "grade", str(teacher), "--json", str(tmp_path / "r.json"),
                     "--junit", str(tmp_path / "r.xml")])
    seconds = time.monotonic() - started
    printed = out.getvalue()
    assert code == 0, printed
    results = json.loads((tmp_path / "r.json").read_text())
    assert [t["name"] for t in results["tests"]] == list(OPS)  # all 22 ops
    assert all(t["score"] == t["max_score"] > 0 for t in results["tests"]), printed
    assert results["score"] == results["max_score"] == 119
    suite = ET.parse(tmp_path / "r.xml").getroot()[0]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("97", "0", "0")
    assert "✗" not in printed and printed.splitlines()[-2] == "  total        119/119"
    print(f"graded {len(OPS)} ops in {seconds:.1f} s")
    assert seconds <= BUDGET * len(OPS) / 20


def test_the_student_copy_scores_nothing_yet(assignment: tuple[Path, Path]) -> None:
    _, student = assignment
    report = grade(student, ops=["mul", "matmul"])
    assert (report.score, report.max_score, report.passed) == (0, 12, False)
    for g in report.ops:
        assert {c["reason"] for c in g.checks} == {"not_implemented"}
        assert g.lines("en", 30)[2] == "      forward is not written yet (it raises " \
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


def test_grade_refuses_misuse(assignment: tuple[Path, Path], tmp_path: Path,
                              capsys: pytest.CaptureFixture) -> None:
    teacher, _ = assignment
    cases = [
        (["--ops", "foo"], "error: unknown op foo"),
        (["--timeout", "0"], "error: timeout and memory must be positive"),
        (["--json", str(tmp_path / "nowhere/r.json")], "error: cannot write"),
    ]
    for argv, message in cases:
        assert main(["course", "grade", str(teacher), *argv]) == 2
        assert capsys.readouterr().err.startswith(message)
    assert main(["course", "grade", str(tmp_path)]) == 2
    assert "is not an assignment: it has no course.json" in capsys.readouterr().err
    partial = new_assignment(tmp_path / "small", "mul")[0]
    with pytest.raises(ValueError, match="exp: not in this assignment"):
        grade(partial, ops=["exp"])


# -- what comes back from a child is data, checked ----------------------------------------------
def test_a_result_that_does_not_fit_the_op_counts_as_a_crash() -> None:
    op = OPS["mul"]
    forged = {"status": "graded", "score": 999,
              "checks": [{"check": "forward", "status": "passed"}]}  # the other checks missing
    g = _op_grade(op, forged, torch=True)
    assert (g.status, g.score, g.max_score) == ("crashed", 0, 6)
    assert "its result did not come back whole" in "\n".join(g.lines("en", 30))
    odd = {"status": "graded", "checks": [{"check": c, "status": "great"} for c in op.checks]}
    assert _op_grade(op, odd, torch=True).score == 0
    assert _op_grade(op, "not a dict", torch=True).status == "crashed"


def test_without_torch_the_pytorch_check_is_skipped_not_failed() -> None:
    op = OPS["exp"]
    raw = {"status": "graded", "checks": [{"check": c, "status": "passed"} for c in op.checks]}
    g = _op_grade(op, raw, torch=False)
    assert (g.score, g.max_score, g.passed) == (4, 4, True)
    assert [c["status"] for c in g.checks] == ["passed", "passed", "passed", "skipped"]


def test_printed_output_is_bounded() -> None:
    out = Bounded(limit=10)
    print("x" * 25, file=out)
    assert out.kept.getvalue() == "x" * 10 and out.dropped == 16
