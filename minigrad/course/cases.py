"""What the grader feeds an op: hypothesis strategies of `Case`s (input arrays and settings),
one per (op, check).

Each kind has its plain shapes (same-shape inputs, the default dim, 2-D matrices) and, for
the "shapes" check of its kind, harder ones: shapes that broadcast, any dim with keepdim,
a batch in front of a matmul. The forward check draws from both, the backward checks keep
them apart so that the feedback says which one is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from hypothesis import strategies as st

from minigrad.autograd.tensor import Tensor
from minigrad.course.catalog import OPS
from minigrad.course.entry import Op
from minigrad.testing.domains import Domain
from minigrad.testing.tensor_strategies import arrays, broadcastable_shapes, shapes

MAX_SIDE = 3
HARD = ("broadcasting", "dim", "batched")  # the kinds' harder-shapes checks
EXPONENTS = (2.0, 3.0, 0.5, -1.0, 1.5)


@dataclass(frozen=True)
class Case:
    """One drawn call: the input arrays (float64) and the settings passed as keywords."""

    arrays: tuple[np.ndarray, ...]
    params: dict[str, Any]

    def tensors(self, names: tuple[str, ...], requires_grad: bool = True) -> tuple[Tensor, ...]:
        """Fresh leaf tensors (copies: a check never sees another check's changes)."""
        return tuple(Tensor(a.copy(), requires_grad=requires_grad, name=n)
                     for a, n in zip(self.arrays, names))


def cases(op: Op, check: str) -> st.SearchStrategy[Case]:
    """The cases of `check` for `op` (the forward check covers the harder shapes too)."""
    if check == "forward":
        hard = [c for c in op.checks if c in HARD]
        return st.one_of(_cases(op, False), *[_cases(op, True) for _ in hard])
    return _cases(op, check in HARD, small=check == "second")


def _cases(op: Op, hard: bool, small: bool = False) -> st.SearchStrategy[Case]:
    side = 2 if small else MAX_SIDE  # (gradgradcheck is the slow one)

    @st.composite
    def build(draw: Any) -> Case:
        in_shapes = draw(_shapes(op.kind, hard, side))
        params = draw(_params(op.name, hard, in_shapes[0]))
        values = tuple(draw(_values(s, op.domain(i))) for i, s in enumerate(in_shapes))
        return Case(values, params)

    return build()


# (the strategies are cached: hypothesis validates each new strategy object, which is slow)
@cache
def _values(shape: tuple, domain: Domain) -> st.SearchStrategy[np.ndarray]:
    return arrays(shape, domain=domain)


@cache
def _shapes(kind: str, hard: bool, side: int) -> st.SearchStrategy[tuple]:
    one = lambda lo, hi: shapes(lo, hi, max_side=side).map(lambda s: (s,))  # noqa: E731
    n = st.integers(1, side)
    if kind == "binary":
        if hard:
            return broadcastable_shapes(2, max_side=side).filter(lambda s: s[0] != s[1])
        return shapes(0, 3, max_side=side).map(lambda s: (s, s))
    if kind == "reduce":
        return one(1, 3) if hard else one(0, 3)
    if kind == "along":
        return one(1, 3)
    if kind == "transpose":
        return one(3, 3) if hard else one(2, 2)
    if kind == "matmul":
        batch = st.tuples(n) if hard else st.just(())
        return st.tuples(batch, n, n, n).map(lambda t: (t[0] + (t[1], t[2]), (t[2], t[3])))
    return one(0, 3)  # unary, power, reshape


@cache
def _params(name: str, hard: bool, shape: tuple) -> st.SearchStrategy[dict]:
    op, ndim = OPS[name], len(shape)
    if op.kind == "power":
        return st.fixed_dictionaries({"exponent": st.sampled_from(EXPONENTS)})
    if op.kind == "reshape":
        n = int(np.prod(shape, dtype=np.int64))
        return st.sampled_from([(-1,), (n, 1), (1, n), tuple(reversed(shape))]).map(
            lambda s: {"shape": s})
    if op.kind in ("reduce", "along"):
        if not hard:
            return st.just({} if op.kind == "reduce" else {"dim": -1})
        dims = {"dim": st.integers(-ndim, ndim - 1)}
        if "keepdim" in op.signature:
            dims["keepdim"] = st.booleans()
        return st.fixed_dictionaries(dims)
    if op.kind == "transpose":
        if not hard:
            return st.just({"dim0": 0, "dim1": 1})
        return st.tuples(st.integers(-ndim, ndim - 1), st.integers(-ndim, ndim - 1)).filter(
            lambda d: d[0] % ndim != d[1] % ndim).map(lambda d: {"dim0": d[0], "dim1": d[1]})
    return st.just({})


def describe(case: Case, names: tuple[str, ...]) -> dict[str, Any]:
    """The case as the feedback shows it: each input's shape and values, and the settings."""
    with np.printoptions(precision=4, suppress=True, linewidth=90, threshold=30):
        inputs = [{"name": n, "shape": list(a.shape), "values": np.array2string(a)}
                  for n, a in zip(names, case.arrays)]
    return {"inputs": inputs, "params": {k: _plain(v) for k, v in case.params.items()}}


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v
