"""The expected answers, computed once per batch before any submission is graded.

For each op: the cases of every check (cases.py), a random `grad` for each (and directions for
the second derivative), and what the reference gives for them: minigrad's own op for the
catalogue (it is itself tested against PyTorch), the teacher's solution for a lecturer's op.
The speed check's reference is the teacher's solution (solutions.py), timed in the grader's
process.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.course.cases import Case, draw, speed_case
from minigrad.course.entry import Op

CASE_CHECKS = ("forward", "backward", "shapes", "second", "stability")
TIMED = 0.01  # seconds the solution's timed run should take (repeated to get there)


@dataclass
class Prepared:
    """One op, ready to grade: its cases with their expected answers, and the speed bar."""

    op: Op
    cases: dict[str, list[Case]]
    speed: Case | None = None
    repeat: int = 1
    reference_seconds: tuple[float, float] | None = None  # (wall, CPU) for `repeat` vjps


def prepare(op: Op, secret: int | None, reference: Any, timer: Any = None) -> Prepared:
    """`reference` answers the cases (a BuiltinRunner); `timer(case, repeat)` times the
    solution, (wall, CPU) seconds (or is None: no speed check), and sets the speed bar."""
    cases: dict[str, list[Case]] = {}
    for check in CASE_CHECKS:
        if check == "shapes" and op.shapes_check is None:
            continue
        if check == "second" and not op.second:
            continue
        drawn = draw(op, check, secret)
        cases[check] = fill(op, check, drawn, reference)
    prepared = Prepared(op, cases)
    if timer is not None:
        prepared.speed = fill(op, "speed", [speed_case(op)], reference)[0]
        once, _ = timer(prepared.speed, 1)
        prepared.repeat = max(1, min(1000, math.ceil(TIMED / max(once, 1e-6))))
        runs = [timer(prepared.speed, prepared.repeat) for _ in range(3)]
        prepared.reference_seconds = (min(w for w, _ in runs), min(c for _, c in runs))
    return prepared


def fill(op: Op, check: str, cases: list[Case], reference: Any) -> list[Case]:
    """`cases` with grad, directions and the reference's answers; the cases the reference
    cannot answer (a zero-size case an op does not take) are left out."""
    outs = reference.run("forward", cases)
    kept = []
    for i, (case, answer) in enumerate(zip(cases, outs)):
        if answer.arrays is None:
            continue
        out = answer.arrays[0]
        rng = np.random.default_rng(zlib.crc32(f"{op.name}:{check}:{i}".encode()))
        case.grad = rng.uniform(-1, 1, out.shape).astype(out.dtype)
        case.directions = tuple(rng.uniform(-1, 1, a.shape).astype(a.dtype)
                                for a in case.arrays)
        case.expected["out"] = out
        kept.append(case)
    if check == "forward":
        return kept
    kind = "vjp2" if check == "second" else "vjp"
    done = []
    for case, answer in zip(kept, reference.run(kind, kept)):
        if answer.arrays is None:
            continue
        if kind == "vjp":
            case.expected["grads"] = answer.arrays[1:]
        else:
            case.expected["second"] = answer.arrays
        done.append(case)
    return done
