"""Extremes: max/min (of all elements, or along a dim with their indices), amax/amin (along
dims), argmax/argmin. Ties share the gradient evenly where PyTorch shares it; max(dim) sends it
to the chosen index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import RESULT, Function
from minigrad.ops.base import constant, is_tensor, keepdims_alias, normalize_dim, unwrap
from minigrad.ops.reduce import _restore_dims, dim_or_axis, reduce_dims
from minigrad.ops.selection import maximum, minimum
from minigrad.surface import return_types

# the public functions: minigrad.amax, ... (re-exported by ops/ and minigrad/)
__all__ = ["amax", "amin", "argmax", "argmin", "max", "min"]


class _EvenReduction(Function, numpy_forward=True):
    """max/min of all elements: ties share the gradient evenly (as PyTorch)."""

    np_fn: Any = None

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        ctx.result = cls.np_fn(a.array)
        return np.asanyarray(ctx.result)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        hits = a.array == ctx.result
        return grad * constant((hits / hits.sum()).astype(a.array.dtype))

    @staticmethod
    def jvp(ctx, t):
        a = ctx.inputs[0].array
        hits = a == ctx.output.array  # (ties share the tangent evenly)
        return (t * constant((hits / hits.sum()).astype(a.dtype))).sum()


class MaxAll(_EvenReduction):
    """largest element"""

    node_name = "MaxBackward1"
    formula = r"d(max a)/da_i = 1 for the largest element (shared on ties), else 0"
    source = "{0}.max()"
    gradients = ()
    np_fn = staticmethod(np.max)
    tangent = "{t0} at the largest element"


class MinAll(_EvenReduction):
    """smallest element"""

    node_name = "MinBackward1"
    formula = r"d(min a)/da_i = 1 for the smallest element (shared on ties), else 0"
    source = "{0}.min()"
    gradients = ()
    np_fn = staticmethod(np.min)
    tangent = "{t0} at the smallest element"


class _SelectReduction(Function, numpy_forward=True):
    """max/min along one dim: (values, indices); the gradient goes to the chosen index."""

    arg_fn: Any = None

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        if not a.array.ndim:  # a 0-d tensor is its own max along dim 0
            ctx.in_shape, ctx.dims, ctx.keepdim = (), (), keepdim
            ctx.mask, idx = np.ones((), a.array.dtype), np.zeros((), np.int64)
            ctx.keep_as_pytorch(indices=idx)  # (as PyTorch's node: `_saved_indices`)
            return a.array.copy(), idx
        idx = cls.arg_fn(a.array, axis=dim, keepdims=True)
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, (dim,), keepdim
        ctx.mask = np.zeros(a.array.shape, dtype=a.array.dtype)
        np.put_along_axis(ctx.mask, idx, 1, axis=dim)
        values = np.take_along_axis(a.array, idx, axis=dim)
        if not keepdim:
            values, idx = values.squeeze(dim), idx.squeeze(dim)
        ctx.keep_as_pytorch(indices=idx)  # (as PyTorch's node: `_saved_indices`)
        return values, idx.astype(np.int64)

    @staticmethod
    def backward(ctx, grad, grad_indices=None):
        return _restore_dims(grad, ctx) * constant(ctx.mask)

    @staticmethod
    def jvp(ctx, t):
        a, idx = ctx.inputs[0], ctx.output[1]
        if not a.array.ndim:
            return t.clone(), None
        picked = np.zeros(a.array.shape, dtype=a.array.dtype)
        at = idx.array if ctx.keepdim else np.expand_dims(idx.array, ctx.dim)
        np.put_along_axis(picked, at, 1, axis=ctx.dim)
        return (t * constant(picked)).sum(ctx.dim, keepdim=ctx.keepdim), None


class MaxDim(_SelectReduction):
    """largest along dim: (values, indices)"""

    node_name = "MaxBackward0"
    formula = r"d(max_dim a)/da_i = 1 at the index of the max along dim, else 0"
    source = "{0}.max({dims})"
    gradients = ()
    arg_fn = staticmethod(np.argmax)
    tangent = "{t0} at the index of the max along dim"


class MinDim(_SelectReduction):
    """smallest along dim: (values, indices)"""

    node_name = "MinBackward0"
    formula = r"d(min_dim a)/da_i = 1 at the index of the min along dim, else 0"
    source = "{0}.min({dims})"
    gradients = ()
    arg_fn = staticmethod(np.argmin)
    tangent = "{t0} at the index of the min along dim"


class _Extreme(Function, numpy_forward=True):
    """amax/amin along dims: ties share the gradient evenly."""

    pytorch_keeps = {"self": 0, "result": RESULT}
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

    @staticmethod
    def jvp(ctx, t):
        a, dims = ctx.inputs[0], ctx.dims
        hits = a.array == ctx.function.np_fn(a.array, axis=dims, keepdims=True)
        share = (hits / hits.sum(axis=dims, keepdims=True)).astype(a.array.dtype)
        picked = t * constant(share)
        return picked.sum(dims, keepdim=ctx.keepdim) if dims else picked


class Amax(_Extreme):
    """largest along dims"""

    node_name = "AmaxBackward0"
    formula = r"d(amax a)/da_i = 1 for the largest along dim (shared on ties), else 0"
    source = "{0}.amax({dims})"
    gradients = ()
    np_fn = staticmethod(np.max)
    tangent = "{t0} at the largest along dim"


class Amin(_Extreme):
    """smallest along dims"""

    node_name = "AminBackward0"
    formula = r"d(amin a)/da_i = 1 for the smallest along dim (shared on ties), else 0"
    source = "{0}.amin({dims})"
    gradients = ()
    np_fn = staticmethod(np.min)
    tangent = "{t0} at the smallest along dim"


@keepdims_alias
def max(input: Any, dim: Any = None, keepdim: bool = False, *, axis=None, other=None) -> Any:
    """max of all elements; with `dim`, (values, indices); with a tensor (or other=), `maximum`"""
    return _max_min("max", input, dim, keepdim, axis, other)


@keepdims_alias
def min(input: Any, dim: Any = None, keepdim: bool = False, *, axis=None, other=None) -> Any:
    """min of all elements; with `dim`, (values, indices); with a tensor (or other=), `minimum`"""
    return _max_min("min", input, dim, keepdim, axis, other)


def _max_min(name: str, input: Any, dim: Any, keepdim: bool, axis: Any, other: Any) -> Any:
    pair, whole, along = {"max": (maximum, MaxAll, MaxDim), "min": (minimum, MinAll, MinDim)}[name]
    dim = dim_or_axis(name, dim, axis)
    if other is not None or is_tensor(dim):
        return pair(input, dim if other is None else other)
    if dim is None:
        return whole.apply(_nonempty(input, name))
    dim = _nonempty_dim(input, normalize_dim(dim, input.array.ndim, name), name)
    return getattr(return_types, name)(*along.apply(input, dim=dim, keepdim=keepdim))


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
        # (asanyarray, not full: a meta tensor's index stays meta)
        return constant(np.asanyarray(out, np.int64).reshape((1,) * x.ndim if keepdim else ()))
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
