"""The coursework kit: make an assignment, grade submissions (`python -m minigrad course`).

- `new_assignment(DIR, ops, lang)`: the teacher's copy (solutions between markers, the hidden
  cases' seed) and the student's (stubs), with a README, the tests and course.json (make.py);
- `grade(SUBMISSION, teacher=TEACHER)`: every op checked from the grader's process against the
  submission running in sandboxed children (sandbox.py, checks.py); the feedback (render.py)
  and the reports for Gradescope and JUnit (reports.py); `Grader` for many submissions
  (`course grade-all`, batch.py) and `course gradescope` (gradescope.py).

The names below are imported when first used: a sandboxed child imports only the modules it
runs (child.py and what it needs), so none of the grader's code, nor the catalogue of
solutions, is in its memory.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {"GradeReport": "grading", "Grader": "grading", "grade": "grading",
          "new_assignment": "make", "strip_solutions": "make", "load_course": "manifest",
          "read_manifest": "manifest"}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"minigrad.course.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'minigrad.course' has no attribute {name!r}")
