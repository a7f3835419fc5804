"""Cumulative ops along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp.

The gradient of a running sum at position i is the sum of the gradients at i and after it: a
reversed cumsum (`_ReverseCumsum`; PyTorch records flip, cumsum, flip for it). cummax/cummin
return named tuples (`.values`, `.indices`), like `torch.return_types.cummax`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from minigrad.autograd.forward_ad import LEVELS
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import state
from minigrad.ops.base import cast, constant, normalize_dim
from minigrad.ops.reduce import dim_or_axis
from minigrad.ops.tangent_rules import linear
from minigrad.ops.unary import exp
from minigrad.surface.dtypes import TORCH_NAMES

# the public functions: minigrad.cumsum, ... (re-exported by ops/ and minigrad/)
__all__ = ["cummax", "cummin", "cumprod", "cumsum", "logcumsumexp"]


def _axis(ctx: Any, a: np.ndarray) -> int | None:
    return ctx.dim if a.ndim else None  # (a 0-d tensor is its own running anything)


def _reverse_cumsum(x: np.ndarray, axis: int | None) -> np.ndarray:
    if axis is None:
        return x.copy()
    return np.flip(np.cumsum(np.flip(x, axis), axis), axis)


class _ReverseCumsum(Function):
    """the sums from each position to the end along dim (cumsum's gradient)"""

    node_name = "ReverseCumsumBackward0"  # (minigrad's own: PyTorch flips, cumsums, flips)
    formula = r"d(sum_{k>=i} g_k)/dg_k = 1 for k >= i"
    source = None  # (read as ReverseCumsumBackward0(g))
    gradients = ()
    tangent = "reverse cumsum of {t0}"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, g, dim):
        ctx.dim = dim
        return _reverse_cumsum(g.array, _axis(ctx, g.array))

    @staticmethod
    def backward(ctx, grad):
        return Cumsum.apply(grad, dim=ctx.dim, dtype=None)


class Cumsum(Function):
    """running sum along dim"""

    node_name = "CumsumBackward0"
    formula = r"d(cumsum a)_k/da_i = 1 for i <= k"
    source = "{0}.cumsum(...)"
    gradients = ("reverse cumsum of {g}",)
    tangent = "{t0}.cumsum(...)"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim, dtype):
        ctx.dim, ctx.in_dtype = dim, a.array.dtype
        axis = _axis(ctx, a.array)
        x = a.array if dtype is None else a.array.astype(dtype)
        return x.copy() if axis is None else np.cumsum(x, axis)

    @staticmethod
    def backward(ctx, grad):
        out = _ReverseCumsum.apply(grad, dim=ctx.dim)
        return out if out.array.dtype == ctx.in_dtype else cast(out, ctx.in_dtype)


def _cumprod_grad_with_zeros(a: np.ndarray, g: np.ndarray, axis: int) -> np.ndarray:
    """sum over k >= i of g_k * prod_{j <= k, j != i} a_j, for each i: exact with zeros."""
    x, gg = np.moveaxis(a, axis, -1), np.moveaxis(g, axis, -1)
    out = np.zeros_like(x)
    n = x.shape[-1]
    for i in range(n):
        others = x.copy()
        others[..., i] = 1
        partial = np.cumprod(others, axis=-1)  # prod_{j <= k, j != i} a_j
        out[..., i] = np.sum((gg * partial)[..., i:], axis=-1)
    return np.moveaxis(out, -1, axis)


class Cumprod(Function):
    """running product along dim"""

    node_name = "CumprodBackward0"
    formula = r"d(cumprod a)_k/da_i = prod_{j<=k, j!=i} a_j for i <= k"
    saves_output = True
    source = "{0}.cumprod(...)"
    gradients = ("reverse cumsum of ({g} * {out}) / {0}",)
    tangent = "{out} * cumsum({t0} / {0})"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a)
        ctx.dim = dim
        ctx.has_zero = bool(np.any(a.array == 0))
        axis = _axis(ctx, a.array)
        return a.array.copy() if axis is None else np.cumprod(a.array, axis)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if not ctx.has_zero:
            return _ReverseCumsum.apply(grad * ctx.output, dim=ctx.dim) / a
        if state.grad_enabled or LEVELS.visible:  # (forward mode: forward-over-reverse)
            raise NotImplementedError("minigrad: the second derivative of cumprod through a "
                                      "zero element is not implemented")
        axis = _axis(ctx, a.array)
        if axis is None:
            return grad
        return constant(_cumprod_grad_with_zeros(a.array, grad.array, axis))

    @staticmethod
    def jvp(ctx, t):
        a, dim = ctx.inputs[0], ctx.dim
        if not a.array.ndim:
            return t.clone()
        if not np.any(a.array == 0):
            return ctx.output * Cumsum.apply(t / a, dim=dim, dtype=None)
        x = np.moveaxis(a.array, dim, -1)  # with zeros: sum_{i<=k} t_i prod_{j<=k, j!=i} a_j
        weights = np.zeros(x.shape + (x.shape[-1],), x.dtype)  # [..., i, k]
        for i in range(x.shape[-1]):
            others = x.copy()
            others[..., i] = 1
            weights[..., i, i:] = np.cumprod(others, axis=-1)[..., i:]
        moved = t.movedim(dim, -1).unsqueeze(-1) * constant(weights)
        return moved.sum(-2).movedim(-1, dim)


class Cummax(NamedTuple):
    """What `cummax` returns, like torch.return_types.cummax."""

    values: Any
    indices: Any

    def __repr__(self) -> str:
        return f"minigrad.return_types.cummax(\nvalues={self.values!r},\nindices={self.indices!r})"


class Cummin(NamedTuple):
    """What `cummin` returns, like torch.return_types.cummin."""

    values: Any
    indices: Any

    def __repr__(self) -> str:
        return f"minigrad.return_types.cummin(\nvalues={self.values!r},\nindices={self.indices!r})"


def _running_index(x: np.ndarray, axis: int, better: Any) -> np.ndarray:
    """Index of the running extreme along `axis`: moves on ties (as PyTorch) and sticks to a
    NaN once one is met."""
    x = np.moveaxis(x, axis, -1)
    idx = np.zeros(x.shape, np.int64)
    best = x[..., 0].copy()
    current = np.zeros(x.shape[:-1], np.int64)
    for k in range(1, x.shape[-1]):
        v = x[..., k]
        take = (better(v, best) | (v == best) | np.isnan(v)) & ~np.isnan(best)
        current = np.where(take, k, current)
        best = np.where(take, v, best)
        idx[..., k] = current
    return np.moveaxis(idx, -1, axis)


class _RunningExtreme(Function):
    """cummax/cummin values: the gradient of each goes to the element it copied. (The
    indices are found before, `running_indices`, and are no output of the node: PyTorch's
    CummaxBackward0 takes one gradient.)"""
    tangent = "{t0} at the running extreme's index"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim, indices):
        ctx.dim, ctx.shape_in, ctx.indices = dim, a.array.shape, indices
        return np.take_along_axis(a.array, indices, dim) if a.array.ndim else a.array.copy()

    @staticmethod
    def backward(ctx, grad):
        if not ctx.indices.ndim:
            return grad
        return _scatter_add(grad, ctx)


def _scatter_add(grad: Any, ctx: Any) -> Any:
    """grad added into zeros at `ctx.indices` along dim, as a sum of one-hot products (in
    Tensor ops, so its own gradient is recorded)."""
    n = ctx.shape_in[ctx.dim]
    onehot = np.moveaxis(ctx.indices, ctx.dim, -1)[..., None] == np.arange(n)
    # onehot[..., k, i]: output k copied input i; sum over k
    moved = grad.array.ndim - 1
    g = grad.permute(*[d for d in range(grad.array.ndim) if d != ctx.dim], ctx.dim) \
        if ctx.dim != moved else grad
    out = (g.unsqueeze(-1) * constant(onehot.astype(grad.array.dtype))).sum(-2)
    if ctx.dim == moved:
        return out
    order = list(range(moved))
    order.insert(ctx.dim, moved)
    return out.permute(*order)


class CummaxOp(_RunningExtreme):
    """running max along dim: (values, indices)"""

    node_name = "CummaxBackward0"
    formula = r"d(cummax a)_k/da_i = 1 where i is the index of the max of a_0..a_k, else 0"
    source = "{0}.cummax(...).values"
    gradients = ()


class CumminOp(_RunningExtreme):
    """running min along dim: (values, indices)"""

    node_name = "CumminBackward0"
    formula = r"d(cummin a)_k/da_i = 1 where i is the index of the min of a_0..a_k, else 0"
    source = "{0}.cummin(...).values"
    gradients = ()


class Logcumsumexp(Function):
    """log of the running sum of exp along dim, computed without overflow"""

    node_name = "LogcumsumexpBackward0"
    formula = r"d(logcumsumexp a)_k/da_i = exp(a_i - out_k) for i <= k"
    saves_output = True
    source = "{0}.logcumsumexp(...)"
    gradients = ("exp({0}) * reverse cumsum of ({g} * exp(-{out}))",)
    tangent = "cumsum({t0} * exp({0})) * exp(-{out})"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a)
        ctx.dim = dim
        x = a.array
        if not x.ndim:
            return x.copy()
        m = np.max(x, axis=dim, keepdims=True) if x.size else np.zeros_like(x)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):
            return np.log(np.cumsum(np.exp(x - m), axis=dim)) + m

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # exp(a_i) * sum_{k>=i} g_k exp(-out_k), shifted by the max for range
        shift = constant(np.max(ctx.output_data(), axis=_axis(ctx, a.array), keepdims=True))
        weights = grad * exp(shift - ctx.output)
        return exp(a - shift) * _ReverseCumsum.apply(weights, dim=ctx.dim)

    @staticmethod
    def jvp(ctx, t):
        a, dim = ctx.inputs[0], ctx.dim
        if not a.array.ndim:
            return t.clone()
        shift = constant(np.max(a.array, axis=dim, keepdims=True))  # (for range, as backward)
        return Cumsum.apply(t * exp(a - shift), dim=dim, dtype=None) * exp(shift - ctx.output)


def _dim(name: str, input: Any, dim: Any, axis: Any) -> int:
    dim = dim_or_axis(name, dim, axis)
    if dim is None:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    return normalize_dim(dim, input.array.ndim, name, " (position 1)")


def cumsum(input: Any, dim: Any = None, *, dtype: Any = None, axis: Any = None) -> Any:
    """running sum along `dim` (integers and bools give int64, as PyTorch)"""
    dim = _dim("cumsum", input, dim, axis)
    if dtype is None and input.array.dtype.kind in "biu":
        dtype = np.int64
    return Cumsum.apply(input, dim=dim, dtype=None if dtype is None else np.dtype(dtype))


def cumprod(input: Any, dim: Any = None, *, dtype: Any = None, axis: Any = None) -> Any:
    """running product along `dim` (integers and bools give int64, as PyTorch)"""
    dim = _dim("cumprod", input, dim, axis)
    if dtype is None and input.array.dtype.kind in "biu":
        dtype = np.int64
    if dtype is not None and np.dtype(dtype) != input.array.dtype:
        input = input.to(dtype)
    return Cumprod.apply(input, dim=dim)


def running_indices(x: np.ndarray, dim: int, better: Any) -> np.ndarray:
    """For each position along `dim`, the index of the running extreme (`better`: np.greater
    for the max), as int64."""
    if not x.ndim or not x.size:
        return np.zeros(x.shape, np.int64)
    return _running_index(x, dim, better)


def cummax(input: Any, dim: Any = None, *, axis: Any = None) -> Cummax:
    """(values, indices) of the running max along `dim`"""
    dim = _dim("cummax", input, dim, axis)
    indices = running_indices(input.array, dim, np.greater)
    return Cummax(CummaxOp.apply(input, dim=dim, indices=indices), constant(indices))


def cummin(input: Any, dim: Any = None, *, axis: Any = None) -> Cummin:
    """(values, indices) of the running min along `dim`"""
    dim = _dim("cummin", input, dim, axis)
    indices = running_indices(input.array, dim, np.less)
    return Cummin(CumminOp.apply(input, dim=dim, indices=indices), constant(indices))


def logcumsumexp(input: Any, dim: Any = None, *, axis: Any = None) -> Any:
    """log(cumsum(exp(input))) along `dim`, floats only (as PyTorch)"""
    dim = _dim("logcumsumexp", input, dim, axis)
    if input.array.dtype.kind != "f":
        raise NotImplementedError('"logcumsumexp_out_cpu" not implemented for '
                                  f"'{TORCH_NAMES[input.array.dtype]}'")
    return Logcumsumexp.apply(input, dim=dim)
