"""The grade as files: Gradescope's results.json and a JUnit XML report.

Gradescope's autograder reads `score` and `tests[]` (`name`, `score`, `max_score`, `output`,
`status`) from /autograder/results/results.json; CI systems read JUnit XML (one
`<testcase>` per check, `classname` the op). Both are made from a `GradeReport`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from minigrad.course import feedback
from minigrad.course.entry import POINTS
from minigrad.course.grading import GradeReport


def gradescope(report: GradeReport) -> dict[str, Any]:
    """The Gradescope autograder's results.json, one test per op."""
    tests = []
    for g in report.ops:
        output = "\n".join(g.lines(report.lang, report.timeout)) if not g.passed else \
            feedback.say("all_passed", report.lang)
        tests.append({"name": g.op.name, "score": g.score, "max_score": g.max_score,
                      "status": "passed" if g.passed else "failed", "output": output})
    return {"score": report.score, "max_score": report.max_score,
            "execution_time": round(report.seconds, 3),
            "output": report.text(), "tests": tests}


def junit(report: GradeReport) -> str:
    """JUnit XML: a testsuite of the submission, a testcase per (op, check)."""
    cases = [(g, c) for g in report.ops for c in g.checks]
    failures = sum(c["status"] == "failed" for _, c in cases)
    skipped = sum(c["status"] == "skipped" for _, c in cases)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0",
              "skipped": str(skipped), "time": f"{report.seconds:.3f}"}
    root = ET.Element("testsuites", name="minigrad course", **counts)
    suite = ET.SubElement(root, "testsuite", name=str(report.folder), **counts)
    for g, c in cases:
        case = ET.SubElement(suite, "testcase", classname=f"course.{g.op.name}",
                             name=c["check"], time=f"{g.seconds / len(g.checks):.3f}")
        if c["status"] == "failed":
            lines = g.lines(report.lang, report.timeout)
            first = feedback.check_message(c, g.op, report.lang).splitlines()[0] \
                if g.status == "graded" else lines[1].strip()
            failure = ET.SubElement(case, "failure", message=first,
                                    type=f"{c['check']}: 0/{POINTS[c['check']]}")
            failure.text = "\n".join(lines)
        elif c["status"] == "skipped":
            ET.SubElement(case, "skipped", message=feedback.say("no_torch", report.lang))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") \
        + "\n"
