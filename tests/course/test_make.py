"""`course new`: the teacher's copy holds the solutions between markers, the student's copy is
made from it by stripping them, and every misuse is refused with a clear message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from minigrad.__main__ import main
from minigrad.course import new_assignment, read_manifest, strip_solutions
from minigrad.course.catalog import OPS, select
from minigrad.course.entry import POINTS
from minigrad.course.make import BEGIN, END, release
from minigrad.course.texts import wrap


def test_the_catalogue_has_the_ops_the_issue_asks_for() -> None:
    asked = {"mul", "add", "sub", "div", "neg", "exp", "log", "sin", "cos", "tanh", "sigmoid",
             "relu", "pow", "sqrt", "sum", "mean", "max", "matmul", "transpose", "reshape",
             "softmax", "log_softmax"}
    assert asked <= set(OPS) and len(OPS) >= 20
    for op in OPS.values():  # every op is explained in both languages
        assert op.what["en"] and op.what["zh"] and op.maths_in("en") and op.maths_in("zh")
        assert op.checks[:2] == ("forward", "backward") and op.inputs


def test_course_new_writes_a_teacher_and_a_student_copy(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    assert main(["course", "new", str(tmp_path / "hw"), "--ops", "mul,sum,matmul"]) == 0
    assert "hand this one out" in capsys.readouterr().out
    teacher, student = tmp_path / "hw/teacher", tmp_path / "hw/student"
    names = sorted(p.relative_to(teacher).as_posix() for p in teacher.rglob("*") if p.is_file())
    assert names == ["README.md", "course.json", "homework/__init__.py", "homework/matmul.py",
                     "homework/mul.py", "homework/sum.py", "tests/test_homework.py"]
    assert sorted(p.relative_to(student).as_posix() for p in student.rglob("*")
                  if p.is_file()) == names
    public = {"minigrad_course": 2, "package": "homework", "lang": "en",
              "ops": ["mul", "sum", "matmul"], "points": POINTS, "speed_factor": 50.0}
    assert read_manifest(student) == public
    secret = read_manifest(teacher)["hidden_seed"]  # (the hidden cases: the teacher's only)
    assert read_manifest(teacher) == {**public, "hidden_seed": secret}
    assert isinstance(secret, int) and str(secret) not in (student / "course.json").read_text()

    solution = (teacher / "homework/mul.py").read_text()
    stub = (student / "homework/mul.py").read_text()
    assert BEGIN in solution and "return a.array * b.array" in solution
    assert BEGIN not in stub and END not in stub and "a.array * b.array" not in stub
    assert stub.count("raise NotImplementedError('your code here')") == 2
    # the stub keeps the docstrings: the maths, the shapes, the broadcasting to undo
    for text in ("d out/da = b", "broadcast together", "sum_to_size", "def backward(ctx, grad)"):
        assert text in stub
    for path in student.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")  # the student's copy is valid Python
    readme = (student / "README.md").read_text()
    assert "| `homework/matmul.py` | `MatMul` | The matrix product a @ b. |" in readme
    assert "python -m minigrad course grade ." in readme


def test_the_chinese_assignment_is_written_in_chinese(tmp_path: Path) -> None:
    _, student = new_assignment(tmp_path / "hw", "mul,softmax", lang="zh")
    readme = (student / "README.md").read_text()
    assert readme.startswith("# 作业：写出反向传播")
    assert len(re.findall(r"[\u4e00-\u9fff]", readme)) > 400
    # no English prose left in it: only code, file names and identifiers
    prose = re.sub(r"`[^`]*`|```.*?```|\|[^\n]*\||\(.*?\)", "", readme, flags=re.S)
    assert not re.search(r"\b(the|and|with|your|each)\b", prose), prose
    stub = (student / "homework/softmax.py").read_text()
    assert "沿 `dim` 这一维的 softmax" in stub and "在这里写你的代码" in stub
    assert all(len(line) <= 100 for line in stub.splitlines())


def test_strip_solutions_replaces_each_region_at_its_indentation() -> None:
    text = f"def f():\n    {BEGIN}\n    return 1\n    {END}\n\nx = 2\n"
    assert strip_solutions(text) == ("def f():\n    raise NotImplementedError('your code "
                                     "here')\n\nx = 2\n")


@pytest.mark.parametrize("text, message", [
    (f"{BEGIN}\n{BEGIN}\n{END}\n", "f.py:2: ### BEGIN SOLUTION inside the region opened at "
                                   "line 1 (regions do not nest)"),
    (f"x = 1\n{END}\n", "f.py:2: ### END SOLUTION without a ### BEGIN SOLUTION before it"),
    (f"{BEGIN}\nx = 1\n", "f.py:1: the ### BEGIN SOLUTION opened here is never closed"),
])
def test_unbalanced_markers_are_refused_with_their_line(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        strip_solutions(text, "f.py")
    assert str(info.value) == message


@pytest.mark.parametrize("argv, message", [
    (["--ops", "mul,foo"], "error: unknown op foo; the catalogue has: add, sub, mul"),
    (["--ops", "mul,mul"], "error: op named twice: mul"),
    (["--ops", ","], "error: no op named: give a comma-separated list"),
])
def test_course_new_refuses_wrong_ops(tmp_path: Path, capsys: pytest.CaptureFixture,
                                      argv: list[str], message: str) -> None:
    assert main(["course", "new", str(tmp_path / "hw"), *argv]) == 2
    assert capsys.readouterr().err.startswith(message)
    assert not (tmp_path / "hw").exists()


def test_course_new_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "hw").mkdir()
    (tmp_path / "hw/notes.txt").write_text("mine")
    assert main(["course", "new", str(tmp_path / "hw")]) == 2
    assert "already exists and is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "hw").iterdir()] == ["notes.txt"]


def test_a_folder_that_is_not_an_assignment_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="has no course.json"):
        read_manifest(tmp_path)
    (tmp_path / "course.json").write_text(json.dumps({"minigrad_course": 1, "ops": ["foo"],
                                                      "lang": "en"}))
    with pytest.raises(ValueError, match="unknown op foo"):
        read_manifest(tmp_path)
    for manifest, message in [
        ({"points": {"forward": -1}}, "points.forward must be a whole number of points"),
        ({"points": {"pytorch": 1}}, "points: unknown check 'pytorch'"),
        ({"speed_factor": 0.5}, "speed_factor must be a number of at least 1"),
        ({"ops": []}, "ops is empty"),
        ({"custom_ops": {"cube": {"class": "Cube", "kind": "cubic", "signature": "x"}}},
         "custom op cube: kind must be one of"),
    ]:
        (tmp_path / "course.json").write_text(json.dumps(
            {"minigrad_course": 2, "ops": ["mul"], "lang": "en", **manifest}))
        with pytest.raises(ValueError, match=re.escape(message)):
            read_manifest(tmp_path)
    (tmp_path / "course.json").write_text("{")
    with pytest.raises(ValueError, match="is not valid JSON"):
        read_manifest(tmp_path)


def test_select_keeps_the_order_given() -> None:
    assert [op.name for op in select("sum,mul")] == ["sum", "mul"]
    assert len(select(None)) == len(OPS)


def test_chinese_lines_wrap_by_width_and_after_punctuation() -> None:
    text = "形状：a 和 b 按 numpy 的规则广播，out 是广播后的形状。每个梯度必须和它自己的输入同形。"
    lines = wrap(text, 40, "  ")
    assert lines == ["  形状：a 和 b 按 numpy 的规则广播，out",
                     "  是广播后的形状。每个梯度必须和它自己",
                     "  的输入同形。"]
    assert all(len(line) + len(re.findall(r"[\u4e00-\uffef]", line)) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines) == text.replace("out 是", "out是")
    assert wrap("one two three", 9) == ["one two", "three"]
    assert wrap("每一项都要乘上 grad）。", 22) == ["每一项都要乘上 grad）。"]  # never "。" alone


def test_release_makes_the_student_copy_again_after_an_edit(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    teacher, student = new_assignment(tmp_path / "hw", "exp")
    path = teacher / "homework/exp.py"
    path.write_text(path.read_text().replace("    @staticmethod\n    def backward",
                                             f"    # a hint for everyone\n    {BEGIN}\n"
                                             "    SECRET = 1\n"
                                             f"    {END}\n\n    @staticmethod\n    def backward"))
    assert main(["course", "release", str(teacher), str(tmp_path / "v2")]) == 0
    assert "hand this one out" in capsys.readouterr().out
    again = (tmp_path / "v2/homework/exp.py").read_text()
    assert "# a hint for everyone" in again and "SECRET" not in again
    assert again.count("raise NotImplementedError") == 3
    assert (tmp_path / "v2/README.md").read_text() == (student / "README.md").read_text()
    assert main(["course", "release", str(teacher), str(student)]) == 2  # never overwrites
    assert "already exists" in capsys.readouterr().err


def test_release_keeps_the_teachers_grading_folder_and_seed(tmp_path: Path) -> None:
    teacher, _ = new_assignment(tmp_path / "hw", "exp")
    (teacher / "grading").mkdir()
    (teacher / "grading/checks.py").write_text("def check_x(student, reference):\n    pass\n")
    student = release(teacher, tmp_path / "v2")
    assert not (student / "grading").exists()
    assert "hidden_seed" not in read_manifest(student)
