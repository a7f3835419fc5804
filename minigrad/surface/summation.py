"""Sums with PyTorch's accuracy along any dim: the one place minigrad adds up float arrays.

numpy sums the innermost contiguous dim pairwise, which is accurate, but it sums any other
dim one row at a time into a float32 running total. Each addition rounds, and once the total
passes 2**24, adding 1 no longer changes it: 2**25 ones summed along dim 0 give 2**24, and
5000 rows of 0.01 give 50.0007. PyTorch's cascade sum gives 2**25 and 50.0.

`add_reduce` is `np.add.reduce` with a float64 running total whenever a reduced dim of a
float16/float32 array is longer than `LONG` rows, rounded back to the array's dtype at the end.
Shorter sums keep numpy's reduce as it is: a 128-row total is off by at most 128 roundings,
a few millionths, and each step of the benchmarks (a batch of 128) pays just one size check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LONG", "add_reduce"]

LONG = 128  # rows: a longer float32 sum gets a float64 total


def add_reduce(a: np.ndarray, axis: Any = None, keepdims: bool = False) -> Any:
    """`np.add.reduce(a, axis=axis, keepdims=keepdims)`, accurate for long float sums."""
    if a.size > LONG and a.dtype.char in "ef" and _longest(a, axis) > LONG:  # float16, 32
        return np.add.reduce(a, axis=axis, keepdims=keepdims, dtype=np.float64).astype(a.dtype)
    return np.add.reduce(a, axis=axis, keepdims=keepdims)


def _longest(a: np.ndarray, axis: Any) -> int:
    """The length of `a`'s longest dim among those `axis` reduces."""
    shape = a.shape
    if axis is None:
        return max(shape, default=1)
    if isinstance(axis, int):
        return shape[axis]
    return max((shape[d] for d in axis), default=1)
