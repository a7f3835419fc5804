"""`course grade-all`: a class of mixed submissions graded in parallel into a CSV whose sums are
the per-student results files' scores; a second run grades only what changed. (The same class,
300 students, is timed by `python -m tests.course.batch_copies 300 DIR`.)"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from minigrad.__main__ import main
from tests.course.batch_copies import KINDS, OPS, make_class

FULL = {"mul": 7, "div": 7, "exp": 6, "log": 6, "sum": 7, "softmax": 7, "matmul": 7, "relu": 5}
LOST = {"right": {}, "wrong_sign": {"div": 6}, "no_broadcast_sum": {"mul": 1},
        "numpy_backward": {"exp": 1}, "stub": {"log": 6}, "loose_files": {}, "crash": {"relu": 5},
        "endless_loop": {"sum": 7}, "no_package": dict(FULL)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("class")
    teacher, submissions = make_class(root, len(KINDS))
    (submissions / "student999_no_package").mkdir()
    (submissions / "student999_no_package/notes.txt").write_text("I forgot")
    out = root / "scores.csv"
    code = main(["course", "grade-all", str(submissions), "--teacher", str(teacher), "--csv",
                 str(out), "--workers", "2"])
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    return {"code": code, "rows": rows, "root": root, "teacher": teacher,
            "submissions": submissions, "csv": out}


def test_every_student_gets_a_row_whose_points_add_up(graded: dict[str, Any]) -> None:
    assert graded["code"] == 0
    rows = graded["rows"]
    assert [r["student"].split("_", 1)[1] for r in rows] == [*KINDS, "no_package"]
    assert list(rows[0]) == ["student", "score", "max_score", *OPS.split(","), "status"]
    results = graded["root"] / "scores-results"
    for row in rows:
        kind = row["student"].split("_", 1)[1]
        ops = {op: int(row[op]) for op in OPS.split(",")}
        assert ops == {op: FULL[op] - LOST[kind].get(op, 0) for op in FULL}, kind
        data = json.loads((results / f"{row['student']}.json").read_text())
        assert int(row["score"]) == sum(ops.values()) == data["score"]
        assert int(row["max_score"]) == sum(FULL.values()) == data["max_score"]
        assert row["status"] == ("no_package" if kind == "no_package" else "graded")
        if kind != "no_package":
            assert data["results"]["score"] == data["score"]
            assert sum(t["score"] for t in data["results"]["tests"]) == data["score"]


def test_the_feedback_is_kept_per_student(graded: dict[str, Any]) -> None:
    results = graded["root"] / "scores-results"
    loose = json.loads((results / "student005_loose_files.json").read_text())
    assert "note: the files were uploaded without their homework/ folder" in loose["feedback"]
    missing = json.loads((results / "student999_no_package.json").read_text())
    assert "the submission has no homework/ folder, and none of its files (mul.py, div.py" in \
        missing["feedback"]
    loop = json.loads((results / "student007_endless_loop.json").read_text())
    assert "stopped after 5 s, the time limit" in loop["feedback"]


def test_a_second_run_grades_only_what_changed(graded: dict[str, Any],
                                               capsys: pytest.CaptureFixture) -> None:
    argv = ["course", "grade-all", str(graded["submissions"]), "--teacher",
            str(graded["teacher"]), "--csv", str(graded["csv"])]
    capsys.readouterr()
    assert main(argv) == 0
    assert "9 submissions: 9 already graded, 0 to grade" in capsys.readouterr().out
    stub = graded["submissions"] / "student004_stub/homework/log.py"
    shutil.copy(graded["teacher"] / "homework/log.py", stub)  # the student fixed it
    (graded["root"] / "scores-results/student000_right.json").write_text("{")  # (cut short)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "9 submissions: 7 already graded, 2 to grade" in out
    rows = {r["student"]: r for r in csv.DictReader(graded["csv"].open(encoding="utf-8"))}
    assert rows["student004_stub"]["score"] == rows["student000_right"]["score"] == "52"
    assert "9 students: mean" in out and "full marks" in out


def test_a_name_that_looks_like_a_formula_is_quoted(tmp_path: Path) -> None:
    from minigrad.course.batch import write_csv
    from minigrad.course.manifest import load_course

    teacher, _ = make_class(tmp_path, 0)
    write_csv(tmp_path / "s.csv", load_course(teacher),
              [{"student": "=HYPERLINK(1)", "score": 0, "max_score": 52, "ops": {},
                "status": "graded"}])
    assert (tmp_path / "s.csv").read_text().splitlines()[1].startswith("'=HYPERLINK(1)")
