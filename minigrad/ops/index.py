"""Indexing and joining, with their functions: `x[key]`, narrow, select, cat, stack.

Their backward puts the gradient back where each element came from: into zeros of the input's
shape for indexing, split into the pieces for cat and stack.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import is_tensor, normalize_dims, unwrap
from minigrad.ops.tangent_rules import linear
from minigrad.ops.view_checks import narrow_start
from minigrad.ops.views import unsqueeze
from minigrad.surface import dtypes, meta

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
        arrays = [unwrap(t) for t in tensors]
        ctx.dim, ctx.dtypes = dim, [a.dtype for a in arrays]
        ctx.sizes = [a.shape[dim] if a.ndim else 0 for a in arrays]
        # (PyTorch skips a legacy empty 1-D tensor next to tensors of more dims)
        kept = [a for a in arrays if a.shape != (0,)] or arrays
        return np.concatenate(kept, axis=dim, dtype=dtypes.result_type(*arrays),
                              casting="unsafe")

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for size, needed, dtype in zip(ctx.sizes, ctx.needs_input_grad, ctx.dtypes):
            grads.append(_as_dtype(grad.narrow(ctx.dim, start, size), dtype) if needed
                         else None)
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
        arrays = [unwrap(t) for t in tensors]
        ctx.dim, ctx.dtypes = dim, [a.dtype for a in arrays]
        return np.stack(arrays, axis=dim, dtype=dtypes.result_type(*arrays), casting="unsafe")

    @staticmethod
    def backward(ctx, grad):
        return tuple(_as_dtype(grad.select(ctx.dim, i), dtype) if needed else None
                     for i, (needed, dtype) in enumerate(zip(ctx.needs_input_grad, ctx.dtypes)))


def _as_dtype(grad: Any, dtype: np.dtype) -> Any:
    """A piece of the joined gradient in its input's dtype (PyTorch's engine casts it so)."""
    return grad if grad.array.dtype == dtype else grad.to(dtype)


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
    # (nothing picked: a view of all of it; `s[...]` of a 0-d tensor too)
    return out if out is not input else Slice.apply(input, key=(slice(None),) * builtins.min(
        input.array.ndim, 1))


def narrow(input: Any, dim: int, start: int, length: int) -> Any:
    if input.array.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
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
    """The tensors joined along `dim`, in their `torch.result_type` (PyTorch's checks first:
    no 0-d tensor, one number of dims, equal sizes but along `dim`)."""
    tensors = _joined("cat", tensors)
    shapes = [unwrap(t).shape for t in tensors]
    for i, shape in enumerate(shapes):
        if not shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    sized = [(i, s) for i, s in enumerate(shapes) if s != (0,)] or list(enumerate(shapes))
    first = sized[0][1]
    dim = normalize_dims(dim, len(first))[0]
    for i, shape in sized[1:]:
        if len(shape) != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} "
                               f"and {len(shape)}")
        for d, (want, got) in enumerate(zip(first, shape)):
            if d != dim and want != got:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                                   f"Expected size {want} but got size {got} for tensor number "
                                   f"{i} in the list.")
    return Cat.apply(*tensors, dim=dim)


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0) -> Any:
    """The tensors (all of one shape) joined along a new dim `dim`, in their result type."""
    tensors = _joined("stack", tensors)
    shapes = [unwrap(t).shape for t in tensors]
    dim = normalize_dims(dim, len(shapes[0]) + 1)[0]
    for i, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shapes[0])} at entry 0 and {list(shape)} at entry {i}")
    return Stack.apply(*tensors, dim=dim)


def _joined(name: str, tensors: Any) -> list:
    """The tensors given to cat/stack; PyTorch's errors for a single tensor, for anything
    else (a number, a list, a numpy array) and for none."""
    if is_tensor(tensors):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        "not Tensor")
    tensors = list(tensors)
    for i, x in enumerate(tensors):
        if not is_tensor(x):
            kind = type(x).__module__.replace("builtins", "") + "." + type(x).__name__
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{kind.lstrip('.')}")
    if not tensors:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError("stack expects a non-empty TensorList")
    return tensors
