"""Running an op on cases: the student's in sandboxed children (`ChildRunner`), or the
reference in the grader's own process (`BuiltinRunner`, minigrad's built-in op).

Both answer the same questions, one list of cases at a time, with one `Answer` per case:
- forward: the output;
- vjp: the output and one gradient per input, for the case's `grad`;
- vjp2: for each input i, the derivative of sum(gradient_i * direction_i) with respect to
  every input and to grad (the second derivative);
- time: seconds (wall and CPU) for `repeat` vjps of one case, measured from the grader's side.
An answer is the arrays, or `error` (a plain dict the feedback explains), or nothing when the
child stopped at an earlier case's error.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import minigrad
from minigrad.course.cases import Case
from minigrad.course.sandbox import Child, ChildDied, ChildTimeout, Session
from minigrad.course.texts import clean

ROLES = {"forward": "forward", "vjp": "backward", "time": "backward", "vjp2": "second"}


@dataclass
class Answer:
    """What came back for one case: arrays, or an error, or nothing (not reached)."""

    arrays: list[np.ndarray] | None = None
    error: dict[str, Any] | None = None


class Stopped(Exception):
    """The child could not answer at all: `reason` is timeout, crashed or setup."""

    def __init__(self, reason: str, **details: Any) -> None:
        super().__init__(reason)
        self.reason, self.details = reason, details


def arrays_of(kind: str, case: Case) -> list[np.ndarray]:
    if kind == "forward":
        return list(case.arrays)
    if kind == "vjp":
        return [*case.arrays, case.grad]
    return [*case.arrays, case.grad, *case.directions]


def count_of(kind: str, n: int) -> int:
    return {"forward": 1, "vjp": 1 + n, "vjp2": n * (n + 1)}[kind]


class ChildRunner:
    """The student's op, in one sandboxed child per role (spawned when first needed, again
    after a child died). What a child says is only data: checked for its shape here, and
    compared with the reference by the checks."""

    def __init__(self, session: Session, copy: Path, package: str, module: str, cls: str,
                 inputs: tuple[str, ...], timeout: float) -> None:
        self.session, self.copy, self.package = session, copy, package
        self.module, self.cls, self.inputs, self.timeout = module, cls, inputs, timeout
        self.children: dict[str, Child] = {}
        self.loaded: dict[str, dict[str, Any]] = {}
        self.printed, self.dropped = "", 0
        self.sandbox: dict[str, Any] = {}

    def load(self, role: str) -> dict[str, Any]:
        """The child of `role`, started if needed; what it said on loading the class."""
        child = self.children.get(role)
        if child is None or child.ended:
            child = self.session.spawn(role, self.copy, self.package, self.module, self.cls,
                                       self.inputs)
            self.children[role] = child
            reply, _ = self._ask(child, {"kind": "load"}, [], self.timeout)
            self.sandbox = reply.get("sandbox") if isinstance(reply.get("sandbox"),
                                                              dict) else {}
            self.loaded[role] = reply
        return self.loaded[role]

    def run(self, kind: str, cases: list[Case]) -> list[Answer]:
        """Answers for `cases` (kind forward, vjp or vjp2)."""
        child = self._child(ROLES[kind])
        arrays = [a for case in cases for a in arrays_of(kind, case)]
        header = {"kind": kind, "cases": [{"n": len(arrays_of(kind, c)), "params": c.params}
                                          for c in cases]}
        reply, out = self._ask(child, header, arrays, self.timeout)
        return _answers(reply, out, count_of(kind, len(self.inputs)), len(cases))

    def time(self, case: Case, repeat: int, limit: float, cpu_limit: float
             ) -> tuple[float, float | None, Answer]:
        """Wall and CPU seconds for `repeat` vjps of `case`, measured from here (the CPU is
        the kernel's count for the child; None where it cannot be read). Stopped (timeout)
        past `limit` seconds, or `cpu_limit` seconds of CPU."""
        child = self._child(ROLES["time"])
        before, started = child.cpu(), time.perf_counter()
        reply, out = self._ask(child, {"kind": "time", "params": case.params,
                                       "repeat": repeat}, arrays_of("vjp", case), limit,
                               cpu_limit)
        seconds, after = time.perf_counter() - started, child.cpu()
        cpu = after - before if before is not None and after is not None else None
        return seconds, cpu, _answers(reply, out, count_of("vjp", len(self.inputs)), 1)[0]

    def _child(self, role: str) -> Child:
        loaded = self.load(role)
        if "error" in loaded:
            raise Stopped("load", **loaded["error"])
        return self.children[role]

    def _ask(self, child: Child, header: dict[str, Any], arrays: list[np.ndarray],
             timeout: float, cpu_limit: float | None = None
             ) -> tuple[dict[str, Any], list[np.ndarray]]:
        try:
            reply, out = child.request(header, arrays, timeout, cpu_limit)
        except ChildTimeout:
            raise Stopped("timeout", limit=timeout) from None
        except ChildDied as died:
            raise Stopped("crashed", **{k: v for k, v in died.status.items()
                                        if k in ("signal", "exit_code", "message")}) from None
        printed = reply.get("printed")
        if isinstance(printed, dict) and len(self.printed) < 2000:
            self.printed += clean(str(printed.get("text", "")))[:2000 - len(self.printed)]
            self.dropped = int(printed.get("dropped") or 0) if \
                isinstance(printed.get("dropped"), int) else 0
        return reply, out

    def close(self) -> None:
        for child in self.children.values():
            child.end()
        self.children.clear()


def _answers(reply: dict[str, Any], out: list[np.ndarray], count: int, n: int) -> list[Answer]:
    """The child's reply as one Answer per case; a reply that does not add up is a crash."""
    results = reply.get("results")
    if "error" in reply and isinstance(reply["error"], dict):
        raise Stopped("load", **reply["error"])
    if not isinstance(results, list) or len(results) > n:
        raise Stopped("crashed", message="its answer did not come back whole")
    answers, at = [], 0
    for result in results:
        if not isinstance(result, dict):
            raise Stopped("crashed", message="its answer did not come back whole")
        if isinstance(result.get("error"), dict):
            answers.append(Answer(error=result["error"]))
            continue
        if result.get("count") != count or at + count > len(out):
            raise Stopped("crashed", message="its answer did not come back whole")
        answers.append(Answer(arrays=list(out[at:at + count])))
        at += count
    return answers + [Answer() for _ in range(n - len(answers))]


class BuiltinRunner:
    """minigrad's own op (the catalogue's `reference`), run in the grader's process."""

    def __init__(self, reference: Any, inputs: tuple[str, ...]) -> None:
        self.reference, self.inputs = reference, inputs

    def run(self, kind: str, cases: list[Case]) -> list[Answer]:
        answers = []
        for case in cases:
            try:
                with np.errstate(all="ignore"):
                    answers.append(Answer(arrays=getattr(self, "_" + kind)(case)))
            except Exception as exc:  # noqa: BLE001  (a case the op does not take)
                answers.append(Answer(error={"reason": "exception",
                                             "type": type(exc).__name__,
                                             "message": str(exc)[:300]}))
        return answers

    def _tensors(self, case: Case, requires_grad: bool) -> list[Any]:
        return [minigrad.tensor(np.array(a), requires_grad=requires_grad) for a in case.arrays]

    def _forward(self, case: Case) -> list[np.ndarray]:
        with minigrad.no_grad():
            return [np.array(self.reference(*self._tensors(case, False), **case.params).array)]

    def _vjp(self, case: Case) -> list[np.ndarray]:
        xs = self._tensors(case, True)
        out = self.reference(*xs, **case.params)
        grads = minigrad.autograd.grad([out], xs, [minigrad.tensor(case.grad)],
                                       allow_unused=True)
        return [np.array(out.array)] + [np.zeros_like(a) if g is None else np.array(g.array)
                                        for a, g in zip(case.arrays, grads)]

    def _vjp2(self, case: Case) -> list[np.ndarray]:
        xs = self._tensors(case, True)
        g = minigrad.tensor(np.array(case.grad), requires_grad=True)
        out = self.reference(*xs, **case.params)
        grads = minigrad.autograd.grad([out], xs, [g], create_graph=True, allow_unused=True)
        result = []
        for gi, v in zip(grads, case.directions):
            if gi is None or not gi.requires_grad:
                result += [np.zeros_like(a) for a in (*case.arrays, case.grad)]
                continue
            s = (gi * minigrad.tensor(v)).sum()
            found = minigrad.autograd.grad([s], xs + [g], retain_graph=True, allow_unused=True)
            result += [np.zeros_like(a) if d is None else np.array(d.array)
                       for a, d in zip((*case.arrays, case.grad), found)]
        return result
