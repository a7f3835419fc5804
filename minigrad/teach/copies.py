"""Values as they were when recorded: the recorder's copies of tensors, one per version.

An optimizer step inside `with minigrad.trace():` must not change what the records show, so
values are copied as they are recorded. A tensor recorded twice at the same version (a node's
output, saved again by the next node) is copied once, and a view is copied as the same view
of its base's copy (a Linear's weight and its `weight.t()`: one copy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor


class Copies:
    """`of(t)`: `t`'s value now, kept apart from later in-place changes."""

    def __init__(self) -> None:
        # id(tensor) -> (tensor, its array, its version, a copy of the value then). (An entry
        # holds its tensor, so no other tensor can come to have that id meanwhile.)
        self.kept: dict[int, tuple[Tensor, np.ndarray, int, np.ndarray]] = {}

    def of(self, t: Tensor) -> np.ndarray:
        """One copy per tensor and version; a view's copy is a view of its base's copy."""
        data, version = t.array, t._version
        kept = self.kept.get(id(t))
        if kept is not None and kept[1] is data and kept[2] == version:
            return kept[3]
        base = t._base
        copy = None
        if base is not None and base._base is None:
            copy = same_view(data, base.array, self.of(base))
        if copy is None:
            copy = compact_copy(data)
        self.kept[id(t)] = (t, data, version, copy)
        return copy

    def clear(self) -> None:
        self.kept.clear()


def compact_copy(a: np.ndarray) -> np.ndarray:
    """A copy of `a`; a broadcast view (strides of 0: `x.expand(10**6, 3)`) is copied as its
    distinct values, broadcast again (read-only), so that it costs what its memory costs."""
    if a.size > 1 and 0 in a.strides:
        distinct = a[tuple(slice(0, 1) if st == 0 else slice(None) for st in a.strides)]
        return np.broadcast_to(np.array(distinct), a.shape)
    return np.array(a)


def same_view(view: np.ndarray, base: np.ndarray, base_copy: np.ndarray) -> np.ndarray | None:
    """The view of `base_copy` that `view` is of `base` (same offset, shape and strides), or
    None when `view` does not lie inside `base`'s memory laid out the same way."""
    if view.dtype != base.dtype or base_copy.strides != base.strides or not (
            base.flags.c_contiguous or base.flags.f_contiguous):
        return None
    start = base.__array_interface__["data"][0]
    lo, hi = byte_bounds(view)
    if not start <= lo <= hi <= start + base.nbytes:
        return None
    offset = view.__array_interface__["data"][0] - start
    return np.ndarray(view.shape, view.dtype, base_copy, offset, view.strides)


def byte_bounds(a: np.ndarray) -> tuple[int, int]:
    """The first byte `a` reads and one past the last."""
    lo = hi = a.__array_interface__["data"][0]
    for n, stride in zip(a.shape, a.strides):
        if n == 0:
            return lo, lo
        if stride < 0:
            lo += (n - 1) * stride
        else:
            hi += (n - 1) * stride
    return lo, hi + a.itemsize


def array_of(t: Any) -> np.ndarray | None:
    """A tensor's numpy array (a number's, as an array); None for None."""
    return None if t is None else t.array if isinstance(t, Tensor) else np.asarray(t)


def arrays_of(values: Any) -> list[np.ndarray | None]:
    """`array_of` each of `values` (one tensor, None, or several)."""
    if values is None or isinstance(values, Tensor):
        return [array_of(values)]
    return [array_of(v) for v in values]
