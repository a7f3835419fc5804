"""`course grade-all`: a folder of submissions -> one results file per student and a CSV.

    python -m minigrad course grade-all SUBMISSIONS --teacher TEACHER --csv scores.csv

Each folder in SUBMISSIONS is one student's submission (its name is the student's). The
expected answers are computed once; then `workers` processes, each with its own sandbox
session, grade the students in parallel. Every finished student is written at once to
RESULTS/<student>.json (Gradescope's results, the feedback, the per-op points, and the
fingerprints of the teacher's copy and of the submission), so a run that stops can be started
again: a student whose results file matches both fingerprints is not graded again. The CSV
(one row per student: total, maximum, each op's points, status) is made from those files
at the end, and a summary is printed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import multiprocessing
import os
import statistics
import time
from pathlib import Path
from typing import Any

from minigrad.course import render, reports
from minigrad.course.grading import Grader, locate_package
from minigrad.course.manifest import Course, load_course
from minigrad.course.sandbox import Limits

_grader: Grader | None = None  # (one per worker process)


def results_folder(csv_path: Path) -> Path:
    """Where the per-student results go by default: beside the CSV, `scores-results/`."""
    return csv_path.with_name(csv_path.stem + "-results")


def fingerprint(folder: Path, course: Course) -> str:
    """The submission's package files, as the grader will read them."""
    package, _ = locate_package(folder, course.package, [o.name for o in course.ops])
    h = hashlib.sha256()
    for path in sorted(package.glob("*.py")) if package else []:
        if path.is_file() and not path.is_symlink():
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def grade_all(submissions: Path, teacher: Path, csv_path: Path, results: Path | None = None,
              workers: int | None = None, limits: Limits | None = None,
              lang: str | None = None, say: Any = print, timing: bool = True
              ) -> dict[str, Any]:
    """Grade every submission; write the results files and the CSV; return the summary."""
    started = time.monotonic()
    if not submissions.is_dir():
        raise FileNotFoundError(f"{submissions} is not a folder of submissions")
    course = load_course(teacher, teacher=True)
    results = results or results_folder(csv_path)
    results.mkdir(parents=True, exist_ok=True)
    students = sorted(p for p in submissions.iterdir()  # (never a link: it could point at
                      if p.is_dir() and not p.is_symlink()  # the teacher's copy)
                      and not p.name.startswith("."))
    teacher_digest = course.digest()
    todo, done = [], 0
    for path in students:
        if _up_to_date(results / f"{path.name}.json", teacher_digest, fingerprint(path, course)):
            done += 1
        else:
            todo.append(path)
    lang = lang or course.lang
    say(render.word("batch_start", lang, n=len(students), done=done, todo=len(todo)))
    isolation: dict[str, Any] = {}
    if todo:
        with Grader(course, limits=limits) as main:
            prepared = main.prepared  # (the expected answers, made once; the session ends)
            isolation = main.session.isolation()
        count = max(1, min(workers or os.cpu_count() or 1, len(todo)))
        context = multiprocessing.get_context("fork")
        slots = context.Queue()
        for i in range(count):
            slots.put(i + 1)
        with context.Pool(count, _start, (course, limits, prepared, slots)) as pool:
            for n, row in enumerate(pool.imap_unordered(_grade_one, [(p, lang) for p in todo]),
                                    1):
                row.update(teacher_digest=teacher_digest)
                _write_json(results / f"{row['student']}.json", row)
                say(f"  [{n}/{len(todo)}] {row['student']}: {row['score']}/{row['max_score']}"
                    + (f" ({row['status']})" if row["status"] != "graded" else ""))
    rows = [json.loads((results / f"{p.name}.json").read_text(encoding="utf-8"))
            for p in students if (results / f"{p.name}.json").is_file()]
    write_csv(csv_path, course, rows)
    summary = summarize(rows, time.monotonic() - started)
    say(summary_text(summary, csv_path, results, timing, lang))
    if timing and isolation:
        say(render.isolation_text(isolation, lang))
    return summary


def _up_to_date(path: Path, teacher_digest: str, submission_digest: str) -> bool:
    try:
        row = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(row, dict) and row.get("teacher_digest") == teacher_digest and \
        row.get("submission_digest") == submission_digest


def _start(course: Course, limits: Limits, prepared: Any, slots: Any) -> None:
    global _grader
    _grader = Grader(course, limits=limits, slot=slots.get(), prepared=prepared)


def _grade_one(job: tuple[Path, str | None]) -> dict[str, Any]:
    path, lang = job
    course = _grader.course
    row: dict[str, Any] = {"student": path.name,
                           "submission_digest": fingerprint(path, course)}
    try:
        report = _grader.grade(path, lang)
    except Exception as exc:  # noqa: BLE001  (one broken submission never stops the batch)
        ops = {op.name: [0, sum(course.points[op.name].values())] for op in _grader.ops}
        return {**row, "status": "error", "message": f"{type(exc).__name__}: {exc}"[:500],
                "score": 0, "max_score": sum(m for _, m in ops.values()), "ops": ops}
    status = "no_package" if "no_package" in report.notes else "graded"
    return {**row, "status": status, "score": report.score, "max_score": report.max_score,
            "ops": {g.op.name: [g.score, g.max_score] for g in report.ops},
            "seconds": round(report.seconds, 3), "results": reports.gradescope(report),
            "feedback": report.text(reveal=True)}


def _write_json(path: Path, row: dict[str, Any]) -> None:
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(row, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    partial.replace(path)


def write_csv(path: Path, course: Course, rows: list[dict[str, Any]]) -> None:
    """One row per student: name, total, maximum, each op's points, status."""
    ops = [op.name for op in course.ops]
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["student", "score", "max_score", *ops, "status"])
        for row in sorted(rows, key=lambda r: r["student"]):
            out.writerow([_cell(row["student"]), row["score"], row["max_score"],
                          *[row["ops"].get(op, [0])[0] for op in ops], row["status"]])
    partial.replace(path)


def _cell(text: str) -> str:
    """A name a spreadsheet will not read as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def summarize(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    scores = [r["score"] for r in rows]
    top = max((r["max_score"] for r in rows), default=0)
    return {"students": len(rows), "mean": statistics.fmean(scores) if scores else 0.0,
            "median": statistics.median(scores) if scores else 0.0, "max_score": top,
            "full_marks": sum(r["score"] == r["max_score"] for r in rows),
            "not_graded": sum(r["status"] != "graded" for r in rows),
            "seconds": round(seconds, 1)}


def summary_text(s: dict[str, Any], csv_path: Path, results: Path, timing: bool,
                 lang: str = "en") -> str:
    text = render.word("batch_summary", lang, students=s["students"], mean=s["mean"],
                       median=s["median"], top=s["max_score"], full=s["full_marks"],
                       not_graded=s["not_graded"], csv=csv_path, results=results)
    return text + ("\n" + render.word("batch_time", lang, seconds=s["seconds"])
                   if timing else "")
