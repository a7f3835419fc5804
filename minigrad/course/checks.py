"""The checks of one op, run from the grader's process against a submission's children.

Every check compares what the student's op returned with the reference's answers for the
same cases (reference.py), with tolerances set by dtype; nothing the child says is believed
beyond the arrays it sends back. In order:

- forward: the output values (visible and hidden cases), in the "forward" child where none of
  minigrad's own ops work;
- backward: the gradients of every input for a random `grad` (plain shapes), in the
  "backward" child where none of minigrad's own backwards work;
- broadcasting / dim / batched: the same on the kind's harder shapes;
- second: the derivative of each gradient, in a child where everything works (it counts only
  when backward passed, which it builds on);
- stability (hidden): output and gradients at extreme values: finite where the reference is;
- speed: the vjp of a large case, timed here, within `speed_factor` times the reference's.

A check whose checks it builds on failed is "not judged" and earns nothing (entry.BUILDS_ON).
Each result is a plain dict: check, status (passed, failed, not_judged, hidden), and for a
failure its reason and details, and the example case (feedback.py words it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.course.cases import Case, simplest
from minigrad.course.entry import BUILDS_ON, HIDDEN_CHECKS, Op
from minigrad.course.reference import Prepared, fill
from minigrad.course.runner import Answer, ChildRunner, Stopped

TOLERANCE = {"float64": (1e-11, 1e-13), "float32": (1e-4, 1e-6)}  # rtol, atol (times scale)
STABLE = (1e-6, 1e-9)
SHOWN = 24  # values of an input the feedback shows in full
WALL_SLACK = 10.0  # the speed check's wall-time guard, in units of its (CPU) limit


def run_checks(prepared: Prepared, student: ChildRunner, hidden: bool, factor: float,
               reference: Any) -> list[dict[str, Any]]:
    """One result per check of the op. `hidden`: the teacher's grade (hidden cases and
    checks run); `reference` answers the simplified cases of a failure's example."""
    op = prepared.op
    try:
        loaded = student.load("forward")
    except Stopped as stopped:
        return everything_failed(op, stopped.reason, stopped.details)
    if "error" in loaded:
        return everything_failed(op, loaded["error"].get("reason", "import_error"), loaded["error"])
    if loaded.get("apply_overridden"):
        names = [str(n)[:40] for n in loaded["apply_overridden"]][:3]
        return everything_failed(op, "apply_overridden", {"classes": names})
    results: dict[str, dict[str, Any]] = {}
    for check in op.checks:
        failed = [c for c in BUILDS_ON.get(check, ()) if results[c]["status"] != "passed"]
        if check in HIDDEN_CHECKS and not hidden:
            results[check] = {"check": check, "status": "hidden"}
        elif failed:
            results[check] = {"check": check, "status": "not_judged", "builds_on": failed}
        elif check == "speed" and prepared.speed is None:
            results[check] = {"check": check, "status": "skipped", "reason": "no_reference"}
        else:
            try:
                results[check] = _run(check, prepared, student, factor, reference, hidden)
            except Stopped as stopped:
                if check == "forward":
                    return everything_failed(op, stopped.reason, stopped.details)
                results[check] = {"check": check, "status": "failed", "reason": stopped.reason,
                                  **stopped.details}
    return [results[c] for c in op.checks]


def everything_failed(op: Op, reason: str, details: dict[str, Any]) -> list[dict[str, Any]]:
    """Every check failed for one reason (the op could not be run at all)."""
    keep = {k: v for k, v in details.items() if k != "reason"}
    return [{"check": c, "status": "failed", "reason": reason, "whole_op": True, **keep}
            for c in op.checks]


def _run(check: str, prepared: Prepared, student: ChildRunner, factor: float, reference: Any,
         hidden: bool) -> dict[str, Any]:
    if check == "speed":
        return _speed(prepared, student, factor)
    group = "shapes" if check == prepared.op.shapes_check else check
    cases = [c for c in prepared.cases[group] if hidden or not c.hidden]
    kind = {"forward": "forward", "second": "vjp2"}.get(check, "vjp")
    found = _first_failure(check, cases, student.run(kind, cases), prepared.op.inputs)
    if found is None:
        return {"check": check, "status": "passed"}
    case, failure = found
    if not case.hidden and reference is not None and failure.get("reason") != "delegation":
        case, failure = _simpler(prepared.op, check, kind, case, failure, student, reference)
    if check in ("backward", "broadcasting", "dim", "batched") and \
            failure.get("problem") == "value":
        failure = _multiplied(case, failure, student, prepared.op.inputs)
    return {"check": check, "status": "failed", **failure, "example": describe(case,
                                                                             prepared.op)}


def _first_failure(check: str, cases: list[Case], answers: list[Answer],
                   names: tuple[str, ...]) -> tuple[Case, dict[str, Any]] | None:
    for case, answer in zip(cases, answers):
        if answer.error is not None:
            return case, dict(answer.error)
        if answer.arrays is None:  # (not reached: an earlier case stopped the child)
            continue
        failure = judge(check, case, answer.arrays, names)
        if failure is not None:
            return case, failure
    return None


def judge(check: str, case: Case, arrays: list[np.ndarray], names: tuple[str, ...]
          ) -> dict[str, Any] | None:
    """What is wrong with the student's `arrays` for `case` under `check`, or None."""
    extreme = check == "stability"
    if check == "forward":
        return compare("forward_value", arrays[0], case.expected["out"], extreme)
    if check == "second":
        n = len(case.arrays)
        for i in range(n):
            for j in range(n + 1):
                found = compare("second_value", arrays[i * (n + 1) + j],
                                case.expected["second"][i * (n + 1) + j], False,
                                gradient_of=names[i], input=(*names, "grad")[j])
                if found:
                    return found
        return None
    if extreme:
        found = compare("stability_value", arrays[0], case.expected["out"], True)
        if found:
            return found
    for i, (got, expected) in enumerate(zip(arrays[1:], case.expected["grads"])):
        found = compare("stability_grad" if extreme else "grad_value", got, expected,
                        extreme, input=names[i])
        if found:
            return found
    return None


def compare(reason: str, got: np.ndarray, expected: np.ndarray, extreme: bool,
            **details: Any) -> dict[str, Any] | None:
    """None when `got` matches `expected`: same shape and dtype, every element close (where
    the reference is NaN, anything goes); else what differs, and where."""
    if got.shape != expected.shape:
        return {"reason": reason, "problem": "shape", "got": list(got.shape),
                "expected": list(expected.shape), **details}
    if got.dtype != expected.dtype:
        return {"reason": reason, "problem": "dtype", "got": str(got.dtype),
                "expected": str(expected.dtype), **details}
    rtol, atol = STABLE if extreme else TOLERANCE.get(str(expected.dtype), (1e-9, 1e-12))
    finite = np.isfinite(expected)
    scale = float(np.max(np.abs(expected[finite]), initial=1.0))
    with np.errstate(all="ignore"):
        close = np.abs(got.astype(np.float64) - expected) <= atol * scale + rtol * np.abs(
            expected.astype(np.float64))
    bad = ~(close | (got == expected) | np.isnan(expected))
    if not np.any(bad):
        return None
    where = np.unravel_index(int(np.argmax(bad)), bad.shape)
    return {"reason": reason, "problem": "value", "element": [int(i) for i in where],
            "got": _number(got[where]), "expected": _number(expected[where]), **details}


def _number(v: Any) -> float | str:
    v = float(v)
    return v if np.isfinite(v) else str(v)


def _simpler(op: Op, check: str, kind: str, case: Case, failure: dict[str, Any],
             student: ChildRunner, reference: Any) -> tuple[Case, dict[str, Any]]:
    """A simpler failing example where one is found: the simplest values of each input's
    domain, or the values rounded to one decimal (the shapes and settings kept)."""
    candidates = []
    for values in ([simplest(a.shape, op.domain(i)).astype(a.dtype)
                    for i, a in enumerate(case.arrays)],
                   [np.asarray(np.round(a, 1)) for a in case.arrays]):
        if all(op.domain(i).contains(v) for i, v in enumerate(values)) and \
                any(not np.array_equal(v, a) for v, a in zip(values, case.arrays)):
            candidates.append(Case(tuple(values), dict(case.params)))
    group = "shapes" if check == op.shapes_check else check
    candidates = fill(op, group, candidates, reference)
    if not candidates:
        return case, failure
    try:
        answers = student.run(kind, candidates)
    except Stopped:
        return case, failure
    for candidate, answer in zip(candidates, answers):
        if answer.error is not None and answer.error.get("reason") == failure.get("reason"):
            return candidate, dict(answer.error)
        found = judge(check, candidate, answer.arrays, op.inputs) \
            if answer.arrays is not None else None
        if found is not None and found.get("reason") == failure.get("reason"):
            return candidate, found
    return case, failure


def _multiplied(case: Case, failure: dict[str, Any], student: ChildRunner,
                names: tuple[str, ...]) -> dict[str, Any]:
    """A wrong gradient that stays when grad is 0: backward does not multiply by grad."""
    zero = Case(case.arrays, case.params, grad=np.zeros_like(case.grad))
    try:
        (answer,) = student.run("vjp", [zero])
    except Stopped:
        return failure
    if answer.arrays is not None and any(np.any(g != 0) for g in answer.arrays[1:]):
        i = next(i for i, g in enumerate(answer.arrays[1:]) if np.any(g != 0))
        return {"reason": "not_multiplied", "input": names[i]}
    return failure


def _speed(prepared: Prepared, student: ChildRunner, factor: float) -> dict[str, Any]:
    """At most three timed runs of the speed case, passed at the first whose CPU seconds are
    within `factor` times the solution's (CPU time, the kernel's count, hardly changes on a
    busy machine; where it cannot be read, wall time stands in) and whose wall time is within
    WALL_SLACK times that (work handed to another process is no speed-up). A run past twice
    the limit is stopped there, and not tried again."""
    wall_bar, cpu_bar = prepared.reference_seconds
    best, stopped = None, False
    for _ in range(3):
        try:
            wall, cpu, answer = student.time(prepared.speed, prepared.repeat,
                                             factor * wall_bar * WALL_SLACK + 2.0,
                                             2 * factor * cpu_bar + 0.2)
        except Stopped as halted:
            if halted.reason != "timeout":
                raise
            best, stopped = 2 * factor, True
            break
        if answer.error is not None:
            return {"check": "speed", "status": "failed", **answer.error}
        wrong = judge("backward", prepared.speed, answer.arrays, prepared.op.inputs) \
            if answer.arrays is not None else {"reason": "crashed"}
        if wrong is not None:
            return {"check": "speed", "status": "failed", **wrong,
                    "example": describe(prepared.speed, prepared.op)}
        ratio = cpu / cpu_bar if cpu is not None else wall / wall_bar
        best = ratio if best is None else min(best, ratio)
        if ratio <= factor and wall <= factor * wall_bar * WALL_SLACK:
            return {"check": "speed", "status": "passed"}
    shape = [list(a.shape) for a in prepared.speed.arrays]
    return {"check": "speed", "status": "failed", "reason": "slow", "ratio": round(best),
            "factor": factor, "shapes": shape, "stopped": stopped}


def describe(case: Case, op: Op) -> dict[str, Any]:
    """The case as the feedback shows it: each input's shape and values (the first few of a
    large one), and the settings."""
    inputs = []
    with np.printoptions(precision=4, suppress=True, linewidth=90):
        for name, a in zip(op.inputs, case.arrays):
            values = np.array2string(a) if a.size <= SHOWN else \
                np.array2string(a.ravel()[:6])[:-1] + f" ...] ({a.size} values)"
            inputs.append({"name": name, "shape": list(a.shape), "values": values,
                           "dtype": str(a.dtype)})
    params = {k: list(v) if isinstance(v, tuple) else v for k, v in case.params.items()}
    return {"inputs": inputs, "params": params, "hidden": case.hidden}
