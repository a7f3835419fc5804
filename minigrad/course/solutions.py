"""The reference solutions, run in the grader's own process: the teacher's (their copy's
`homework/<op>.py`, trusted: it is the teacher's code) or, in a student's own run, the
catalogue's. A lecturer's op gets its right answers from its solution class; every op's
speed check is timed against its solution here: CPU seconds (which a busy machine hardly
changes), and wall seconds as a guard."""

from __future__ import annotations

import time
import types
from pathlib import Path
from typing import Any

import numpy as np

import minigrad
from minigrad.course import make
from minigrad.course.cases import Case
from minigrad.course.manifest import Course


def load(course: Course, op: Any) -> type | None:
    """`op`'s solution class, or None (a lecturer's op in a student's copy: no solution)."""
    path = course.folder / course.package / f"{op.name}.py"
    if course.teacher and path.is_file():
        source, where = path.read_text(encoding="utf-8"), str(path)
    elif op.reference is not None:
        source, where = make.op_source(op, course.lang), f"<the catalogue's {op.name}>"
    else:
        return None
    module = types.ModuleType(f"minigrad_course_solution_{op.name}")
    module.__file__ = where
    exec(compile(source, where, "exec"), module.__dict__)  # noqa: S102  (the teacher's code)
    cls = getattr(module, op.cls, None)
    if not (isinstance(cls, type) and issubclass(cls, minigrad.Function)):
        raise ValueError(f"{Path(where).name} has no class {op.cls}: the teacher's solution "
                         f"of {op.name} is needed to grade it")
    return cls


def seconds(cls: type, case: Case, repeat: int) -> tuple[float, float]:
    """Wall and CPU seconds for `repeat` forwards and backwards of `cls` on `case`, here."""
    started, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        xs = [minigrad.tensor(np.array(a), requires_grad=True) for a in case.arrays]
        out = cls.apply(*xs, **case.params)
        minigrad.autograd.grad([out], xs, [minigrad.tensor(case.grad)], allow_unused=True)
    return time.perf_counter() - started, time.process_time() - cpu
