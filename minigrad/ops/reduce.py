"""Reductions: sum, mean, max/min (whole tensor or along dims), amax/amin, argmax/argmin,
sum_to_size (norm is in norms.py). Each takes `axis=` as an alias of `dim=`, as PyTorch does.

Each backward gives the reduced dims back (`_restore_dims`) and spreads the gradient over them.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from minigrad.autograd import broadcast
from minigrad.autograd.function import Function
from minigrad.ops.base import (
    constant,
    is_tensor,
    keepdims_alias,
    normalize_dim,
    normalize_dims,
    unwrap,
)
from minigrad.ops.selection import maximum, minimum
from minigrad.ops.views import view
from minigrad.surface import dtypes, return_types
from minigrad.surface.return_types import ValuesIndices  # noqa: F401 (read by minigrad.teach.expr)
from minigrad.surface.summation import add_reduce

# the public functions: minigrad.amax, ... (re-exported by ops/ and minigrad/)
__all__ = ["amax", "amin", "argmax", "argmin", "max", "mean", "min", "sum"]


def _restore_dims(grad: Any, ctx: Any) -> Any:
    """Give a reduced gradient its size-1 dims back, so that it broadcasts to the input."""
    if ctx.keepdim or not ctx.dims or not ctx.in_shape:  # (a 0-d input: nothing to restore)
        return grad
    shape = list(ctx.in_shape)
    for d in ctx.dims:
        shape[d] = 1
    return grad.reshape(tuple(shape))


class Sum(Function):
    """sum of all elements"""

    node_name = "SumBackward0"
    formula = r"d(sum a)/da_i = 1"
    source = "{0}.sum()"
    gradients = ()

    @staticmethod
    def forward(ctx, a):
        ctx.in_shape = a.array.shape
        return sum_array(a.array, None, False)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.in_shape)


class SumDim(Function):
    """sum along `dim`"""

    node_name = "SumBackward1"
    formula = r"d(sum_dim a)/da_i = 1"
    source = "{0}.sum({dims})"
    gradients = ()

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, dims, keepdim
        return sum_array(a.array, dims, keepdim)

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx).expand(ctx.in_shape)


def sum_array(a: np.ndarray, dims: tuple | None, keepdim: bool) -> np.ndarray:
    """`a` summed over `dims` (all for None), as an array (numpy gives a scalar for a full sum),
    as accurate as PyTorch's (`summation`). A 0-d `a` is its own sum over dim 0 (as PyTorch)."""
    out = add_reduce(a, dims if a.ndim else None, keepdim)
    return out if type(out) is np.ndarray else np.asarray(out)


class Mean(Function):
    """mean of all elements"""

    node_name = "MeanBackward0"
    formula = r"d(mean a)/da_i = 1/n"
    source = "{0}.mean()"
    gradients = ("{g} / {n}",)

    @staticmethod
    def forward(ctx, a):
        ctx.in_shape = a.array.shape
        return mean_array(a.array, None, False)

    @staticmethod
    def backward(ctx, grad):
        n = builtins.max(math.prod(ctx.in_shape), 1)
        return (grad / n).expand(ctx.in_shape)


class MeanDim(Function):
    """mean along `dim`"""

    node_name = "MeanBackward1"
    formula = r"d(mean_dim a)/da_i = 1/n"
    source = "{0}.mean({dims})"
    gradients = ("{g} / {n}",)

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, dims, keepdim
        return mean_array(a.array, dims, keepdim)

    @staticmethod
    def backward(ctx, grad):
        # (a 0-d input is its own mean over dim 0: one element)
        n = math.prod([ctx.in_shape[d] for d in ctx.dims]) if ctx.in_shape else 1
        return (_restore_dims(grad, ctx) / n).expand(ctx.in_shape)


def mean_array(a: np.ndarray, dims: tuple | None, keepdim: bool) -> np.ndarray:
    """`a` averaged over `dims` (all for None) in its own dtype, as an array (see sum_array)."""
    n = a.size if dims is None or not a.ndim else math.prod([a.shape[d] for d in dims])
    with np.errstate(invalid="ignore"):  # (the mean of nothing is nan, as in PyTorch)
        return np.asarray(add_reduce(a, dims if a.ndim else None, keepdim) / n, a.dtype)


class _EvenReduction(Function):
    """max/min of all elements: ties share the gradient evenly (as PyTorch)."""

    np_fn: Any = None

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        ctx.result = cls.np_fn(a.array)
        return np.asarray(ctx.result)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        hits = a.array == ctx.result
        return grad * constant((hits / hits.sum()).astype(a.array.dtype))


class MaxAll(_EvenReduction):
    """largest element"""

    node_name = "MaxBackward1"
    formula = r"d(max a)/da_i = 1 for the largest element (shared on ties), else 0"
    source = "{0}.max()"
    gradients = ()
    np_fn = staticmethod(np.max)


class MinAll(_EvenReduction):
    """smallest element"""

    node_name = "MinBackward1"
    formula = r"d(min a)/da_i = 1 for the smallest element (shared on ties), else 0"
    source = "{0}.min()"
    gradients = ()
    np_fn = staticmethod(np.min)


class _SelectReduction(Function):
    """max/min along one dim: (values, indices); the gradient goes to the chosen index."""

    arg_fn: Any = None

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        if not a.array.ndim:  # a 0-d tensor is its own max along dim 0
            ctx.in_shape, ctx.dims, ctx.keepdim = (), (), keepdim
            ctx.mask = np.ones((), a.array.dtype)
            return a.array.copy(), np.zeros((), np.int64)
        idx = cls.arg_fn(a.array, axis=dim, keepdims=True)
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, (dim,), keepdim
        ctx.mask = np.zeros(a.array.shape, dtype=a.array.dtype)
        np.put_along_axis(ctx.mask, idx, 1, axis=dim)
        values = np.take_along_axis(a.array, idx, axis=dim)
        if not keepdim:
            values, idx = values.squeeze(dim), idx.squeeze(dim)
        return values, idx.astype(np.int64)

    @staticmethod
    def backward(ctx, grad, grad_indices=None):
        return _restore_dims(grad, ctx) * constant(ctx.mask)


class MaxDim(_SelectReduction):
    """largest along dim: (values, indices)"""

    node_name = "MaxBackward0"
    formula = r"d(max_dim a)/da_i = 1 at the index of the max along dim, else 0"
    source = "{0}.max({dims})"
    gradients = ()
    arg_fn = staticmethod(np.argmax)


class MinDim(_SelectReduction):
    """smallest along dim: (values, indices)"""

    node_name = "MinBackward0"
    formula = r"d(min_dim a)/da_i = 1 at the index of the min along dim, else 0"
    source = "{0}.min({dims})"
    gradients = ()
    arg_fn = staticmethod(np.argmin)


class _Extreme(Function):
    """amax/amin along dims: ties share the gradient evenly."""

    np_fn: Any = None

    @classmethod
    def forward(cls, ctx, a, dims, keepdim):
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, dims, keepdim
        out = cls.np_fn(a.array, axis=dims, keepdims=True)
        hits = a.array == out
        ctx.share = (hits / hits.sum(axis=dims, keepdims=True)).astype(a.array.dtype)
        return out if keepdim else np.squeeze(out, axis=dims)

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx) * constant(ctx.share)


class Amax(_Extreme):
    """largest along dims"""

    node_name = "AmaxBackward0"
    formula = r"d(amax a)/da_i = 1 for the largest along dim (shared on ties), else 0"
    source = "{0}.amax({dims})"
    gradients = ()
    np_fn = staticmethod(np.max)


class Amin(_Extreme):
    """smallest along dims"""

    node_name = "AminBackward0"
    formula = r"d(amin a)/da_i = 1 for the smallest along dim (shared on ties), else 0"
    source = "{0}.amin({dims})"
    gradients = ()
    np_fn = staticmethod(np.min)


def reduce_dims(a: Any, dim: Any) -> tuple[int, ...]:
    """The axes to reduce `a` over; none for a 0-d `a` (its dim 0 or -1 is itself)."""
    ndim = unwrap(a).ndim
    dims = normalize_dims(dim, ndim)
    return dims if ndim else ()


def dim_or_axis(name: str, dim: Any, axis: Any) -> Any:
    """`dim`, or `axis=` (numpy's word, which PyTorch accepts as an alias); not both."""
    if axis is None:
        return dim
    if dim is not None:
        raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
    return axis


@keepdims_alias
def sum(input: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None, *,
        axis: Any = None) -> Any:
    """sum of all elements, or along `dim` (an int or a tuple of ints)"""
    dim = dim_or_axis("sum", dim, axis)
    if dtype is None and input.array.dtype.kind in "biu" and input.array.dtype != np.int64:
        dtype = np.int64  # (PyTorch sums bools and integers to int64; numpy uint8 to uint64)
    if dtype is not None:
        input = input.to(dtype)
    if dim is None and not keepdim:
        return Sum.apply(input)
    return SumDim.apply(input, dims=reduce_dims(input, dim), keepdim=keepdim)


@keepdims_alias
def mean(input: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None, *,
         axis: Any = None) -> Any:
    """mean of all elements, or along `dim`"""
    dim = dim_or_axis("mean", dim, axis)
    if dtype is not None:
        input = input.to(dtype)
    if input.array.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a"
                           " floating point or complex dtype. Got: "
                           f"{dtypes.TORCH_NAMES[input.array.dtype]}")
    if dim is None and not keepdim:
        return Mean.apply(input)
    return MeanDim.apply(input, dims=reduce_dims(input, dim), keepdim=keepdim)


@keepdims_alias
def max(input: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None) -> Any:
    """max of all elements; with `dim`, (values, indices); with a tensor, `maximum`"""
    dim = dim_or_axis("max", dim, axis)
    if is_tensor(dim):
        return maximum(input, dim)
    if dim is None:
        return MaxAll.apply(_nonempty(input, "max"))
    dim = _nonempty_dim(input, normalize_dim(dim, input.array.ndim, "max"), "max")
    return return_types.max(*MaxDim.apply(input, dim=dim, keepdim=keepdim))


@keepdims_alias
def min(input: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None) -> Any:
    """min of all elements; with `dim`, (values, indices); with a tensor, `minimum`"""
    dim = dim_or_axis("min", dim, axis)
    if is_tensor(dim):
        return minimum(input, dim)
    if dim is None:
        return MinAll.apply(_nonempty(input, "min"))
    dim = _nonempty_dim(input, normalize_dim(dim, input.array.ndim, "min"), "min")
    return return_types.min(*MinDim.apply(input, dim=dim, keepdim=keepdim))


@keepdims_alias
def amax(input: Any, dim: Any = (), keepdim: bool = False, *, axis: Any = None) -> Any:
    """largest along `dim` (an int or a tuple; all by default)"""
    return _extreme(Amax, "amax", input, dim, keepdim, axis)


@keepdims_alias
def amin(input: Any, dim: Any = (), keepdim: bool = False, *, axis: Any = None) -> Any:
    """smallest along `dim` (an int or a tuple; all by default)"""
    return _extreme(Amin, "amin", input, dim, keepdim, axis)


def _extreme(op: type, name: str, input: Any, dim: Any, keepdim: bool, axis: Any) -> Any:
    dim = dim_or_axis(name, None if dim == () else dim, axis)
    if dim is None:
        _nonempty(input, name)
    dims = [_nonempty_dim(input, d, name) for d in reduce_dims(input, dim)]  # (none empty)
    return op.apply(input, dims=tuple(dims), keepdim=keepdim)


def _nonempty(input: Any, name: str) -> Any:
    """`input`, unless it has no elements: then a max over all of it has no answer."""
    if not input.array.size:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    return input


def _nonempty_dim(input: Any, dim: int, name: str) -> int:
    """`dim`, unless it has size 0 (no max along it)."""
    if input.array.ndim and not input.array.shape[dim]:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return dim


def _arg(np_fn: Any, name: str, input: Any, dim: Any, keepdim: bool, axis: Any) -> Any:
    """argmax/argmin: int64 indices, never recorded (of the flattened input without dim)."""
    dim = dim_or_axis(name, dim, axis)
    x = unwrap(input)
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
        normalize_dim(dim, x.ndim, name)  # (PyTorch's TypeError)
    if x.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if not x.size:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        out = np_fn(x.reshape(-1))
        return constant(np.full((1,) * x.ndim if keepdim else (), out, np.int64))
    if not x.ndim:  # a 0-d tensor accepts dim 0 and -1; its index is 0
        normalize_dim(dim, 0, name)
        return constant(np.zeros((), np.int64))
    axis = _nonempty_dim(input, normalize_dim(dim, x.ndim, name), name)
    return constant(np_fn(x, axis=axis, keepdims=keepdim).astype(np.int64))


@keepdims_alias
def argmax(input: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None) -> Any:
    """the index of the largest element (of the flattened input), or along `dim`"""
    return _arg(np.argmax, "argmax", input, dim, keepdim, axis)


@keepdims_alias
def argmin(input: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None) -> Any:
    """the index of the smallest element (of the flattened input), or along `dim`"""
    return _arg(np.argmin, "argmin", input, dim, keepdim, axis)


def sum_to_size(input: Any, *size: Any) -> Any:
    """sum the broadcast dims away (as PyTorch: sum(dims, keepdim=True), then view if needed)"""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    if input.array.shape == shape:
        return input
    have = input.array.shape
    if len(shape) > len(have) or any(s not in (n, 1) for s, n in zip(shape[::-1], have[::-1])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(have)}}}.")
    out = sum(input, broadcast.sum_to_dims(input.array.shape, shape), keepdim=True)
    return view(out, shape) if input.array.ndim != len(shape) else out
