"""`course grade --teacher` on a submission with planted bugs: each bug fails the one check it
is about, and only the checks that build on that one go unjudged; each is named (the op, the
check, the input, the element, the right value and the student's, the smallest example), kept
from the other ops; the JSON and JUnit files are valid; the grade is deterministic.

One submission holds every bug, one op each, and is graded once for the whole module.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from minigrad.__main__ import main
from minigrad.course import Grader, load_course, new_assignment
from minigrad.course.grading import GradeReport, OpGrade

OPS = "add,sub,mul,softmax,log_softmax,exp,sigmoid,matmul,cos,log,tanh,neg,sin,sqrt,relu"
SLOW_SIGMOID = """(x,) = ctx.saved_tensors
        s = x.sigmoid()
        flat = (s * (1 - s)).reshape(-1)
        parts = [flat[i] for i in range(flat.shape[0])]  # one element at a time
        return grad * (minigrad.stack(parts).reshape(x.shape) if parts else s * (1 - s))"""
BUGS = {  # op: (the solution's text, the bug planted in its place)
    "sub": ("ga, gb = grad, -grad", "ga, gb = grad, grad"),  # a wrong sign
    "mul": ("return ga.sum_to_size(a.shape), gb.sum_to_size(b.shape)",
            "return ga, gb"),  # the broadcast sum forgotten
    "log_softmax": ("return grad - y * grad.sum(ctx.dim, keepdim=True)",
                    "return grad - y * grad.sum(-1, keepdim=True)"),  # backward ignores dim
    "softmax": ("e = np.exp(x.array - x.array.max(axis=dim, keepdims=True))",
                "e = np.exp(x.array)"),  # NaN for large inputs
    "exp": ("return grad * x.exp()",
            "return grad * minigrad.tensor(np.exp(x.array))"),  # right once, not twice
    "sigmoid": ("(x,) = ctx.saved_tensors\n        return grad * x.sigmoid() * (1 - x.sigmoid())",
                SLOW_SIGMOID),  # a Python loop: right, and far too slow
    "matmul": ("return ga, gb.sum_to_size(b.shape)",
               "return ga, (gb.sum(0) if a.dim() == 3 else gb)"),  # one batch dim only
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
BUILT_ON_BACKWARD = ["broadcasting", "second", "stability", "speed"]
EXPECTED = {  # op: (score, max, the checks failed, the checks not judged)
    "add": (7, 7, [], []),  # untouched: the bugs around it change nothing
    "sub": (1, 7, ["backward"], BUILT_ON_BACKWARD),
    "mul": (6, 7, ["broadcasting"], []),
    "log_softmax": (6, 7, ["dim"], []),
    "softmax": (6, 7, ["stability"], []),
    "exp": (5, 6, ["second"], []),
    "sigmoid": (5, 6, ["speed"], []),
    "matmul": (6, 7, ["batched"], []),  # (it fails on a hidden case: two batch dimensions)
    "tanh": (6, 6, [], []),  # printing is no bug
    "relu": (0, 5, ["forward", "backward"], ["stability", "speed"]),  # (3 GiB > the limit)
    "log": (0, 6, ["forward", "backward"], ["second", "stability", "speed"]),
}
WHOLE = {"cos": "timeout", "neg": "crashed", "sin": "import_error", "sqrt": "no_class"}


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
        code = main(["course", "grade", str(submission), "--teacher", str(teacher), "--json",
                     str(root / "results.json"), "--junit", str(root / "report.xml"),
                     "--no-timing"])
    with Grader(load_course(teacher), ["sub", "mul", "log_softmax", "exp", "softmax"]) as g:
        again = g.grade(submission)
    return {"code": code, "printed": out.getvalue(), "root": root, "again": again,
            "submission": submission,
            "report": json.loads((root / "results.json").read_text(encoding="utf-8"))}


def op_grade(report: GradeReport, name: str) -> OpGrade:
    return next(g for g in report.ops if g.op.name == name)


def failure(g: OpGrade, check: str) -> dict[str, Any]:
    (c,) = [c for c in g.checks if c["check"] == check]
    assert c["status"] == "failed", c
    return c


def test_each_bug_loses_the_points_of_its_check_only(graded: dict[str, Any]) -> None:
    per_op: dict[str, dict[str, str]] = {}
    points: dict[str, list[int]] = {}
    for t in graded["report"]["tests"]:
        op, check = t["name"].split(": ")
        points.setdefault(op, [0, 0])
        points[op][0] += t["score"]
        points[op][1] += t["max_score"]
        per_op.setdefault(op, {})[check] = t["status"]
    for op, (score, top, failed, unjudged) in EXPECTED.items():
        assert points[op] == [score, top], op
        grade = op_grade(graded["again"], op) if op in ("sub", "mul") else None
        if grade is not None:
            assert [c["check"] for c in grade.checks if c["status"] == "failed"] == failed
            assert [c["check"] for c in grade.checks if c["status"] == "not_judged"] == \
                [c for c in unjudged if c in grade.op.checks]
    for op in WHOLE:
        assert points[op][0] == 0
    assert graded["code"] == 1  # not everything passed
    text = graded["printed"]
    for op, (_, _, failed, unjudged) in EXPECTED.items():
        line = re.search(rf"\n  {op} +\d+/\d+ +(.*)\n", text)
        note = line.group(1) if line else ""
        assert ("failed" in note) == bool(failed), (op, note)
        assert ("not judged" in note) == bool(unjudged), (op, note)


def test_a_wrong_sign_names_the_input_and_element(graded: dict[str, Any]) -> None:
    g = op_grade(graded["again"], "sub")
    c = failure(g, "backward")
    assert (c["reason"], c["input"]) == ("grad_value", "b")
    assert c["got"] == pytest.approx(-c["expected"])
    # the smallest case comes first: two scalar zeros
    assert c["example"]["inputs"] == [
        {"name": "a", "shape": [], "values": "0.", "dtype": "float64"},
        {"name": "b", "shape": [], "values": "0.", "dtype": "float64"}]
    text = "\n".join(g.lines("en"))
    assert re.search(r"the gradient of b is wrong: the right value is -?[\d.]+, your backward "
                     r"gives -?[\d.]+\.", text)
    assert "- broadcasting, second derivative, stability, speed\n      not judged: it " \
           "builds on backward, which did not pass." in text
    assert "✓ forward" in text


def test_a_missing_broadcast_sum_is_named(graded: dict[str, Any]) -> None:
    c = failure(op_grade(graded["again"], "mul"), "broadcasting")
    assert c["reason"] == "grad_shape"
    shapes = {x["name"]: x["shape"] for x in c["example"]["inputs"]}
    assert shapes[c["input"]] == c["expected"] != c["got"]
    message = "\n".join(op_grade(graded["again"], "mul").lines("en"))
    assert f"g.sum_to_size({c['input']}.shape)" in message


def test_a_backward_that_ignores_dim_fails_only_for_another_dim(graded: dict[str, Any]
                                                                ) -> None:
    g = op_grade(graded["again"], "log_softmax")
    assert g.failed_checks() == ["dim"]
    c = failure(g, "dim")
    assert (c["reason"], c["input"]) == ("grad_value", "x")
    (x,) = c["example"]["inputs"]
    assert c["example"]["params"]["dim"] % len(x["shape"]) != len(x["shape"]) - 1


def test_an_unstable_softmax_fails_stability_only(graded: dict[str, Any]) -> None:
    g = op_grade(graded["again"], "softmax")
    assert g.failed_checks() == ["stability"]
    c = failure(g, "stability")
    assert c["reason"] == "stability_value" and c["got"] == "nan"
    assert c["example"]["hidden"] == "extreme"
    text = "\n".join(g.lines("en"))
    assert "at extreme values forward gives nan" in text
    assert "failing example (a hidden case: extreme values):" in text
    assert "it failed on a hidden case (extreme values)" in "\n".join(g.lines("en",
                                                                            reveal=False))


def test_a_wrong_second_derivative_is_caught(graded: dict[str, Any]) -> None:
    g = op_grade(graded["again"], "exp")
    assert g.failed_checks() == ["second"]
    c = failure(g, "second")
    assert (c["reason"], c["input"], c["gradient_of"]) == ("second_value", "x", "x")
    assert c["got"] == 0.0 and abs(c["expected"]) > 0.01
    assert "no numpy, no .array" in " ".join(g.lines("en"))


def test_a_python_loop_fails_speed_and_a_two_batch_matmul_a_hidden_case(
        graded: dict[str, Any]) -> None:
    outputs = {t["name"]: t for t in graded["report"]["tests"]}
    speed = outputs["sigmoid: speed"]
    ratio = int(re.search(r"took (?:more than )?(\d+)x as long", speed["output"]).group(1))
    assert speed["score"] == 0 and ratio > 50, speed["output"]
    batched = outputs["matmul: a batch"]
    assert batched["score"] == 0 and "a hidden case (" in batched["output"]
    assert "[[" not in batched["output"]  # (its values: after the grades are published)
    details = outputs["matmul: the hidden cases it failed on"]
    assert details["visibility"] == "after_published" and details["max_score"] == 0
    assert "failing example (a hidden case: " in details["output"]


def test_an_endless_loop_is_stopped_and_the_rest_graded(graded: dict[str, Any]) -> None:
    printed = graded["printed"]
    assert "✗ cos  0/6\n  stopped after 5 s, the time limit" in printed
    assert re.search(r"\n  add +7/7\n", printed)


def test_an_exception_points_at_the_students_line(graded: dict[str, Any]) -> None:
    output = next(t["output"] for t in graded["report"]["tests"] if t["name"] == "log: forward")
    rows = (graded["submission"] / "homework/log.py").read_text().splitlines()
    line = next(n for n, row in enumerate(rows, 1) if "raise ValueError" in row)
    assert "your code raised ValueError: log of what?\n" in output
    assert f"in homework/log.py, line {line}: raise ValueError('log of what?')" in output


def test_what_a_submission_prints_is_kept_bounded(graded: dict[str, Any]) -> None:
    printed = graded["printed"]
    assert "tanh" not in printed.split("Scores")[0]  # full marks: nothing to say
    assert "x" * 100 not in printed


def test_crashes_syntax_errors_and_missing_classes_are_explained(graded: dict[str, Any]
                                                                 ) -> None:
    outputs = {t["name"]: t["output"] for t in graded["report"]["tests"]}
    assert "the process running your op died (exit code 3)" in outputs["neg: forward"]
    assert "homework/sin.py could not be imported: your code raised SyntaxError" in \
        outputs["sin: forward"]
    assert "homework/sqrt.py has no class Sqrt (a subclass of minigrad.Function)." in \
        outputs["sqrt: backward"]
    assert "your code raised MemoryError" in outputs["relu: forward"]


def test_the_gradescope_json_has_the_fields_gradescope_reads(graded: dict[str, Any]) -> None:
    results = graded["report"]
    assert set(results) >= {"score", "tests", "output", "execution_time", "visibility"}
    assert results["score"] == sum(t["score"] for t in results["tests"]) == 48
    assert results["max_score"] == sum(t["max_score"] for t in results["tests"]) == 95
    for t in results["tests"]:
        assert set(t) >= {"name", "score", "max_score", "output", "status", "visibility"}
        assert 0 <= t["score"] <= t["max_score"]
        hidden = t["name"].endswith(("stability", "the hidden cases it failed on"))
        assert t["visibility"] == ("after_published" if hidden else "visible")


def test_the_junit_report_has_a_testcase_per_check(graded: dict[str, Any]) -> None:
    root = ET.parse(graded["root"] / "report.xml").getroot()
    (suite,) = root
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases) == 80  # the checks of the 15 ops
    failed = [(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures")) == len(failed)
    assert ("course.mul", "broadcasting") in failed and ("course.mul", "backward") not in failed
    (message,) = [c.find("failure").get("message") for c in cases
                  if (c.get("classname"), c.get("name")) == ("course.exp", "second")]
    assert message.startswith("the second derivative is wrong")


def test_the_same_submission_gets_the_same_grade(graded: dict[str, Any]) -> None:
    teacher = graded["root"] / "hw/teacher"
    with Grader(load_course(teacher), ["sub", "mul", "exp"]) as g:
        once = g.grade(graded["submission"])
    for grade in once.ops:
        assert grade.lines("en") == op_grade(graded["again"], grade.op.name).lines("en")
    outputs = {t["name"]: t["output"] for t in graded["report"]["tests"]}
    assert outputs["sub: backward"] in "\n".join(op_grade(once, "sub").lines("en")).replace(
        "\n      ", "\n")


def test_the_feedback_reads_in_chinese(graded: dict[str, Any]) -> None:
    text = graded["again"].text(lang="zh").replace(str(graded["submission"]), "DIR")
    assert re.search(r"b 的梯度不对：正确值是 -?[\d.]+，你的 backward 给出 -?[\d.]+。", text)
    assert "最小的反例：" in text and "没通过：反向；未评：广播、二阶导数、数值稳定性、速度" in text
    assert "二阶导数不对：x 的梯度（沿一个随机方向）对 x 求导，应当是" in text
    assert "未评：它建立在反向之上，而反向没有通过。" in text
    prose = re.sub(r"\([^)]*\)|[\w.]+\(", "", text)  # (code and shapes left out)
    assert not re.search(r"\b(the|and|your|is|of)\b", prose), prose
