"""The shape and indexing functions with PyTorch's signatures: `view`, `reshape`, `permute`,
`x[key]`, `cat`, `stack` and the rest (re-exported by `minigrad.ops`).

They check the arguments and pick the op class; the op classes themselves (`View`, `Select`,
`Cat`, ...) are in `shape.py`. When there is nothing to record (the input needs no gradient,
or grad mode is off, as inside backward), the common views are made here directly, with
`view_of`: the same tensor `Function.apply` would return, for a fraction of its cost.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from minigrad.grad_mode import state
from minigrad.ops import shape as sh
from minigrad.ops.base import as_operand, unwrap, view_of
from minigrad.ops.reduce import reduce_dims

_INTEGERS = (int, np.integer)


def _shape_arg(size: tuple) -> tuple:
    """`view(2, 3)` and `view((2, 3))` both mean the shape (2, 3)."""
    if len(size) == 1 and not isinstance(size[0], _INTEGERS):
        return tuple(size[0])
    return size


def _infer(shape: tuple, numel: int, given: tuple) -> tuple:
    """`shape` with its -1 replaced by the size that makes `numel` elements."""
    if -1 in shape:
        known = math.prod([n for n in shape if n != -1])
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(given)}' is invalid for input of size {numel}")
        if len(shape) == 1:  # view(-1): no loop to run
            return (numel,)
        shape = tuple([numel // known if n == -1 else n for n in shape])
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{list(given)}' is invalid for input of size {numel}")
    return shape


def view(input: Any, *shape: Any) -> Any:
    shape = _shape_arg(shape)
    shape = _infer(shape, input.data.size, shape)
    if not (state.grad_enabled and input._requires_grad):  # nothing to record
        return view_of(input, sh.view_array(input.data, shape))
    return sh.View.apply(input, shape=shape)


def unsafe_view(input: Any, shape: tuple) -> Any:
    return sh.UnsafeView.apply(input, shape=_infer(tuple(shape), input.data.size, shape))


def reshape(input: Any, *shape: Any) -> Any:
    """view when the memory layout allows it, else clone then view (as PyTorch)"""
    shape = _shape_arg(shape)
    shape = _infer(shape, input.data.size, shape)
    probe = input.data.view()
    try:
        probe.shape = shape
    except AttributeError:
        return unsafe_view(clone(input), shape)
    if not (state.grad_enabled and input._requires_grad):  # nothing to record: the view
        return view_of(input, probe)
    if not input.data.flags.c_contiguous:  # a view of strided memory: PyTorch's _reshape_alias
        return sh.ReshapeAlias.apply(input, shape=shape)
    return sh.View.apply(input, shape=shape)


def view_as(input: Any, other: Any) -> Any:
    return view(input, other.data.shape)


def reshape_as(input: Any, other: Any) -> Any:
    return reshape(input, other.data.shape)


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    shape = input.data.shape
    if not shape:
        return reshape(input, (1,))
    start, end = start_dim % len(shape), end_dim % len(shape)
    if start == end:
        return input
    middle = int(np.prod(shape[start:end + 1]))
    return reshape(input, shape[:start] + (middle,) + shape[end + 1:])


def t(input: Any) -> Any:
    data = input.data
    if data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{data.ndim}D")
    if not (state.grad_enabled and input._requires_grad):  # nothing to record
        return view_of(input, data.T)
    return sh.T.apply(input)


def transpose(input: Any, dim0: int, dim1: int) -> Any:
    if not (state.grad_enabled and input._requires_grad):  # nothing to record
        return view_of(input, input.data.swapaxes(dim0, dim1))
    return sh.Transpose.apply(input, d0=dim0, d1=dim1)


swapaxes = transpose


def permute(input: Any, *dims: Any) -> Any:
    dims = _shape_arg(dims)
    if sorted(d % input.data.ndim for d in dims) != list(range(input.data.ndim)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.data.ndim} is not equal to len(dims) = "
                           f"{len(dims)}")
    return sh.Permute.apply(input, dims=tuple(d % input.data.ndim for d in dims))


def T_property(input: Any) -> Any:
    """`x.T`: all dims reversed (PermuteBackward0, as in PyTorch)"""
    return sh.Permute.apply(input, dims=tuple(reversed(range(input.data.ndim))))


def unsqueeze(input: Any, dim: int) -> Any:
    n = input.data.ndim + 1  # the new dim may go anywhere from before the first to after the last
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    dim %= n
    if not (state.grad_enabled and input._requires_grad):  # nothing to record
        return view_of(input, sh.unsqueeze_array(input.data, dim))
    return sh.Unsqueeze.apply(input, dim=dim)


def squeeze(input: Any, dim: Any = None) -> Any:
    if dim is None:
        return _squeeze(sh.Squeeze, input, tuple(range(input.data.ndim)))
    if isinstance(dim, int):
        return _squeeze(sh.SqueezeDim, input, reduce_dims(input, dim))
    return squeeze_dims(input, dim)


def squeeze_dims(input: Any, dims: tuple) -> Any:
    return _squeeze(sh.SqueezeDims, input, reduce_dims(input, dims))


def _squeeze(op: Any, input: Any, dims: tuple) -> Any:
    if not (state.grad_enabled and input._requires_grad):  # nothing to record
        return view_of(input, sh.squeeze_array(input.data, dims))
    return op.apply(input, dims=dims)


def expand(input: Any, *sizes: Any) -> Any:
    sizes = _shape_arg(sizes)
    shape = input.data.shape
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater "
                           f"or equal to the number of dimensions in the tensor ({len(shape)})")
    full = sizes
    if -1 in sizes:  # -1: keep that size
        full = tuple([shape[i - lead] if n == -1 else n for i, n in enumerate(sizes)])
    if not _plainly_expands(shape, full):
        try:
            np.broadcast_shapes(shape, full)
        except ValueError:
            raise RuntimeError(f"expand: the shape {shape} cannot be expanded to {full}"
                               ) from None
    if not (state.grad_enabled and input._requires_grad):  # nothing to record
        return view_of(input, np.broadcast_to(input.data, full))
    return sh.Expand.apply(input, shape=full)


def _plainly_expands(shape: tuple, full: tuple) -> bool:
    """Each size of `shape` is kept or is a 1 expanded, no size is negative: the usual case,
    told without numpy's broadcast_shapes (~2 us, more than the expand itself)."""
    lead = len(full) - len(shape)
    for n in full[:lead]:
        if n < 0:
            return False
    for n, m in zip(full[lead:], shape):
        if n != m and (m != 1 or n < 0):
            return False
    return True


def expand_as(input: Any, other: Any) -> Any:
    return expand(input, other.data.shape)


def clone(input: Any) -> Any:
    return sh.Clone.apply(input)


def contiguous(input: Any) -> Any:
    return input if input.data.flags.c_contiguous else clone(input)


def _basic_key(k: Any) -> bool:
    return k is None or k is Ellipsis or isinstance(k, int | np.integer | slice) and not \
        isinstance(k, bool)


def getitem(input: Any, key: Any) -> Any:
    """`a[key]`: ints and slices become Select/Slice steps per dim, as PyTorch records them;
    integer arrays and boolean masks one Index step."""
    key = key if isinstance(key, tuple) else (key,)
    key = tuple(unwrap(k) for k in key)
    key = tuple(np.asarray(k) if isinstance(k, list) else k for k in key)
    if not builtins.all(_basic_key(k) for k in key):
        return sh.Index.apply(input, key=key[0] if len(key) == 1 else key)
    if Ellipsis in key:
        i = key.index(Ellipsis)
        fill = input.data.ndim - builtins.sum(1 for k in key if k is not None) + 1
        key = key[:i] + (slice(None),) * fill + key[i + 1:]
    out, dim = input, 0
    for k in key:
        if k is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(k, slice):
            if k != slice(None):
                out = sh.Slice.apply(out, key=(slice(None),) * dim + (k,))
            dim += 1
        else:
            size = out.data.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            out = sh.Select.apply(out, key=(slice(None),) * dim + (int(k),))
    return out if out is not input else sh.Slice.apply(input, key=(slice(None),))


def narrow(input: Any, dim: int, start: int, length: int) -> Any:
    return sh.Slice.apply(
        input, key=(slice(None),) * dim + (slice(start, start + length),))


def select(input: Any, dim: int, index: int) -> Any:
    return sh.Select.apply(input, key=(slice(None),) * dim + (index,))


def cat(tensors: Any, dim: int = 0) -> Any:
    tensors = [as_operand(x) for x in tensors]
    dim = dim % unwrap(tensors[0]).ndim
    try:
        return sh.Cat.apply(*tensors, dim=dim)
    except ValueError:
        shapes = ", ".join(str(tuple(unwrap(x).shape)) for x in tensors)
        raise RuntimeError(f"cat: sizes of tensors must match except in dimension {dim}; got "
                           f"{shapes}") from None


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0) -> Any:
    tensors = [as_operand(x) for x in tensors]
    dim = dim % (unwrap(tensors[0]).ndim + 1)
    try:
        return sh.Stack.apply(*tensors, dim=dim)
    except ValueError:
        shapes = ", ".join(str(tuple(unwrap(x).shape)) for x in tensors)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {shapes}"
                           ) from None
