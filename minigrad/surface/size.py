"""`minigrad.Size`: a tensor's shape, a tuple that prints as PyTorch prints `torch.Size`."""

from __future__ import annotations

from typing import Any

import numpy as np


class Size(tuple):
    """A shape: `Size([2, 3])`; slicing it or adding a tuple to it gives a Size again."""

    def __new__(cls, sizes: Any = ()) -> Size:
        sizes = tuple(sizes)
        for i, n in enumerate(sizes):
            if not isinstance(n, int | np.integer) or isinstance(n, bool):
                raise TypeError(f"minigrad.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(n).__name__}')")
        return tuple.__new__(cls, sizes)

    def __repr__(self) -> str:
        return f"minigrad.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        return int(np.prod(self, dtype=np.int64))

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return _new(Size, item) if isinstance(key, slice) else item

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, times: Any) -> Size:
        return _new(Size, tuple.__mul__(self, times))

    __rmul__ = __mul__

    def __reduce__(self) -> tuple:
        return Size, (tuple(self),)


_new = tuple.__new__


def shape_of(shape: tuple) -> Size:
    """A numpy shape as a Size, unchecked (numpy's shapes are ints): what `x.shape` returns."""
    return _new(Size, shape)


def sizes(op: str, size: tuple, keyword: Any = None) -> tuple:
    """Factory `op`'s shape from `*size` (`zeros(2, 3)`), one sequence (`zeros((2, 3))`, a
    Size, a list) or `size=`, with PyTorch's errors for anything else."""
    if keyword is not None:
        if size:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        size = (keyword,)
    elif not size:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], tuple | list):
        size = size[0]
        for i, n in enumerate(size):
            if not _is_int(n):
                raise TypeError(f"{op}(): argument 'size' failed to unpack the object at pos "
                                f'{i + 1} with error "type must be tuple of ints,but got '
                                f'{type(n).__name__}"')
    for n in size:
        if not _is_int(n):
            raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(n).__name__}")
        if n < 0:
            raise RuntimeError(f"{op}: Dimension size must be non-negative.")
    return tuple(int(n) for n in size)


def _is_int(n: Any) -> bool:
    return isinstance(n, int | np.integer) and not isinstance(n, bool)
