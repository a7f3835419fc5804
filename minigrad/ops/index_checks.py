"""The checks of index tensors and masks that gathering.py and masking.py share, with
PyTorch's words: an index's dtype, shape and range, a mask's dtype and shape.

Each runs before anything is computed, so a refused call leaves nothing half-done.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import broadcast
from minigrad.ops.base import unwrap
from minigrad.surface import dtypes
from minigrad.surface.dtypes import C_NAMES


def index_array(index: Any, message: str) -> np.ndarray:
    """An index tensor's array as int64; `message` (its `{T}` the dtype's PyTorch name) when
    its dtype is not int32 or int64."""
    idx = np.asanyarray(unwrap(index))
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(message.format(T=dtypes.TORCH_NAMES.get(idx.dtype, idx.dtype.name)))
    return idx.astype(np.int64, copy=False)


def check_in_range(idx: np.ndarray, n: int, dim: int, error: type = RuntimeError) -> None:
    """Every position in [0, n), as gather and scatter want them."""
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise error(f"index {bad.flat[0]} is out of bounds for dimension {dim} with size {n}")


def check_index_shape(input: Any, dim: int, idx: np.ndarray, word: str,
                      src: Any = None) -> None:
    """gather's and scatter's index: as many dims as the input (and src), and no larger than
    either apart from `dim` (no larger than src at all)."""
    shape = input.array.shape
    for name, tensor in ((word, input), ("src", src)):  # (a 0-d tensor counts as 1-d here)
        if tensor is not None and max(idx.ndim, 1) != max(tensor.array.ndim, 1):
            raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                               f"{name} tensor")
    too_big = any(n > m for d, (n, m) in enumerate(zip(idx.shape, shape)) if d != dim)
    if src is None:
        if too_big and word == "input":
            d = next(d for d, (n, m) in enumerate(zip(idx.shape, shape)) if d != dim and n > m)
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(idx.shape)} to be no larger than self {list(shape)} "
                               f"apart from dimension {dim}")
        if too_big:
            raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                               f"{list(shape)} apart from dimension {dim}")
        return
    src_shape = src.array.shape
    if too_big or any(n > m for n, m in zip(idx.shape, src_shape)):
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                           f"{list(shape)} apart from dimension {dim} and to be no larger size "
                           f"than src {list(src_shape)}")


def check_bool_mask(mask: Any, message: str, shape: tuple | None = None,
                    op: str = "") -> np.ndarray:
    """A mask's boolean array; `message` (`{c}`/`{T}` the dtype's C++/PyTorch name) for any
    other dtype, and PyTorch's words when it does not broadcast with `shape` (tensor a is the
    mask, b the input)."""
    m = np.asanyarray(unwrap(mask))
    if m.dtype != np.bool_:
        raise RuntimeError(message.format(c=C_NAMES.get(m.dtype, m.dtype.name),
                                          T=dtypes.TORCH_NAMES.get(m.dtype, m.dtype.name)))
    if shape is not None:
        try:
            np.broadcast_shapes(shape, m.shape)
        except ValueError:
            raise RuntimeError(broadcast.broadcast_message(op, m.shape, shape)) from None
    return m
