"""Vector norms: `norm` (p = 2, 'fro', 1, inf, -inf, 0 or any other number; over dims) and
`dist`, the norm of a difference (re-exported by `statistics.py`).

PyTorch records every vector norm as LinalgVectorNormBackward0; its gradient depends on p
(`norm_backward`), and is 0 where the norm is 0 for p = 2 (a subgradient, as PyTorch).

Where minigrad differs on purpose: p = 0 (a count) sends zeros where PyTorch sends no
gradient at all (so `x.grad` is zeros, not None); matrix norms ('nuc', and 'fro' over more
than two dims) are not here, and say so.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant, no_dim_given, promote, promote_tensors, pytorch_keeps_on
from minigrad.ops.reduce import _restore_dims as restore_dims
from minigrad.ops.reduce import dim_or_axis, reduce_dims, summed
from minigrad.ops.selection import choose
from minigrad.surface.dtypes import TORCH_NAMES
from minigrad.surface.summation import add_reduce

__all__ = ["dist", "norm"]

INF = math.inf


def vector_norm_array(x: np.ndarray, p: float, dims: tuple | None, keepdim: bool) -> np.ndarray:
    """The p-norm of `x` over `dims` (None: all), in numpy."""
    a = np.abs(x)
    if p == 2:
        out = np.sqrt(add_reduce(a * a, dims, keepdim))
    elif p == INF or p == -INF:
        reduce = np.max if p == INF else np.min
        out = reduce(a, axis=dims, keepdims=keepdim) if a.size else np.zeros(
            (), x.dtype)
    elif p == 0:
        out = np.sum(a != 0, axis=dims, keepdims=keepdim).astype(x.dtype)
    elif p == 1:
        out = add_reduce(a, dims, keepdim)
    else:
        out = add_reduce(a ** p, dims, keepdim) ** (1 / p)
    return np.asanyarray(out, dtype=x.dtype)


def norm_backward(a: Any, p: float, grad: Any, out: Any, ctx: Any) -> Any:
    """The gradient of the p-norm `out` of `a`, in Tensor ops (`ctx` has the reduced dims;
    None: all of them)."""
    if ctx is not None:
        grad, out = restore_dims(grad, ctx), restore_dims(out, ctx)
    x = a.array
    if p == 0:
        return constant(np.zeros_like(x))
    if p == 1:
        return grad * constant(np.sign(x))
    if p == INF or p == -INF:  # the elements at the extreme share it evenly
        hits = (np.abs(x) == out.array)
        dims = None if ctx is None else ctx.dims
        share = np.sign(x) * hits / np.sum(hits, axis=dims, keepdims=True)
        return grad * constant(share.astype(x.dtype))
    # at the origin the (sub)gradient is 0, as in PyTorch; for p != 2 also at each zero a_i
    zero = np.broadcast_to(out.array == 0, x.shape) | ((x == 0) if p != 2 else False)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:
            result = a * (grad / out)
        else:
            result = a * a.abs() ** (p - 2) * (grad / out ** (p - 1))
    return choose(zero, 0.0, result) if zero.any() else result


class Norm(Function, numpy_forward=True):
    """the p-norm (Euclidean by default): (sum |a|^p)^(1/p) over `dims` (all by default)"""

    node_name = "LinalgVectorNormBackward0"
    formula = r"d||a||_p/da_i = sign(a_i) |a_i|^(p-1) / ||a||_p^(p-1)  (a_i/||a|| for p = 2)"
    saves_output = True
    source = "{0}.norm({dims})"
    gradients = ()
    tangent = "sum({t0} * d||{0}||/d{0})"

    @staticmethod
    def forward(ctx, a, p, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.p, ctx.in_shape, ctx.dims, ctx.keepdim = p, a.array.shape, dims, keepdim
        return vector_norm_array(a.array, p, dims, keepdim)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return norm_backward(a, ctx.p, grad, ctx.output, ctx)

    @staticmethod
    def jvp(ctx, t):
        a, dims, keepdim = ctx.inputs[0], ctx.dims, ctx.keepdim
        out = ctx.output
        shape = SimpleNamespace(dims=dims, keepdim=keepdim, in_shape=a.array.shape)
        slope = norm_backward(a, ctx.p, constant(np.ones_like(out.array)), out, shape)
        return summed(t * slope, dims, keepdim)

class AtenNorm(Norm):
    """the p-norm of all elements, as PyTorch's C++ code computes it (`at::norm`)"""

    node_name = "NormBackward0"
    formula = Norm.formula
    source = "{0}.norm()"
    gradients = ()


class AtenNormDim(Norm):
    """the p-norm along dims, as PyTorch's C++ code computes it (`at::norm(p, dim)`)"""

    node_name = "NormBackward1"
    formula = Norm.formula
    source = "{0}.norm({dims})"
    gradients = ()


def aten_norm(input: Any, p: float, dim: int | None = None) -> Any:
    """What `at::norm` records (NormBackward0, or NormBackward1 along a dim), for the ops
    PyTorch builds from it in C++ (norm_except_dim); `Tensor.norm` is LinalgVectorNorm's."""
    if dim is None:
        return AtenNorm.apply(input, p=float(p), dims=None, keepdim=False)
    return AtenNormDim.apply(input, p=float(p), dims=reduce_dims(input, dim), keepdim=False)


class Dist(Function, numpy_forward=True):
    """the p-norm of a - b"""

    node_name = "DistBackward0"
    formula = r"d||a-b||_p/da = d||d||_p/dd at d = a - b ;  d||a-b||_p/db = its negative"
    saves_output = True
    source = "dist({0}, {1}, p=...)"
    gradients = ()
    tangent = "sum(({t0} - {t1}) * d||d||/dd) at d = {0} - {1}"

    @staticmethod
    def forward(ctx, a, b, p):
        ctx.save_for_backward(a, b)
        ctx.p = p
        return vector_norm_array(a.array - b.array, p, None, False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        ga = norm_backward(a - b, ctx.p, grad, ctx.output, None)
        need_a, need_b = ctx.needs_input_grad
        return ga if need_a else None, -ga if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        out = ctx.output
        slope = norm_backward(a - b, ctx.p, constant(np.ones_like(out.array)), out, None)
        return ((ta - tb) * slope).sum()


def _order(p: Any, ndim: int, dim: Any) -> float:
    """PyTorch's p as a number: 'fro' is 2 (over all dims, one or two of them)."""
    if p is None:
        return 2.0
    if isinstance(p, str):
        if p != "fro":
            raise NotImplementedError(f"minigrad's norm has no p={p!r} (a vector norm: p a "
                                      "number, or 'fro')")
        if isinstance(dim, tuple | list) and len(dim) > 2:
            raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                               + " ".join(str(d) for d in dim))
        return 2.0
    return float(p)


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None, *, axis: Any = None) -> Any:
    """the p-norm of all elements, or along `dim` (an int or a tuple): `p.grad.norm()`,
    `x.norm(p=1, dim=1)`, `x.norm(float('inf'))` ('nuc' and matrix norms: not in minigrad)"""
    dim = dim_or_axis("norm", dim, axis)
    if dtype is not None:
        input = input.to(dtype)
    dtype = input.array.dtype
    if dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {TORCH_NAMES[dtype]}")
    order = _order(p, input.array.ndim, dim)
    out = Norm.apply(input, p=order, dims=reduce_dims(input, dim), keepdim=keepdim)
    # (PyTorch's node shows the order as written: 2.0 given stays 2.0, 'fro' is 2)
    pytorch_keeps_on(out, ord=p if isinstance(p, int | float) and not isinstance(p, bool) else 2)
    return no_dim_given(out) if dim is None else out


def dist(input: Any, other: Any, p: float = 2) -> Any:
    """the p-norm of input - other (broadcast)"""
    promote(input.array, other.array, "sub")  # (PyTorch's error for bools: it subtracts first)
    input, other = promote_tensors(input, other)  # (the difference's dtype)
    dtype = input.array.dtype
    if dtype.kind != "f":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {TORCH_NAMES[dtype]} instead.")
    return Dist.apply(input, other, p=float(p))
