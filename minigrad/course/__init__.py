"""The coursework kit: make an assignment, grade submissions (`python -m minigrad course`).

- `new_assignment(DIR, ops, lang)`: the teacher's copy (solutions between markers, the hidden
  cases' seed) and the student's (stubs), with a README, the tests and course.json (make.py);
- `grade(SUBMISSION, teacher=TEACHER)`: every op checked from the grader's process against the
  submission running in sandboxed children (sandbox.py, checks.py); the feedback (render.py)
  and the reports for Gradescope and JUnit (reports.py); `Grader` for many submissions
  (`course grade-all`, batch.py) and `course gradescope` (gradescope.py).
"""

from __future__ import annotations

from minigrad.course.grading import Grader, GradeReport, grade
from minigrad.course.make import new_assignment, strip_solutions
from minigrad.course.manifest import load_course, read_manifest

__all__ = ["GradeReport", "Grader", "grade", "load_course", "new_assignment", "read_manifest",
           "strip_solutions"]
