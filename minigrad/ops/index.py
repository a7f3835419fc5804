"""Indexing and joining, with their functions: `x[key]`, narrow, select, cat, stack.

Their backward puts the gradient back where each element came from: into zeros of the input's
shape for indexing, split into the pieces for cat and stack.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import as_operand, normalize_dims, unwrap
from minigrad.ops.tangent_rules import linear
from minigrad.ops.view_checks import narrow_start
from minigrad.ops.views import unsqueeze
from minigrad.surface import meta

# the public functions: minigrad.cat, ... (re-exported by ops/ and minigrad/)
__all__ = ["cat", "concat", "narrow", "select", "stack"]


class _Indexing(Function, numpy_forward=True):
    """a[key]: the gradient is scattered back into zeros of a's shape."""

    source = "{0}[{key}]"
    gradients = ()
    tangent = "{t0}[{key}]"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, key):
        ctx.in_shape, ctx.key = a.array.shape, key
        return a.array[key]

    @staticmethod
    def backward(ctx, grad):
        return ScatterAdd.apply(grad, shape=ctx.in_shape, key=ctx.key)


class Select(_Indexing):
    """a[..., i, ...]: one index along one dim"""

    is_view = True
    node_name = "SelectBackward0"
    formula = r"select: grad placed at the selected index, zeros elsewhere"

    @staticmethod
    def forward(ctx, a, key):
        ctx.in_shape, ctx.key = a.array.shape, key
        # (the Ellipsis keeps one element a 0-d view: numpy's `a[0]` of a vector is a copied
        # scalar, which would not see a's in-place changes, nor pass on its own)
        return a.array[(*key, Ellipsis)]


class Slice(_Indexing):
    """a[..., i:j, ...]: a range along one dim"""

    is_view = True
    node_name = "SliceBackward0"
    formula = r"slice: grad placed in the slice, zeros elsewhere"


class Index(_Indexing):
    """a[indices] or a[mask]: picked elements (a copy)"""

    node_name = "IndexBackward0"
    formula = r"index: grad added at each picked position (repeats add up)"

    @staticmethod
    def forward(ctx, a, key):
        # The indices are saved, as PyTorch saves them: a backward frees them, and a second
        # one without retain_graph fails as in PyTorch (it used to run again).
        ctx.save_for_backward(key)
        return _Indexing.forward(ctx, a, key)

    @staticmethod
    def backward(ctx, grad):
        (key,) = ctx.unpack_saved()  # (raises once freed)
        return ScatterAdd.apply(grad, shape=ctx.in_shape, key=key)


class ScatterAdd(Function, numpy_forward=True):
    """zeros of `shape` with g added at `key` (the backward of indexing)"""

    node_name = "IndexPutBackward0"
    formula = r"d(scatter g)/dg = the same positions picked again"
    source = None  # (read as IndexPutBackward0(g))
    gradients = ()
    tangent = "zeros with {t0} added at key"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, g, shape, key):
        ctx.key = key
        out = np.zeros(shape, dtype=g.array.dtype)
        np.add.at(out, key, g.array)
        return out

    @staticmethod
    def backward(ctx, grad, *_):
        return grad[ctx.key]


class Cat(Function, numpy_forward=True):
    """join tensors along an existing dim"""

    node_name = "CatBackward0"
    formula = r"cat: grad split back into the pieces"
    source = "cat([{args}], dim={dim})"
    gradients = ()
    tangent = "cat([{targs}], dim={dim})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        ctx.dim = dim
        ctx.sizes = [unwrap(t).shape[dim] for t in tensors]
        return np.concatenate([unwrap(t) for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for size, needed in zip(ctx.sizes, ctx.needs_input_grad):
            grads.append(grad.narrow(ctx.dim, start, size) if needed else None)
            start += size
        return tuple(grads)


class Stack(Function, numpy_forward=True):
    """join tensors along a new dim"""

    node_name = "StackBackward0"
    formula = r"stack: grad unstacked into the pieces"
    source = "stack([{args}], dim={dim})"
    gradients = ()
    tangent = "stack([{targs}], dim={dim})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        ctx.dim = dim
        return np.stack([unwrap(t) for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad.select(ctx.dim, i) if needed else None
                     for i, needed in enumerate(ctx.needs_input_grad))


def _basic_key(k: Any) -> bool:
    return k is None or k is Ellipsis or isinstance(k, int | np.integer | slice) and not \
        isinstance(k, bool)


def is_bool(k: Any) -> bool:
    return getattr(getattr(k, "array", None), "dtype", None) == np.bool_


def getitem(input: Any, key: Any) -> Any:
    """`a[key]`: ints and slices become Select/Slice steps per dim, as PyTorch records them;
    integer arrays and boolean masks one Index step."""
    key = key if isinstance(key, tuple) else (key,)
    if meta.in_use:  # (what a boolean meta mask picks depends on its values)
        meta.refuse_values("a[mask]", *[k for k in key if is_bool(k)])
        if not meta.is_meta(input.array) and any(meta.is_meta(getattr(k, "array", None))
                                                 for k in key):
            raise RuntimeError(meta.MIXED.format("meta", "cpu"))
    key = tuple(unwrap(k) for k in key)
    key = tuple(np.asanyarray(k) if isinstance(k, list) else k for k in key)
    used = builtins.sum(1 for k in key if k is not None and k is not Ellipsis and not (
        isinstance(k, np.ndarray) and k.dtype == bool)) + builtins.sum(
        k.ndim for k in key if isinstance(k, np.ndarray) and k.dtype == bool)
    if used > input.array.ndim:  # (PyTorch's words, not numpy's "tuple index out of range")
        raise IndexError(f"too many indices for tensor of dimension {input.array.ndim}")
    if not builtins.all(_basic_key(k) for k in key):
        return Index.apply(input, key=key[0] if len(key) == 1 else key)
    if Ellipsis in key:
        i = key.index(Ellipsis)
        fill = input.array.ndim - builtins.sum(1 for k in key if k is not None) + 1
        key = key[:i] + (slice(None),) * fill + key[i + 1:]
    out, dim = input, 0
    for k in key:
        if k is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(k, slice):
            if k != slice(None):
                out = Slice.apply(out, key=(slice(None),) * dim + (k,))
            dim += 1
        else:
            size = out.array.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            out = Select.apply(out, key=(slice(None),) * dim + (int(k),))
    return out if out is not input else Slice.apply(input, key=(slice(None),))


def narrow(input: Any, dim: int, start: int, length: int) -> Any:
    dim = normalize_dims(dim, input.array.ndim)[0]
    start = narrow_start(input.array.shape[dim], start, length)
    return Slice.apply(
        input, key=(slice(None),) * dim + (slice(start, start + length),))


def select(input: Any, dim: int, index: int) -> Any:
    dim = normalize_dims(dim, input.array.ndim)[0]
    size = input.array.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.array.shape)} at dimension {dim}")
    return Select.apply(input, key=(slice(None),) * dim + (index,))


def cat(tensors: Any, dim: int = 0) -> Any:
    tensors = [as_operand(x) for x in tensors]
    dim = normalize_dims(dim, unwrap(tensors[0]).ndim)[0]
    try:
        return Cat.apply(*tensors, dim=dim)
    except ValueError:
        shapes = ", ".join(str(tuple(unwrap(x).shape)) for x in tensors)
        raise RuntimeError(f"cat: sizes of tensors must match except in dimension {dim}; got "
                           f"{shapes}") from None


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0) -> Any:
    tensors = [as_operand(x) for x in tensors]
    dim = normalize_dims(dim, unwrap(tensors[0]).ndim + 1)[0]
    try:
        return Stack.apply(*tensors, dim=dim)
    except ValueError:
        shapes = ", ".join(str(tuple(unwrap(x).shape)) for x in tensors)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {shapes}"
                           ) from None
