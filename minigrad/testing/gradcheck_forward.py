"""gradcheck's forward-mode check and its fast mode (`check_forward_ad=`, `fast_mode=`).

Forward mode gives a Jacobian one *column* per pass: `J e_r`, for each element r of an input,
by making that input dual with the basis tangent e_r (`forward_ad`). `compare_forward`
checks those columns against the numerical Jacobian, as PyTorch's `check_forward_ad=True`.

Fast mode checks one random direction instead of every element, as PyTorch's `fast_mode=True`
and JAX's `check_grads` do: for each input j a random unit vector u (and for each output k a
random unit v), it compares the numerical `J u` (one central difference along u) with forward
mode's `J u` (one JVP), and `vᵀ (J u)` with backward's `(vᵀ J) · u` (one VJP). The vectors
come from `numpy.random.default_rng(0)`, so a rerun checks the same direction; a failure names
it, then checks every element the slow way to say where the difference is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import autograd
from minigrad.autograd import forward_ad
from minigrad.autograd.tensor import Tensor
from minigrad.testing.gradcheck_report import GradcheckError, Labels, mismatch

FORWARD = "computed with forward mode "


def forward_jacobians(fn: Callable, inputs: tuple, wrt: list, floats: list) -> list:
    """jac[j][k][r, c] = d output floats[k] [c] / d input wrt[j] [r], by one JVP per r."""
    jacobians = []
    for x in wrt:
        at = next(i for i, a in enumerate(inputs) if a is x)
        per_output: list = []
        for r in range(x.array.size):
            basis = np.zeros(x.array.shape, dtype=x.array.dtype)
            basis.flat[r] = 1
            columns = _jvp(fn, inputs, at, basis, floats)
            if not per_output:
                per_output = [np.zeros((x.array.size, c.size)) for c in columns]
            for jac, column in zip(per_output, columns):
                jac[r] = column.ravel()
        jacobians.append(per_output)
    return jacobians


def _jvp(fn: Callable, inputs: tuple, at: int, tangent: np.ndarray, floats: list) -> list:
    """The tangent of each float output when input `at` moves along `tangent` (zeros for an
    output that does not depend on it)."""
    with forward_ad.dual_level():
        args = list(inputs)
        args[at] = forward_ad.make_dual(inputs[at], Tensor._make(tangent, None, 0))
        results = _as_tuple(fn(*args))
        columns = []
        for k in floats:
            t = forward_ad.unpack_dual(results[k]).tangent
            columns.append(np.zeros(results[k].array.shape) if t is None
                           else np.array(t.array, dtype=np.float64))
    return columns


def compare_forward(fn: Callable, inputs: tuple, wrt: list, floats: list, results: tuple,
                    numerical: list, atol: float, rtol: float, labels: Labels) -> None:
    """Forward mode's Jacobians against the numerical ones (`numerical[j][k]`)."""
    analytical = forward_jacobians(fn, inputs, wrt, floats)
    for j, per_output in enumerate(analytical):
        for k, a in enumerate(per_output):
            n = numerical[j][k]
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                raise mismatch(a, n, k, j, results[floats[k]].array.shape,
                               wrt[j].array.shape, atol, rtol, labels, FORWARD)


def fast_check(fn: Callable, inputs: tuple, wrt: list, eps: float, atol: float, rtol: float,
               backward: bool, forward: bool, slow: Callable[[], None]) -> None:
    """Fast mode: every input along one random direction u (see the module's docstring).
    `slow()` runs the element-by-element check, for the report of a failure."""
    rng = np.random.default_rng(0)
    results = _as_tuple(fn(*inputs))
    floats = [k for k, o in enumerate(results) if _is_float(o)]
    keep = [k for k in floats if results[k].requires_grad]
    us = [_unit(rng, x.array.shape) for x in wrt]
    vs = {k: _unit(rng, results[k].array.shape) for k in keep}
    for j, (x, u) in enumerate(zip(wrt, us)):
        at = next(i for i, a in enumerate(inputs) if a is x)
        ju = _numerical_ju(fn, inputs, x, u, eps, floats)
        if forward:
            for k, a in enumerate(_jvp(fn, inputs, at, u.astype(x.array.dtype), floats)):
                if not np.all(np.abs(a - ju[k]) <= atol * u.sum() + rtol * np.abs(ju[k])):
                    _fail(a, ju[k], floats[k], j, u, None, FORWARD, slow)
        if backward:
            for k in keep:
                v = vs[k]
                (g,) = autograd.grad([results[k]], [x], [Tensor._make(v.astype(
                    results[k].array.dtype), None, 0)], retain_graph=True, allow_unused=True)
                a = 0.0 if g is None else float(np.sum(g.array * u))
                n = float(np.sum(v * ju[floats.index(k)]))
                if not abs(a - n) <= atol * u.sum() * v.sum() + rtol * abs(n):
                    _fail(np.float64(a), np.float64(n), k, j, u, v, "", slow)


def _numerical_ju(fn: Callable, inputs: tuple, x: Any, u: np.ndarray, eps: float,
                  floats: list) -> list:
    """(f(x + eps u) - f(x - eps u)) / (2 eps) for each float output: J u by differences."""
    data, orig = x.array, x.array.copy()
    try:  # (the input is put back even when fn raises)
        data[...] = orig + eps * u
        plus = [np.array(_as_tuple(fn(*inputs))[k].array, dtype=np.float64) for k in floats]
        data[...] = orig - eps * u
        minus = [np.array(_as_tuple(fn(*inputs))[k].array, dtype=np.float64) for k in floats]
    finally:
        data[...] = orig
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _fail(a: Any, n: Any, k: int, j: int, u: np.ndarray, v: np.ndarray | None, mode: str,
          slow: Callable[[], None]) -> None:
    which = f"J u for input {j}" if v is None else f"vᵀ J u for output {k}, input {j}"
    lines = [f"Jacobian {mode}mismatch for output {k:d} with respect to input {j:d},",
             f"numerical:{_text(n)}", f"analytical:{_text(a)}", "",
             f"fast mode checked {which} in one random direction (numpy's default_rng(0)):",
             f"    u = {_text(u)}"] + ([f"    v = {_text(v)}"] if v is not None else [])
    try:
        slow()
    except GradcheckError as slow_error:
        lines += ["", "Checked element by element (slow mode):", str(slow_error)]
    else:
        lines += ["", "Checked element by element (slow mode) it passes: the difference is "
                  "small, and only the random direction's tolerance is tighter. Use "
                  "fast_mode=False for this function."]
    raise GradcheckError("\n".join(lines), output_index=k, input_index=j, direction=u)


def _unit(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """A random vector of `shape` with entries in [0, 1) and norm 1 (PyTorch's choice)."""
    u = rng.random(shape)
    norm = np.linalg.norm(u)
    return u / norm if norm else u


def _text(values: Any) -> str:
    return np.array2string(np.asarray(values, dtype=np.float64), precision=6,
                           separator=", ")


def _as_tuple(x: Any) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _is_float(x: Any) -> bool:
    return isinstance(x, Tensor) and x.array.dtype.kind == "f"
