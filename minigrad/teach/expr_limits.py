"""How big and how long what an expression asks for would be, before it is computed (see
expr.py), and the budget of the whole expression.

One op may make no tensor of more than `MAX_ELEMENTS` elements and no list or tuple of more
than `MAX_ITEMS` items. Elementwise, matmul and join results are sized here from their
inputs' shapes, so a refused one never allocates; views and reductions are sized once made
(a view costs no memory, a reduction is no bigger than what it reads). The whole expression
has a `Budget`: all the tensors it makes together (`MAX_TOTAL`: a trace keeps a copy and a
gradient of each, so the process needs a few times that), all the steps its ops take
(`MAX_WORK`: elements read and written, multiply-adds of products) and `MAX_SECONDS`. So no
expression of at most 10 kB takes more than 1 GB or 10 s, backward and explanation included.
"""

from __future__ import annotations

import ast
import time
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor

MAX_ELEMENTS = 10_000_000  # 40 MB of float32 per tensor
MAX_ITEMS = 10_000  # elements of a list or tuple (`[x] * 3`, an index list)
MAX_TOTAL = 20_000_000  # elements of all the tensors one expression makes
MAX_WORK = 200_000_000  # element steps of all its ops (a few seconds with backward)
MAX_SECONDS = 4.0  # computing it (its backward and explanation take about as long again)
MACS_PER_STEP = 16  # a product's multiply-adds run that much faster than other element steps


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


def _matmul_size(a: Any, b: Any, inner: bool = False) -> int:
    """The element count of `a @ b` (0 if the shapes do not fit: matmul then says why); with
    `inner`, its multiply-adds (each element is a sum over a's last dim)."""
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
    return int(np.prod(batch, dtype=np.float64) * rows * cols * (sa[-1] if inner else 1))


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


PRODUCTS = ("matmul", "mm", "bmm", "mv", "dot")


def call_size(name: str, args: list) -> int:
    """How many elements a call would make, where that is known before it runs."""
    if name in PRODUCTS and len(args) >= 2:
        return _matmul_size(args[0], args[1])
    if name in ("cat", "stack") and args and isinstance(args[0], list | tuple):
        return sum(v.array.size for v in args[0] if isinstance(v, Tensor))
    if name in ("expand", "reshape", "view", "flatten", "permute", "transpose", "t", "sum",
                "mean", "amax", "amin", "max", "min", "squeeze", "unsqueeze"):
        return 0  # views, reductions: sized by `bounded` once made (no copy before)
    return _broadcast_size(args)


def work(name: str, args: list, size: int) -> int:
    """The steps an op takes: the elements of its tensor operands (in lists too), those it
    makes (`size`), and a product's multiply-adds (BLAS does MACS_PER_STEP of them a step)."""
    steps = size + sum(_elements(a) for a in args)
    if name in (*PRODUCTS, "@") and len(args) >= 2:
        steps += _matmul_size(args[0], args[1], inner=True) // MACS_PER_STEP
    return steps


def _elements(value: Any) -> int:
    if isinstance(value, Tensor):
        return value.array.size
    if isinstance(value, list | tuple):
        return sum(_elements(v) for v in value)
    return 0


class Budget:
    """What one expression has used: elements made, steps taken, time since it started.
    Each check returns None, or why the expression is refused: a key of the phrase table
    expr_words.EXPR_WORDS and the values its words take."""

    def __init__(self) -> None:
        self.made, self.steps, self.start = 0, 0, time.perf_counter()

    def before(self, size: int, steps: int) -> tuple[str, dict] | None:
        """An op about to make `size` elements in `steps` steps."""
        if size > MAX_ELEMENTS:
            return "elements", {"size": size, "limit": MAX_ELEMENTS}
        self.steps += steps
        if self.steps > MAX_WORK:
            return "work", {"limit": MAX_WORK}
        return None

    def items(self, items: int) -> tuple[str, dict] | None:
        """A list or tuple of `items` items, about to be made or made."""
        if items > MAX_ITEMS:
            return "items", {"items": items, "limit": MAX_ITEMS}
        return None

    def after(self, value: Any) -> tuple[str, dict] | None:
        """An op made `value`: its new memory counts, and the time so far."""
        if isinstance(value, list | tuple):
            return self.items(len(value))
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2 ** 64:
            return "too_large", {}
        if isinstance(value, Tensor):
            if value.array.size > MAX_ELEMENTS:
                return self.before(value.array.size, 0)
            if value.array.base is None:  # (a view of memory already counted costs nothing)
                self.made += value.array.size
            if self.made > MAX_TOTAL:
                return "total", {"limit": MAX_TOTAL}
        if time.perf_counter() - self.start > MAX_SECONDS:
            return "seconds", {"limit": MAX_SECONDS}
        return None
