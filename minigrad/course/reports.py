"""The grade as files: Gradescope's results.json and a JUnit XML report.

Gradescope's autograder reads /autograder/results/results.json: the total `score` and
`tests[]`, each with `name`, `score`, `max_score`, `status`, `output` and `visibility`
("visible", or "after_published": shown once the teacher publishes the grades). There is one
test per check of each op; the hidden checks (stability) are "after_published", and so is
one extra test per op that shows the values of the hidden cases it failed on (the visible
tests only say which kind of hidden case failed). CI systems read JUnit XML: one
`<testcase>` per check, `classname` the op. Both are made from a `GradeReport`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from minigrad.course import feedback, render
from minigrad.course.entry import HIDDEN_CHECKS
from minigrad.course.grading import GradeReport, OpGrade

HIDDEN_VISIBILITY = "after_published"


def gradescope(report: GradeReport) -> dict[str, Any]:
    """The Gradescope autograder's results.json."""
    tests = []
    for g in report.ops:
        for c in g.checks:
            if c["status"] == "hidden":
                continue
            points = g.points[c["check"]] if c["status"] != "skipped" else 0
            tests.append({
                "name": f"{g.op.name}: {feedback.check_name(c['check'], report.lang)}",
                "score": points if c["status"] == "passed" else 0, "max_score": points,
                "status": "passed" if c["status"] in ("passed", "skipped") else "failed",
                "output": _output(g, c, report.lang, reveal=False),
                "visibility": HIDDEN_VISIBILITY if c["check"] in HIDDEN_CHECKS else "visible"})
        hidden = [c for c in g.checks if (c.get("example") or {}).get("hidden")
                  and c["check"] not in HIDDEN_CHECKS]
        if hidden:
            tests.append({
                "name": f"{g.op.name}: {render.word('hidden_cases', report.lang)}",
                "score": 0, "max_score": 0, "status": "failed",
                "output": "\n\n".join(_output(g, c, report.lang, reveal=True) for c in hidden),
                "visibility": HIDDEN_VISIBILITY})
    return {"score": report.score, "max_score": report.max_score,
            "execution_time": round(report.seconds, 3),
            "output": report.text(reveal=False), "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests}


def _output(g: OpGrade, c: dict[str, Any], lang: str, reveal: bool) -> str:
    if c["status"] == "passed":
        return render.word("passed", lang)
    lines = render.paragraphs(feedback.check_message(c, g.op, lang), 0)
    example = c.get("example")
    if example and example.get("hidden") and not reveal:
        what = feedback.HIDDEN_CASES[example["hidden"]][lang]
        lines += render.paragraphs(render.word("hidden_kept", lang, what=what), 0)
    else:
        lines += render.example_lines(example, lang)
    return "\n".join(lines)


def junit(report: GradeReport) -> str:
    """JUnit XML: a testsuite of the submission, a testcase per (op, check)."""
    cases = [(g, c) for g in report.ops for c in g.checks]
    failures = sum(c["status"] in ("failed", "not_judged") for _, c in cases)
    skipped = sum(c["status"] in ("hidden", "skipped") for _, c in cases)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0",
              "skipped": str(skipped), "time": f"{report.seconds:.3f}"}
    root = ET.Element("testsuites", name="minigrad course", **counts)
    suite = ET.SubElement(root, "testsuite", name=str(report.folder), **counts)
    for g, c in cases:
        case = ET.SubElement(suite, "testcase", classname=f"course.{g.op.name}",
                             name=c["check"], time=f"{g.seconds / len(g.checks):.3f}")
        message = feedback.check_message(c, g.op, report.lang).splitlines()[0] \
            if c["status"] != "passed" else ""
        if c["status"] in ("failed", "not_judged"):
            failure = ET.SubElement(case, "failure", message=message,
                                    type=f"{c['check']}: 0/{g.points[c['check']]}")
            failure.text = _output(g, c, report.lang, reveal=True)
        elif c["status"] in ("hidden", "skipped"):
            ET.SubElement(case, "skipped", message=message)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") \
        + "\n"
