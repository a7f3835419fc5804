"""A lecturer's own content, through the teacher's copy only: an op of their own (a Function
with its solution and docstring, declared in course.json), checks of their own (grading/
checks.py) and their own points; none of it needs an edit of minigrad."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from minigrad.course import Grader, grade, load_course, new_assignment
from minigrad.course.make import release

CUBE = '''"""cube: write Cube.forward and Cube.backward below."""

import numpy as np

import minigrad


class Cube(minigrad.Function):
    r"""x cubed, element by element.

        out = x ** 3;   d out/dx = 3 * x ** 2
    """

    @staticmethod
    def forward(ctx, x):
        ### BEGIN SOLUTION
        ctx.save_for_backward(x)
        return x.array ** 3
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2
        ### END SOLUTION
'''
CHECKS = '''import numpy as np


def check_zeros(student, reference):
    """0 * anything is exactly 0, and so is its gradient with respect to the other input."""
    a, b = np.zeros((2, 3)), np.full((2, 3), 7.0)
    out = student.forward(a, b)
    assert np.all(out == 0), f"0 * 7 should be exactly 0, your forward gives {out.flat[0]}"
    ga, gb = student.gradients(a, b)
    assert np.all(gb == 0), "the gradient of b is a, which is 0 here"
    assert np.array_equal(out, reference.forward(a, b))


def check_broken(student, reference):
    raise KeyError("a typo in the teacher's check")
'''


@pytest.fixture(scope="module")
def teacher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("custom")
    teacher, _ = new_assignment(root / "hw", "mul")
    (teacher / "homework/cube.py").write_text(CUBE)
    (teacher / "grading").mkdir()
    (teacher / "grading/checks.py").write_text(CHECKS)
    manifest = json.loads((teacher / "course.json").read_text())
    manifest["ops"].append("cube")
    manifest["custom_ops"] = {"cube": {"class": "Cube", "kind": "unary", "signature": "x",
                                       "what": {"en": "x cubed.", "zh": "x 的三次方。"}}}
    manifest["op_points"] = {"cube": {"backward": 4}}
    manifest["custom_checks"] = [
        {"name": "zeros", "op": "mul", "function": "check_zeros", "points": 2,
         "builds_on": ["forward"]},
        {"name": "broken", "op": "mul", "function": "check_broken", "points": 5}]
    (teacher / "course.json").write_text(json.dumps(manifest, indent=2))
    return teacher


@pytest.fixture(scope="module")
def grader(teacher: Path) -> Grader:
    with Grader(load_course(teacher)) as grader:
        yield grader


def scores(report: Any) -> dict[str, tuple[int, int]]:
    return {g.op.name: (g.score, g.max_score) for g in report.ops}


def test_the_teachers_own_op_and_checks_give_full_marks(teacher: Path, grader: Grader
                                                        ) -> None:
    report = grader.grade(teacher)
    assert scores(report) == {"mul": (9, 9), "cube": (8, 8)}, report.text()
    mul = next(g for g in report.ops if g.op.name == "mul")
    broken = next(c for c in mul.checks if c["check"] == "broken")
    assert broken["status"] == "skipped"  # (the teacher's bug: not counted, and said)
    assert "KeyError: \"a typo in the teacher's check\"" in broken["message"]


def test_a_wrong_submission_loses_those_points(teacher: Path, grader: Grader,
                                               tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    shutil.copytree(teacher, folder)
    cube = folder / "homework/cube.py"
    cube.write_text(cube.read_text().replace("grad * 3 * x ** 2", "grad * 3 * x"))
    mul = folder / "homework/mul.py"
    mul.write_text(mul.read_text().replace("return a.array * b.array",
                                           "return a.array * b.array + 1e-300"))
    report = grader.grade(folder)
    assert scores(report) == {"mul": (7, 9), "cube": (1, 8)}, report.text()
    text = report.text()
    assert "✗ zeros\n      0 * 7 should be exactly 0, your forward gives 1e-300" in text
    assert "the gradient of x is wrong" in text


def test_the_students_copy_has_the_stub_and_none_of_the_teachers_content(
        teacher: Path, tmp_path: Path) -> None:
    student = release(teacher, tmp_path / "student")
    stub = (student / "homework/cube.py").read_text()
    assert "x.array ** 3" not in stub and stub.count("raise NotImplementedError") == 2
    assert not (student / "grading").exists()
    assert "hidden_seed" not in json.loads((student / "course.json").read_text())
    mine = grade(student)  # (a student's own run: the teacher's op and checks are hidden)
    assert scores(mine) == {"mul": (0, 6), "cube": (0, 0)}
    mul, cube = mine.ops
    assert {c["check"]: c["status"] for c in mul.checks}["zeros"] == "hidden"
    assert {c["status"] for c in cube.checks} == {"hidden"}
