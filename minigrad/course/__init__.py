"""The coursework kit: make an assignment, grade a submission (`python -m minigrad course`).

- `new_assignment(DIR, ops, lang)`: the teacher's copy (solutions between markers) and the
  student's (stubs), with a README, the tests and course.json (make.py);
- `grade(DIR)`: every op checked in a sandboxed child process (sandbox.py, checks.py), the
  feedback (feedback.py) and the reports for Gradescope and JUnit (reports.py).
"""

from __future__ import annotations

from minigrad.course.grading import GradeReport, grade
from minigrad.course.make import new_assignment, read_manifest, strip_solutions

__all__ = ["GradeReport", "grade", "new_assignment", "read_manifest", "strip_solutions"]
