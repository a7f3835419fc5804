"""`jacobian` and `hessian`: whole matrices of derivatives, one row (or column) per pass.

Reverse mode builds the Jacobian row by row: output element j's row is the gradient of that
one element, one backward pass each (`out.reshape(-1)[j]` seeded with 1). Forward mode builds
it column by column: input element k's column is the tangent that comes out when the inputs
carry the k-th unit vector, one forward-mode pass each. So a function with few outputs
(a loss) wants reverse mode, one with few inputs wants forward mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.autograd import tensor as _tensor
from minigrad.autograd.functional import checks as c
from minigrad.autograd.functional.passes import note, transform
from minigrad.autograd.grad_mode import enable_grad

STRATEGY = ('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".')
NOT_TOGETHER = ("minigrad.autograd.functional.jacobian: `{0}=True` and `strategy=\"forward-mode\"` "
                "are not supported together (yet). Please either set `{0}=False` or "
                "`strategy=\"reverse-mode\"`.")


@transform("autograd.functional.jacobian")
def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """d func(inputs) / d inputs: a tensor of shape output.shape + input.shape (a tuple of
    them per input when `inputs` is a tuple, per output when func returns a tuple)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(STRATEGY)
    note(strategy=strategy, vectorize=bool(vectorize))
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(NOT_TOGETHER.format("create_graph"))
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = c.as_tuple(inputs, "inputs", "jacobian")
        inputs = c.grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = c.outputs_of(func, inputs, "jacobian")
        c.check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError(
                "minigrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`.")
        note(rows=sum(out.nelement() for out in outputs), per="output element")
        jac = tuple(_rows_of(i, out, inputs, create_graph, strict) for i, out in
                    enumerate(outputs))
    jac = c.grad_postprocess(jac, create_graph)
    return c.unpack(jac, (is_outputs_tuple, is_inputs_tuple))


def _rows_of(i: int, out: Any, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
    """d out / d input for each input: one backward pass per element of `out`."""
    rows: tuple[list, ...] = tuple([] for _ in inputs)
    for j in range(out.nelement()):
        vj = c.autograd_grad((out.reshape(-1)[j],), inputs, retain_graph=True,
                             create_graph=create_graph)
        for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {k}. This is not allowed in "
                                       "strict mode.")
                g = c.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            row.append(g)
    return tuple(c.stack(row, tuple(out.shape) + tuple(inp.shape), inp)
                 for row, inp in zip(rows, inputs))


def _jacfwd(func: Callable, inputs: Any, strict: bool, vectorize: bool) -> Any:
    """The Jacobian column by column: one forward-mode pass per input element, each with
    that element's unit vector as the inputs' tangent."""
    if strict:
        raise RuntimeError(NOT_TOGETHER.format("strict"))
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    is_inputs_tuple, inputs = c.as_tuple(inputs, "inputs", "jacobian")
    numels = [inp.nelement() for inp in inputs]
    note(columns=sum(numels), per="input element")
    columns: list[list] = []  # per pass: the tangent of each output
    is_outputs_tuple, primals = False, ()
    for k in range(sum(numels)):
        is_outputs_tuple, primals, column = _column(func, inputs, numels, k)
        columns.append(column)
    jac = []  # (lists, not tuples: PyTorch's forward-mode jacobian returns lists)
    for o, primal in enumerate(primals):
        per_input, start = [], 0
        for inp, n in zip(inputs, numels):
            rows = c.stack([col[o] for col in columns[start:start + n]],
                           (n, *primal.shape), primal)
            start += n
            per_input.append(rows.permute(*range(1, rows.dim()), 0).reshape(
                tuple(primal.shape) + tuple(inp.shape)))
        jac.append(per_input)
    return c.unpack(jac, (is_outputs_tuple, is_inputs_tuple))


@transform("forward-mode pass")
def _column(func: Callable, inputs: tuple, numels: list, k: int) -> tuple:
    """Column k of the Jacobian: one forward-mode pass with input element k's unit vector as
    the tangent. (is the output a tuple, the primal outputs, their tangents)."""
    from minigrad.autograd import forward_ad  # (the dual numbers: only this path needs them)

    with forward_ad.dual_level():
        duals = tuple(forward_ad.make_dual(inp, _unit(inp, k - sum(numels[:i])))
                      for i, inp in enumerate(inputs))
        is_outputs_tuple, outs = c.as_tuple(func(*duals), "outputs", None)
        unpacked = [forward_ad.unpack_dual(o) for o in outs]
    return (is_outputs_tuple, tuple(u.primal for u in unpacked),
            [c.zeros_like(u.primal) if u.tangent is None else u.tangent for u in unpacked])


def _unit(inp: Any, k: int) -> Any:
    """A tangent for `inp`: 1 at its flat position k (zeros when k falls in another input)."""
    e = np.zeros(inp.nelement(), inp.array.dtype)
    if 0 <= k < e.size:
        e[k] = 1
    return _tensor.Tensor._make(e.reshape(inp.array.shape), None, 0)


@transform("autograd.functional.hessian")
def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """d² func / d inputs²: the Jacobian of the gradient (func must return one element)."""
    is_inputs_tuple, inputs = c.as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Any) -> Any:
        out = func(*inp)
        is_out_tuple, t_out = c.as_tuple(out, "outputs of the user-provided function",
                                         "hessian")
        c.check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not c.is_tensor(out):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp: Any) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        c.check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return c.unpack(res, (is_inputs_tuple, is_inputs_tuple))
