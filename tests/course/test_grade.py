"""`course grade` on a submission with planted bugs: each bug is named (the op, the check, the
input, the element, numerical vs analytical, the smallest example), scored to the point, and
kept from the other ops; the JSON and JUnit files are valid; the grade is deterministic.

One submission holds every bug, one op each, and is graded once for the whole module.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from minigrad.__main__ import main
from minigrad.course import grade, new_assignment
from minigrad.course.grading import GradeReport, OpGrade

OPS = "add,sub,mul,softmax,exp,cos,log,tanh,neg,sin,sqrt,relu"
TIMEOUT = 10  # seconds per op: the endless loop is stopped there (generous: 2 shared cores)
BUGS = {  # op: (the solution's text, the bug planted in its place)
    "sub": ("ga, gb = grad, -grad", "ga, gb = grad, grad"),  # a wrong sign
    "mul": ("return ga.sum_to_size(a.shape), gb.sum_to_size(b.shape)",
            "return ga, gb"),  # the broadcast sum forgotten
    "softmax": ("y = e / e.sum(ctx.dim, keepdim=True)\n        return y * (grad - (grad * y)"
                ".sum(ctx.dim, keepdim=True))",
                "y = e / e.sum(-1, keepdim=True)\n        return y * (grad - (grad * y)"
                ".sum(-1, keepdim=True))"),  # backward ignores dim
    "exp": ("return grad * x.exp()",
            "return grad * minigrad.tensor(np.exp(x.array))"),  # right once, not twice
    "cos": ("return np.cos(x.array)", "while True:\n            pass"),  # an endless loop
    "log": ("return np.log(x.array)", "raise ValueError('log of what?')"),  # an exception
    "tanh": ("return np.tanh(x.array)",
             "print('tanh', 'x' * 5000)\n        return np.tanh(x.array)"),  # prints, is right
    "neg": ("return -x.array", "import os\n        os._exit(3)"),  # the process exits
    "sin": ("def forward(ctx, x):", "def forward(ctx, x)"),  # a syntax error
    "sqrt": ("class Sqrt(", "class SquareRoot("),  # the class is missing
    "relu": ("return np.maximum(x.array, 0.0)",
             "big = np.ones(3 * 2**30 // 8)  # 3 GiB\n        return np.maximum(x.array, 0.0)"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("course")
    teacher, _ = new_assignment(root / "hw", OPS)
    submission = root / "submission"
    shutil.copytree(teacher, submission)
    for op, (solution, bug) in BUGS.items():
        path = submission / f"homework/{op}.py"
        text = path.read_text()
        assert text.count(solution) == 1, op
        path.write_text(text.replace(solution, bug))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["course", "grade", str(submission), "--json", str(root / "results.json"),
                     "--junit", str(root / "report.xml"), "--timeout", str(TIMEOUT),
                     "--no-timing"])
    report = grade(submission, ops=["sub", "mul", "softmax", "exp"], timeout=TIMEOUT)
    return {"code": code, "printed": out.getvalue(), "root": root, "again": report,
            "submission": submission,
            "report": grade_from_json(root / "results.json")}


def grade_from_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def op_grade(report: GradeReport, name: str) -> OpGrade:
    return next(g for g in report.ops if g.op.name == name)


def failure(g: OpGrade, check: str) -> dict[str, Any]:
    (c,) = [c for c in g.checks if c["check"] == check]
    assert c["status"] == "failed", c
    return c


def test_each_op_gets_its_partial_score(graded: dict[str, Any]) -> None:
    tests = {t["name"]: (t["score"], t["max_score"]) for t in graded["report"]["tests"]}
    assert tests == {
        "add": (6, 6),  # untouched: the bugs around it change nothing
        "sub": (2, 6),  # forward and second derivative right; backward, broadcasting, torch
        "mul": (5, 6),  # only broadcasting
        "softmax": (5, 6),  # only another dim
        "exp": (4, 5),  # only the second derivative
        "cos": (0, 5), "log": (0, 5), "neg": (0, 5), "sin": (0, 5), "sqrt": (0, 5),
        "relu": (0, 4),
        "tanh": (5, 5),  # printing is no bug
    }
    assert graded["code"] == 1  # not everything passed


def test_a_wrong_sign_names_the_input_and_element(graded: dict[str, Any]) -> None:
    g = op_grade(graded["again"], "sub")
    c = failure(g, "backward")
    assert (c["reason"], c["input"]) == ("jacobian", "b")
    assert c["numerical"] == pytest.approx(-1.0) and c["analytical"] == pytest.approx(1.0)
    # hypothesis shrank it to the simplest case: two scalar zeros
    assert c["example"]["inputs"] == [{"name": "a", "shape": [], "values": "0."},
                                      {"name": "b", "shape": [], "values": "0."}]
    assert failure(g, "pytorch")["reason"] == "torch_grad"
    assert [c["status"] for c in g.checks if c["check"] in ("forward", "second")] == \
        ["passed", "passed"]
    text = "\n".join(g.lines("en", TIMEOUT))
    assert "the gradient of b is wrong: finite differences give -1, your backward gives 1." \
        in text
    assert "smallest failing example (found by hypothesis):\n        a = 0.\n" in text


def test_a_missing_broadcast_sum_is_named(graded: dict[str, Any]) -> None:
    c = failure(op_grade(graded["again"], "mul"), "broadcasting")
    assert c["reason"] == "grad_shape"
    shapes = {x["name"]: x["shape"] for x in c["example"]["inputs"]}
    assert shapes[c["input"]] == c["expected"] != c["got"]
    assert c["got"] == list(max(shapes.values(), key=len))  # the broadcast shape came back
    message = "\n".join(op_grade(graded["again"], "mul").lines("en", TIMEOUT))
    assert f"g.sum_to_size({c['input']}.shape)" in message


def test_a_backward_that_ignores_dim_fails_only_for_another_dim(graded: dict[str, Any]
                                                                ) -> None:
    g = op_grade(graded["again"], "softmax")
    assert g.failed_checks() == ["dim"]
    c = failure(g, "dim")
    assert (c["reason"], c["input"]) == ("jacobian", "x")
    (x,) = c["example"]["inputs"]
    assert c["example"]["params"]["dim"] % len(x["shape"]) != len(x["shape"]) - 1
    assert c["numerical"] != pytest.approx(c["analytical"], abs=1e-3)


def test_a_wrong_second_derivative_is_caught(graded: dict[str, Any]) -> None:
    g = op_grade(graded["again"], "exp")
    assert g.failed_checks() == ["second"]
    c = failure(g, "second")
    assert (c["reason"], c["input"], c["gradient_of"]) == ("second_jacobian", "x", "x")
    # d/dx (grad * e^x) = grad * e^x numerically; 0 through a backward made with numpy
    assert c["analytical"] == 0.0 and abs(c["numerical"]) > 0.1
    assert "no numpy, no .array" in " ".join(g.lines("en", TIMEOUT))


def test_an_endless_loop_is_stopped_and_the_rest_graded(graded: dict[str, Any]) -> None:
    printed = graded["printed"]
    assert f"✗ cos  0/5\n  stopped after {TIMEOUT} s, the time limit per op" in printed
    assert re.search(r"\n  add +6/6\n", printed)


def test_an_exception_points_at_the_students_line(graded: dict[str, Any]) -> None:
    (test,) = [t for t in graded["report"]["tests"] if t["name"] == "log"]
    rows = (graded["submission"] / "homework/log.py").read_text().splitlines()
    line = next(n for n, row in enumerate(rows, 1) if "raise ValueError" in row)
    assert "your code raised ValueError: log of what?\n" in test["output"]
    assert f"in homework/log.py, line {line}: raise ValueError('log of what?')" in test["output"]


def test_what_a_submission_prints_is_kept_bounded(graded: dict[str, Any]) -> None:
    printed = graded["printed"]
    assert "tanh" not in printed.split("Scores")[0]  # full marks: nothing to say
    assert re.search(r"  tanh +5/5\n", printed)
    assert "x" * 100 not in printed


def test_crashes_syntax_errors_and_missing_classes_are_explained(graded: dict[str, Any]
                                                                 ) -> None:
    outputs = {t["name"]: t["output"] for t in graded["report"]["tests"]}
    assert "the process grading this op died (exit code 3)" in outputs["neg"]
    assert "homework/sin.py could not be imported: your code raised SyntaxError" in \
        outputs["sin"]
    assert "homework/sin.py has no class" not in outputs["sin"]
    assert "homework/sqrt.py has no class Sqrt (a subclass of minigrad.Function)." in \
        outputs["sqrt"]
    assert "your code raised MemoryError" in outputs["relu"]  # 3 GiB > the 1 GiB limit


def test_the_gradescope_json_has_the_fields_gradescope_reads(graded: dict[str, Any]) -> None:
    results = graded["report"]
    assert set(results) >= {"score", "tests", "output", "execution_time"}
    assert results["score"] == sum(t["score"] for t in results["tests"]) == 27
    for t in results["tests"]:
        assert set(t) >= {"name", "score", "max_score", "output", "status"}
        assert 0 <= t["score"] <= t["max_score"]
        assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed")


def test_the_junit_report_has_a_testcase_per_check(graded: dict[str, Any]) -> None:
    root = ET.parse(graded["root"] / "report.xml").getroot()
    assert root.tag == "testsuites"
    (suite,) = root
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases) == 51  # the checks of the 12 ops
    failed = [(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures")) == len(failed)
    assert ("course.mul", "broadcasting") in failed and ("course.mul", "backward") not in failed
    (message,) = [c.find("failure").get("message") for c in cases
                  if (c.get("classname"), c.get("name")) == ("course.exp", "second")]
    assert message.startswith("the second derivative is wrong")


def test_the_same_submission_gets_the_same_grade(graded: dict[str, Any]) -> None:
    first = {t["name"]: t["output"] for t in graded["report"]["tests"]}
    for g in graded["again"].ops:
        assert "\n".join(g.lines("en", TIMEOUT)) == first[g.op.name]


def test_the_feedback_reads_in_chinese(graded: dict[str, Any]) -> None:
    text = graded["again"].text(lang="zh").replace(str(graded["submission"]), "DIR")
    assert "b 的梯度不对：有限差分得到 -1，你的 backward 给出 1。" in text
    assert "x 的梯度在 x[0, 0] 处不对：有限差分得到 0，你的 backward 给出 0.25。" in text
    assert "hypothesis 找到的最小反例：" in text and "没通过：反向、广播、对照 PyTorch" in text
    assert "二阶导数不对：x 的梯度对 x 求导，有限差分得到" in text
    prose = re.sub(r"\([^)]*\)|[\w.]+\(", "", text)  # (code and shapes left out)
    assert not re.search(r"\b(the|and|your|is|of)\b", prose), prose
