"""Reductions: sum, mean, sum_to_size (max/min/amax/amin/argmax/argmin are in extremes.py,
norm in norms.py). Each takes `axis=` as an alias of `dim=`, as PyTorch does.

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
    keepdims_alias,
    normalize_dims,
    unwrap,
)
from minigrad.ops.tangent_rules import linear
from minigrad.ops.view_checks import shape_arg
from minigrad.ops.views import view
from minigrad.surface import dtypes
from minigrad.surface.summation import add_reduce

# the public functions: minigrad.amax, ... (re-exported by ops/ and minigrad/)
__all__ = ["mean", "sum"]


def _restore_dims(grad: Any, ctx: Any) -> Any:
    """Give a reduced gradient its size-1 dims back, so that it broadcasts to the input."""
    return restored(grad, ctx.in_shape, ctx.dims, ctx.keepdim)


def restored(x: Any, in_shape: tuple, dims: tuple, keepdim: bool) -> Any:
    """`x`, reduced from `in_shape` over `dims`, with its size-1 dims back."""
    if keepdim or not dims or not in_shape:  # (a 0-d input: nothing to restore)
        return x
    shape = list(in_shape)
    for d in dims:
        shape[d] = 1
    return x.reshape(tuple(shape))


def summed(x: Any, dims: tuple, keepdim: bool) -> Any:
    """`x` summed over `dims` (all of a 0-d x when there are none: itself)."""
    return x.sum(dims, keepdim=keepdim) if dims else x.sum()


class Sum(Function, numpy_forward=True):
    """sum of all elements"""

    node_name = "SumBackward0"
    formula = r"d(sum a)/da_i = 1"
    source = "{0}.sum()"
    gradients = ()
    tangent = "{t0}.sum()"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a):
        ctx.in_shape = a.array.shape
        return sum_array(a.array, None, False)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.in_shape)


class SumDim(Function, numpy_forward=True):
    """sum along `dim`"""

    node_name = "SumBackward1"
    formula = r"d(sum_dim a)/da_i = 1"
    source = "{0}.sum({dims})"
    gradients = ()
    tangent = "{t0}.sum({dims})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

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
    return out if type(out) is np.ndarray else np.asanyarray(out)


class Mean(Function, numpy_forward=True):
    """mean of all elements"""

    node_name = "MeanBackward0"
    formula = r"d(mean a)/da_i = 1/n"
    source = "{0}.mean()"
    gradients = ("{g} / {n}",)
    tangent = "{t0}.mean()"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a):
        ctx.in_shape = a.array.shape
        return mean_array(a.array, None, False)

    @staticmethod
    def backward(ctx, grad):
        n = builtins.max(math.prod(ctx.in_shape), 1)
        return (grad / n).expand(ctx.in_shape)


class MeanDim(Function, numpy_forward=True):
    """mean along `dim`"""

    node_name = "MeanBackward1"
    formula = r"d(mean_dim a)/da_i = 1/n"
    source = "{0}.mean({dims})"
    gradients = ("{g} / {n}",)
    tangent = "{t0}.mean({dims})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

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
        return np.asanyarray(add_reduce(a, dims if a.ndim else None, keepdim) / n, a.dtype)


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


def sum_to_size(input: Any, *sizes: Any, size: Any = None) -> Any:
    """sum the broadcast dims away (as PyTorch: sum(dims, keepdim=True), then view if needed)"""
    shape = shape_arg(sizes, size, "sum_to_size", "size")
    if input.array.shape == shape:
        return input
    have = input.array.shape
    if len(shape) > len(have) or any(s not in (n, 1) for s, n in zip(shape[::-1], have[::-1])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(have)}}}.")
    out = sum(input, broadcast.sum_to_dims(input.array.shape, shape), keepdim=True)
    return view(out, shape) if input.array.ndim != len(shape) else out
