"""The one place that checks the arguments of the view ops (view, reshape, expand, flatten,
narrow) against the input's shape, with PyTorch's messages, before anything is made."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.ops.base import normalize_dims
from minigrad.surface import dtypes


def expanded_shape(shape: tuple, sizes: tuple, dtype: np.dtype) -> tuple:
    """The shape `expand(*sizes)` makes of `shape` (-1 keeps a size); PyTorch's errors."""
    if plainly_expands(shape, sizes):  # (the usual case, told fast)
        return sizes
    lead = len(sizes) - len(shape)
    if lead < 0:
        kind = f"minigrad.{dtypes.TORCH_NAMES[np.dtype(dtype)]}Tensor"
        raise RuntimeError(f"expand({kind}{{{list(shape)}}}, size={list(sizes)}): the number of "
                           f"sizes provided ({len(sizes)}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({len(shape)})")
    full = []
    for i in reversed(range(len(sizes))):  # (from the last dim, as PyTorch checks them)
        n = sizes[i]
        if i < lead:
            if n == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            if n < 0:
                raise RuntimeError("numel: integer multiplication overflow")
            full.append(n)
            continue
        old = shape[i - lead]
        if n == -1:
            n = old
        if n != old and old != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) must match the existing size ({old}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shape)}")
        full.append(n)
    return tuple(reversed(full))


def flatten_dims(ndim: int, start_dim: int, end_dim: int) -> tuple[int, int]:
    """`flatten`'s start and end as axes (a 0-d tensor has one, as in PyTorch)."""
    start, end = normalize_dims(start_dim, ndim)[0], normalize_dims(end_dim, ndim)[0]
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    return start, end


def narrow_start(size: int, start: int, length: int) -> int:
    """`narrow`'s start as an index into a dim of `size` elements; PyTorch's errors."""
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start + size if start < 0 else start
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return start


VIEW_DTYPE = (" (x.view(dtype), which reads the same bytes as another dtype, is not in minigrad: "
              "x.to(dtype) converts the values; see tutorials/differences.md)")


_INTEGERS = (int, np.integer)


def shape_arg(size: tuple, named: Any = None, op: str = "", name: str = "") -> tuple:
    """`view(2, 3)`, `view((2, 3))` and `view(size=(2, 3))` all mean the shape (2, 3)."""
    if named is not None:
        if size:
            raise TypeError(f"{op}() got multiple values for argument '{name}'")
        size = (named,)
    if len(size) == 1 and not isinstance(size[0], _INTEGERS):
        if isinstance(size[0], str) or not hasattr(size[0], "__iter__"):  # (x.view(torch.int32))
            kind = type(size[0]).__name__
            raise TypeError(f"{op}(): argument '{name}' (position 1) must be tuple of ints, not "
                            f"{kind}" + (VIEW_DTYPE if kind == "dtype" else ""))
        return tuple(size[0])
    return size


def infer(shape: tuple, numel: int, given: tuple) -> tuple:
    """`shape` with its -1 replaced by the size that makes `numel` elements."""
    for i, n in enumerate(shape):
        if n < -1:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape "
                               f"{list(given)}")
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
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


def plainly_expands(shape: tuple, full: tuple) -> bool:
    """Each size of `shape` is kept or is a 1 expanded, no size is negative: the usual case,
    told without numpy's broadcast_shapes (~2 us, more than the expand itself)."""
    lead = len(full) - len(shape)
    if lead < 0:
        return False
    for n in full[:lead]:
        if n < 0:
            return False
    for n, m in zip(full[lead:], shape):
        if n != m and (m != 1 or n < 0):
            return False
    return True


def permute_axes(dims: tuple, ndim: int) -> tuple:
    """The axes `permute(*dims)` asks for, each dim in range and none twice."""
    if len(dims) != ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {ndim} is not equal to len(dims) = {len(dims)}")
    axes = tuple(normalize_dims(d, ndim)[0] for d in dims)
    if len(set(axes)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return axes
