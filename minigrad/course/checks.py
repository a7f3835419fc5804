"""The checks of one op, run on the student's class (inside the sandbox's child process).

Each check is a property that hypothesis tries on many `Case`s, with a fixed profile
(derandomized, no database), so the same submission always gets the same examples:

- forward: the values match minigrad's own op (which matches PyTorch);
- backward / broadcasting / dim / batched: gradcheck, finite differences against the
  student's backward, with the backward's own return checked first (one gradient per input,
  each of its input's shape: minigrad's engine would otherwise sum a broadcast gradient for
  the student, as PyTorch's does);
- second: gradgradcheck, where the op is twice differentiable;
- pytorch: values and gradients against torch's, when torch is importable.

A failing check gives a plain dict (see `_failure`): what is wrong, where, and the smallest
example hypothesis found (it runs the shrunk example last, so it is the last one seen).
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings

from minigrad import autograd
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.tensor import Tensor
from minigrad.course.cases import Case, cases, describe
from minigrad.course.entry import Op
from minigrad.testing.gradcheck import GradcheckError, gradcheck, gradgradcheck

EXAMPLES = {"forward": 20, "backward": 25, "broadcasting": 25, "dim": 25, "batched": 20,
            "second": 8, "pytorch": 10}
# (no "explain" phase: it reruns a failing example a hundred times to say which part matters)
PROFILE = dict(derandomize=True, database=None, deadline=None, print_blob=False,
               report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
               phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink))
RTOL, ATOL = 1e-6, 1e-8
MAX_TEXT = 300  # characters kept of an exception's message


class CheckFailure(Exception):
    """A check failed for a reason the feedback explains (`reason`, with its `details`)."""

    def __init__(self, reason: str, **details: Any) -> None:
        super().__init__(reason)
        self.reason, self.details = reason, details


def checked(cls: type, names: tuple[str, ...]) -> type:
    """`cls` with its backward's return checked: one gradient per input, of its shape."""

    class Checked(cls):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx: Any, *args: Any, **params: Any) -> Any:
            ctx.course_shapes = tuple(tuple(a.shape) for a in args)
            return cls.forward(ctx, *args, **params)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            grads = cls.backward(ctx, grad)
            given_ = grads if isinstance(grads, tuple) else (grads,)
            if len(given_) != len(names):
                raise CheckFailure("grad_count", expected=len(names), got=len(given_))
            for name, g, shape in zip(names, given_, ctx.course_shapes):
                if not isinstance(g, Tensor):
                    raise CheckFailure("grad_type", input=name, got=type(g).__name__)
                if tuple(g.shape) != shape:
                    raise CheckFailure("grad_shape", input=name, expected=list(shape),
                                       got=list(g.shape))
            return grads

    return Checked


# -- the properties ----------------------------------------------------------------------------
def forward_matches(op: Op, cls: type, case: Case, torch: Any) -> None:
    xs = case.tensors(op.inputs, requires_grad=False)
    with no_grad():
        expected = op.reference(*xs, **case.params).array
        out = cls.apply(*xs, **case.params)
    if not isinstance(out, Tensor):
        raise CheckFailure("forward_type", got=type(out).__name__)
    _compare("forward_value", out.array, expected)


def backward_matches(op: Op, cls: type, case: Case, torch: Any) -> None:
    op_cls = checked(cls, op.inputs)
    gradcheck(lambda *xs: op_cls.apply(*xs, **case.params), case.tensors(op.inputs))


def second_matches(op: Op, cls: type, case: Case, torch: Any) -> None:
    op_cls = checked(cls, op.inputs)
    gradgradcheck(lambda *xs: op_cls.apply(*xs, **case.params), case.tensors(op.inputs))


def torch_matches(op: Op, cls: type, case: Case, torch: Any) -> None:
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in case.arrays]
    expected = op.reference(*ts, **case.params)
    seed = np.asarray(np.random.default_rng(0).uniform(-1, 1, tuple(expected.shape)))
    expected_grads = torch.autograd.grad(expected, ts, torch.tensor(seed))
    xs = case.tensors(op.inputs)
    out = checked(cls, op.inputs).apply(*xs, **case.params)
    _compare("torch_value", out.array, expected.detach().numpy())
    grads = autograd.grad([out], list(xs), [Tensor(seed)], allow_unused=True)
    for name, g, e in zip(op.inputs, grads, expected_grads):
        _compare("torch_grad", g.array if g is not None else np.zeros_like(e.numpy()),
                 e.numpy(), input=name)


PROPERTIES = {"forward": forward_matches, "backward": backward_matches,
              "broadcasting": backward_matches, "dim": backward_matches,
              "batched": backward_matches, "second": second_matches, "pytorch": torch_matches}


def _compare(reason: str, got: np.ndarray, expected: np.ndarray, **details: Any) -> None:
    if got.shape != expected.shape:
        raise CheckFailure(reason, problem="shape", got=list(got.shape),
                           expected=list(expected.shape), **details)
    with np.errstate(invalid="ignore"):
        bad = ~np.isclose(got, expected, rtol=RTOL, atol=ATOL)
    if np.any(bad):
        where = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise CheckFailure(reason, problem="value", element=[int(i) for i in where],
                           got=float(got[where]), expected=float(expected[where]), **details)


# -- running a check -----------------------------------------------------------------------------
def run_checks(op: Op, cls: type, torch: Any, submission: Path) -> list[dict[str, Any]]:
    """One result per check of `op`: {"check", "status": passed|failed|skipped, ...}."""
    results = []
    for check in op.checks:
        if check == "pytorch" and torch is None:
            results.append({"check": check, "status": "skipped", "reason": "no_torch"})
            continue
        results.append(run_check(op, cls, check, torch, submission))
    return results


def run_check(op: Op, cls: type, check: str, torch: Any, submission: Path) -> dict[str, Any]:
    seen: list[Case] = []
    prop = PROPERTIES[check]

    @settings(max_examples=EXAMPLES[check], **PROFILE)
    @given(case=cases(op, check))
    def holds(case: Case) -> None:
        seen.append(case)
        prop(op, cls, case, torch)

    try:
        holds()
    except BaseException as exc:  # noqa: BLE001  (the student's code may raise anything)
        if isinstance(exc, KeyboardInterrupt):
            raise
        result = {"check": check, "status": "failed", **_failure(exc, op, check, submission)}
        if seen:
            result["example"] = describe(seen[-1], op.inputs)
        return result
    return {"check": check, "status": "passed"}


def _failure(exc: BaseException, op: Op, check: str, submission: Path) -> dict[str, Any]:
    """What the feedback needs to explain `exc`, as plain data."""
    if isinstance(exc, CheckFailure):
        return {"reason": exc.reason, **exc.details}
    if isinstance(exc, GradcheckError):
        return _gradcheck_failure(exc, op, check)
    where = student_frame(exc, submission)
    if isinstance(exc, NotImplementedError) and where:
        return {"reason": "not_implemented", "function": where["function"]}
    return {"reason": "exception", "type": type(exc).__name__,
            "message": str(exc).strip()[:MAX_TEXT], "where": where}


def _gradcheck_failure(exc: GradcheckError, op: Op, check: str) -> dict[str, Any]:
    names = op.inputs
    second = check == "second"
    label = (lambda j: names[j] if j < len(names) else "grad") if second else names.__getitem__
    j = getattr(exc, "input_index", None)
    if not hasattr(exc, "numerical_value"):
        first = str(exc).splitlines()[0]
        reason = "not_multiplied" if first.startswith("backward not multiplied") else "gradcheck"
        return {"reason": reason, "input": label(j) if j is not None else None,
                "message": first[:MAX_TEXT]}
    i = exc.output_index
    return {"reason": "second_jacobian" if second else "jacobian", "input": label(j),
            "element": list(exc.input_element), "output_element": list(exc.output_element),
            "gradient_of": names[i] if second and i < len(names) else None,
            "numerical": exc.numerical_value, "analytical": exc.analytical_value}


def student_frame(exc: BaseException, submission: Path) -> dict[str, Any] | None:
    """The deepest traceback frame in the submission's files: file, line, code, function."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename)
        if path.is_relative_to(submission):
            found = {"file": path.relative_to(submission).as_posix(), "line": frame.lineno,
                     "code": (frame.line or "").strip()[:MAX_TEXT], "function": frame.name}
    return found


def is_function(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, Function)
