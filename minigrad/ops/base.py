"""Small helpers every op module shares: unwrapping operands and clear shape errors."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import tensor as _tensor  # resolved at call time (tensor.py imports the ops)


def is_tensor(x: Any) -> bool:
    return isinstance(x, _tensor.Tensor)


def unwrap(x: Any) -> Any:
    """The numpy array of a Tensor; numbers and arrays pass through."""
    return x.data if isinstance(x, _tensor.Tensor) else x


def constant(array: Any) -> Any:
    """A Tensor that needs no gradient (masks, indices, zeros) for use in backward formulas."""
    return _tensor.Tensor._make(np.asarray(array), None, 0)


def as_operand(x: Any, like: Any = None) -> Any:
    """Numbers stay numbers (weakly typed, like PyTorch scalars); arrays become Tensors."""
    if isinstance(x, _tensor.Tensor | int | float):
        return x
    if isinstance(x, np.ndarray | np.generic | list | tuple):
        return _tensor.Tensor(x)
    raise TypeError(f"unsupported operand type for a minigrad op: {type(x).__name__}")


def broadcast_message(op: str, a: tuple, b: tuple) -> str:
    """PyTorch's words for shapes that do not broadcast, plus the op and both shapes."""
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and da != 1 and db != 1:
            dim = max(len(a), len(b)) - i
            return (f"{op}: shapes {tuple(a)} and {tuple(b)} do not broadcast. The size of "
                    f"tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
                    f"dimension {dim}")
    return f"{op}: shapes {tuple(a)} and {tuple(b)} do not broadcast"


def shape_of(x: Any) -> tuple:
    return tuple(np.shape(unwrap(x)))


def normalize_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """`dim` (None, int or sequence, negatives allowed) as a sorted tuple of axes."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        out.append(d % max(ndim, 1))
    return tuple(sorted(out))
