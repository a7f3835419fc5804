"""A lecturer's own checks: functions in the teacher's `grading/checks.py`, run by the grader
(in its own process: it is the teacher's code) on a student's op and on the reference.

    # grading/checks.py, in the teacher's copy (never released to students)
    import numpy as np

    def check_zeros(student, reference):
        '''mul by zeros gives zeros, and so do its gradients'''
        a, b = np.zeros((2, 3)), np.ones((2, 3))
        assert np.all(student.forward(a, b) == 0), "0 * 1 should be 0"

and in course.json: "custom_checks": [{"name": "zeros", "op": "mul",
"function": "check_zeros", "points": 1, "builds_on": ["forward"]}].

`student` and `reference` answer `forward(*arrays, **settings)` and
`gradients(*arrays, grad=None, **settings)` (one array per input; grad defaults to ones).
The check passes when the function returns, fails on an AssertionError (its message is
the feedback) or when the student's op raised. Any other error is the check's own: it is
reported to the teacher and the check is left out of the score.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

import numpy as np

from minigrad.course.cases import Case
from minigrad.course.manifest import GRADING, Course, CustomCheck
from minigrad.course.runner import Stopped


class OpFailed(AssertionError):
    """The op raised (or its process failed) on the arrays a custom check gave it."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(str(error.get("message") or error.get("reason")))
        self.error = error


class Handle:
    """An op as a custom check sees it: forward and gradients on plain arrays."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner

    def forward(self, *arrays: Any, **params: Any) -> np.ndarray:
        case = Case(tuple(np.asarray(a, dtype=np.float64) for a in arrays), params)
        return self._one("forward", case)[0]

    def gradients(self, *arrays: Any, grad: Any = None, **params: Any) -> list[np.ndarray]:
        case = Case(tuple(np.asarray(a, dtype=np.float64) for a in arrays), params)
        if grad is None:
            grad = np.ones_like(self.forward(*arrays, **params))
        case.grad = np.asarray(grad, dtype=np.float64)
        return self._one("vjp", case)[1:]

    def _one(self, kind: str, case: Case) -> list[np.ndarray]:
        try:
            (answer,) = self.runner.run(kind, [case])
        except Stopped as stopped:
            raise OpFailed({"reason": stopped.reason, **stopped.details}) from None
        if answer.arrays is None:
            raise OpFailed(answer.error or {"reason": "crashed"})
        return answer.arrays


def load_checks(course: Course) -> ModuleType | None:
    """The teacher's grading/checks.py, when the course has custom checks and the copy has
    the file (a student's copy has not: those checks are then the teacher's only)."""
    path = course.folder / GRADING / "checks.py"
    if not course.custom_checks or not course.teacher or not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("minigrad_course_checks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = [c.function for c in course.custom_checks if not hasattr(module, c.function)]
    if missing:
        raise ValueError(f"{path} has no function {', '.join(missing)} (named in course.json)")
    return module


def not_run(checks: list[CustomCheck], reason: str = "") -> list[dict[str, Any]]:
    """The custom checks of an op that could not be graded (or not here)."""
    if reason:
        return [{"check": c.name, "status": "failed", "reason": reason, "whole_op": True}
                for c in checks]
    return [{"check": c.name, "status": "hidden"} for c in checks]


def run(checks: list[CustomCheck], module: ModuleType | None, results: list[dict[str, Any]],
        student: Any, reference: Any) -> list[dict[str, Any]]:
    """Each custom check's result, after the op's built-in `results`; `reference` runs the
    right op (or is None)."""
    if module is None:
        return not_run(checks)
    status = {r["check"]: r["status"] for r in results}
    found = []
    for check in checks:
        failed = [c for c in check.builds_on if status.get(c) != "passed"]
        if failed:
            found.append({"check": check.name, "status": "not_judged", "builds_on": failed})
            continue
        found.append(_run_one(check, getattr(module, check.function), student, reference))
    return found


def _run_one(check: CustomCheck, function: Any, student: Any, reference: Any
             ) -> dict[str, Any]:
    try:
        function(Handle(student), Handle(reference) if reference is not None else None)
    except OpFailed as failed:
        return {"check": check.name, "status": "failed", **failed.error}
    except AssertionError as exc:
        return {"check": check.name, "status": "failed", "reason": "custom",
                "message": str(exc)[:500]}
    except Exception as exc:  # noqa: BLE001  (the teacher's check itself is broken)
        return {"check": check.name, "status": "skipped", "reason": "check_error",
                "message": f"{type(exc).__name__}: {exc}"[:500]}
    return {"check": check.name, "status": "passed"}
