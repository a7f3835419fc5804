"""gradcheck and gradgradcheck: is a backward right? Compare it with finite differences.

`gradcheck(fn, inputs)` builds two Jacobians per (output, input) pair, as PyTorch's slow mode:
the *numerical* one by central differences, `(fn(x + eps) - fn(x - eps)) / (2 * eps)` for
each element of each input, and the *analytical* one by running backward once per element
of each output, seeded with that basis vector (`autograd.grad`). Row r of a Jacobian is
input element r, column c output element c. On a mismatch the `GradcheckError` reads like
PyTorch's and then says what PyTorch leaves you to find: which element is worst, the
numerical and analytical value there, and how many elements are wrong.

`gradgradcheck` runs gradcheck on the gradient function itself (built with
`create_graph=True`), which checks that a backward is differentiable in turn.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minigrad import autograd
from minigrad.autograd.tensor import Tensor
from minigrad.testing.gradcheck_forward import compare_forward, fast_check
from minigrad.testing.gradcheck_report import (
    GradcheckError,
    Labels,
    SecondOrderLabels,
    at,
    index_text,
    mismatch,
)

FLOAT32_WARNING = (
    "Input #{} requires gradient and is not a double precision floating point or complex. "
    "This check will likely fail if all the inputs are not of double precision floating point "
    "or complex. "
)
NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was 0.0."
)


def gradcheck(fn: Callable[..., Any], inputs: Any, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, *,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False) -> bool:
    """Check the gradients of `fn(*inputs)` against finite differences (use float64).

    Returns True when every Jacobian matches: `|analytical - numerical| <= atol + rtol *
    |numerical|` element by element. Otherwise raises `GradcheckError`, or returns False
    with `raise_exception=False`. As PyTorch's: `check_forward_ad` checks forward mode's
    Jacobian too, `check_backward_ad=False` skips backward's; `fast_mode` checks each input
    along one random direction instead of element by element (gradcheck_forward.py).
    """
    inputs = _as_tuple(inputs)
    _warn_not_double(inputs)
    labels = Labels(inputs)

    def slow() -> None:
        _gradcheck(fn, inputs, eps, atol, rtol, labels, check_backward_ad, check_forward_ad)

    if not fast_mode:
        return _checked(slow, raise_exception)
    return _checked(lambda: fast_check(fn, inputs, _check_inputs(inputs), eps, atol, rtol,
                                       check_backward_ad, check_forward_ad, slow),
                    raise_exception)


def gradgradcheck(fn: Callable[..., Any], inputs: Any, grad_outputs: Any = None,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  raise_exception: bool = True) -> bool:
    """Check second derivatives: gradcheck of `(inputs, grad_outputs) -> autograd.grad(
    fn(inputs), inputs, grad_outputs, create_graph=True)`.

    `grad_outputs` default to fixed random values in [-1, 1] (seeded, so reruns agree).
    """
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if _needs_grad(x)]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor(rng.uniform(-1, 1, o.array.shape).astype(
                o.array.dtype if o.array.dtype.kind == "f" else np.float64), requires_grad=True)
            for o in _differentiable(fn(*inputs)))
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    returned: list[int] = []  # which inputs' gradients the gradient function returns

    def grad_fn(*args: Any) -> tuple:
        outputs = _differentiable(fn(*args[:n_in]))
        wrt = [args[i] for i in diff]
        grads = autograd.grad(outputs, wrt, list(args[n_in:]), create_graph=True,
                              allow_unused=True)
        returned[:] = [k for k, g in enumerate(grads) if g is not None]
        return tuple(g for g in grads if g is not None)

    all_inputs = inputs + grad_outputs
    _warn_not_double(all_inputs)
    labels = SecondOrderLabels(all_inputs, [inputs[i] for i in diff], returned)
    return _checked(lambda: _gradcheck(grad_fn, all_inputs, eps, atol, rtol, labels),
                    raise_exception)


def _warn_not_double(inputs: tuple) -> None:
    """PyTorch's warning: finite differences with eps=1e-6 need float64."""
    for idx, x in enumerate(inputs):
        if _needs_grad(x) and x.array.dtype != np.float64:
            warnings.warn(FLOAT32_WARNING.format(idx), UserWarning, stacklevel=3)


def _checked(run: Callable[[], None], raise_exception: bool) -> bool:
    try:
        run()
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


# -- the check -------------------------------------------------------------------------------
def _gradcheck(fn: Callable, inputs: tuple, eps: float, atol: float, rtol: float,
               labels: Labels, backward: bool = True, forward: bool = False) -> None:
    wrt = _check_inputs(inputs)
    results = _as_tuple(fn(*inputs))
    floats = [k for k, o in enumerate(results) if _is_float(o)]
    keep = [k for k in floats if results[k].requires_grad]
    numerical = _numerical(fn, inputs, wrt, floats, eps)  # [input][output in floats]
    if forward:
        compare_forward(fn, inputs, wrt, floats, results, numerical, atol, rtol, labels)
    if not backward:
        return
    outputs = [results[k] for k in keep]
    for i, out in enumerate(outputs):
        analytical = _analytical(out, wrt)
        again = _analytical(out, wrt)
        if any(not np.array_equal(a, b, equal_nan=True) for a, b in zip(analytical, again)):
            raise GradcheckError(NOT_REENTRANT)
        for j, a in enumerate(analytical):
            n = numerical[j][floats.index(keep[i])]
            if not _allclose(a, n, atol, rtol):
                raise mismatch(a, n, i, j, out.array.shape, wrt[j].array.shape, atol, rtol,
                                labels)
    for k in floats:
        if k not in keep:
            _expect_zero(numerical, floats.index(k), k, results[k].array.shape, wrt, labels)
    if outputs:
        _check_multiplied_by_grad_output(outputs, wrt, labels)


def _check_inputs(inputs: tuple) -> list:
    wrt = []
    for idx, x in enumerate(inputs):
        if not _needs_grad(x):
            continue
        if any(st == 0 and n > 1 for st, n in zip(x.array.strides, x.array.shape)) or \
                not x.array.flags.writeable:
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        wrt.append(x)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    return wrt


def _numerical(fn: Callable, inputs: tuple, wrt: list, floats: list, eps: float) -> list:
    """Central differences: jac[j][i][r, c] = d output_i[c] / d input_j[r]."""

    def evaluate() -> list:
        results = _as_tuple(fn(*inputs))
        return [np.array(results[k].array, dtype=np.float64) for k in floats]

    jacobians = []
    for x in wrt:
        data = x.array
        per_output: list = []
        for r in range(data.size):
            idx = np.unravel_index(r, data.shape)
            orig = data[idx].copy()
            try:  # (the input is put back even when fn raises)
                data[idx] = orig + eps
                plus = evaluate()
                data[idx] = orig - eps
                minus = evaluate()
            finally:
                data[idx] = orig
            if not per_output:
                per_output = [np.zeros((data.size, p.size)) for p in plus]
            for jac, p, m in zip(per_output, plus, minus):
                jac[r] = ((p - m) / (2 * eps)).ravel()
        if not per_output:  # an empty input: no rows
            per_output = [np.zeros((0, np.size(o))) for o in evaluate()]
        jacobians.append(per_output)
    return jacobians


def _analytical(out: Tensor, wrt: list) -> list[np.ndarray]:
    """Backward seeded with each basis vector of `out`: column c of every Jacobian."""
    jacs = [np.zeros((x.array.size, out.array.size)) for x in wrt]
    for c in range(out.array.size):
        seed = np.zeros(out.array.shape, dtype=out.array.dtype)
        seed.flat[c] = 1
        grads = autograd.grad([out], wrt, [Tensor._make(seed, None, 0)], retain_graph=True,
                              allow_unused=True)
        for jac, x, g in zip(jacs, wrt, grads):
            if g is None:
                continue
            if g.array.shape != x.array.shape:
                raise GradcheckError("Analytical gradient has incorrect size")
            jac[:, c] = g.array.ravel()
    return jacs


def _allclose(a: np.ndarray, n: np.ndarray, atol: float, rtol: float) -> bool:
    return bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def _check_multiplied_by_grad_output(outputs: list, wrt: list, labels: Labels) -> None:
    """With grad_output = 0 every gradient must be 0 (PyTorch checks this too)."""
    zeros = [Tensor._make(np.zeros_like(o.array), None, 0) for o in outputs]
    grads = autograd.grad(outputs, wrt, zeros, retain_graph=True, allow_unused=True)
    for j, g in enumerate(grads):
        if g is not None and np.any(g.array != 0):
            r = int(np.flatnonzero(g.array)[0])
            place = at(np.unravel_index(r, g.array.shape))
            raise GradcheckError(
                f"backward not multiplied by grad_output\nWith every grad_output = 0, the "
                f"gradient of {labels.input(j)}{place} is {float(g.array.flat[r])!r} instead of 0: "
                "a backward must multiply what it returns by the incoming gradient (chain "
                "rule).", input_index=j)


def _expect_zero(numerical: list, i: int, k: int, shape: tuple, wrt: list,
                 labels: Labels) -> None:
    """An output that does not require grad must not change with the inputs."""
    for j, per_output in enumerate(numerical):
        jac = per_output[i]
        if np.any(jac != 0):
            r, c = np.unravel_index(int(np.argmax(np.abs(jac))), jac.shape)
            raise GradcheckError(
                "Numerical gradient for function expected to be zero\n"
                f"The {labels.output(k)} does not require grad, yet it changes with "
                f"{labels.input(j)}:\nd output {k}{index_text(np.unravel_index(c, shape))} / "
                f"d {labels.short(j)}"
                f"{index_text(np.unravel_index(r, wrt[j].array.shape))} = {float(jac[r, c])!r} "
                f"numerically.{labels.detached_hint}", input_index=j)


# -- helpers ---------------------------------------------------------------------------------
def _as_tuple(x: Any) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _needs_grad(x: Any) -> bool:
    return isinstance(x, Tensor) and x.requires_grad


def _is_float(x: Any) -> bool:
    return isinstance(x, Tensor) and x.array.dtype.kind == "f"


def _differentiable(results: Any) -> list:
    return [o for o in _as_tuple(results) if _needs_grad(o)]


__all__: Sequence[str] = ("GradcheckError", "gradcheck", "gradgradcheck")
