"""How big what an expression asks for would be, before it is computed (see expr.py).

An expression may make no tensor of more than `MAX_ELEMENTS` elements and no list or tuple
of more than `MAX_ITEMS` items. Elementwise and matmul results are sized here from their
inputs' shapes, so a refused one never allocates; views, reductions and joins are sized once
made (a view costs no memory, the others are no bigger than what they read).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor

MAX_ELEMENTS = 10_000_000  # 40 MB of float32 per tensor
MAX_ITEMS = 10_000  # elements of a list or tuple (`[x] * 3`, an index list)


def _shape(value: Any) -> tuple | None:
    if isinstance(value, Tensor):
        return value.array.shape
    if isinstance(value, bool | int | float):
        return ()
    return None


def _broadcast_size(values: list) -> int:
    """The element count of the broadcast of the tensors among `values` (0 if none, or if they
    do not broadcast: the op itself then says why)."""
    shapes = [s for s in map(_shape, values) if s is not None]
    if not any(isinstance(v, Tensor) for v in values):
        return 0
    try:
        return int(np.prod(np.broadcast_shapes(*shapes), dtype=np.float64))
    except ValueError:
        return 0


def _matmul_size(a: Any, b: Any) -> int:
    """The element count of `a @ b` (0 if the shapes do not fit: matmul then says why)."""
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb or isinstance(a, bool | int | float):
        return 0
    batch_a, batch_b = sa[:-2], sb[:-2]
    rows = sa[-2] if len(sa) > 1 else 1
    cols = sb[-1] if len(sb) > 1 else 1
    try:
        batch = np.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        return 0
    return int(np.prod(batch, dtype=np.float64) * rows * cols)


def binary_size(op: ast.operator, left: Any, right: Any) -> int:
    """How many elements (or list items) `left op right` would make, before computing it."""
    if isinstance(op, ast.MatMult):
        return _matmul_size(left, right)
    return _broadcast_size([left, right])


def binary_items(op: ast.operator, left: Any, right: Any) -> int:
    """How many items `[x] * n`, `n * [x]` or `[x] + [y]` would make (0 for anything else)."""
    for seq, times in ((left, right), (right, left)):
        if isinstance(seq, list | tuple) and isinstance(times, int) and isinstance(op, ast.Mult):
            return len(seq) * max(times, 0)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) + len(right)
    return 0


def call_size(name: str, args: list) -> int:
    """How many elements a call would make, where that is known before it runs."""
    if name in ("matmul", "mm", "bmm", "mv", "dot") and len(args) >= 2:
        return _matmul_size(args[0], args[1])
    if name in ("expand", "reshape", "view", "flatten", "permute", "transpose", "t", "sum",
                "mean", "amax", "amin", "max", "min", "cat", "stack", "squeeze", "unsqueeze"):
        return 0  # views, reductions, joins: sized by `bounded` once made (no copy before)
    return _broadcast_size(args)
