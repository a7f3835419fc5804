"""hypothesis strategies that need no op table: array shapes (alone or broadcasting together),
floats in a `Domain`, numpy arrays and leaf tensors. `strategies.py` re-exports them beside the
strategies that draw whole op calls and expressions from the table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minigrad.autograd.tensor import Tensor
from minigrad.testing.domains import REAL, Domain

SearchStrategy = st.SearchStrategy


# -- shapes ---------------------------------------------------------------------------------
def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 1, max_side: int = 4
           ) -> SearchStrategy[tuple[int, ...]]:
    """Array shapes: `()` up to `max_dims` dims of `min_side..max_side` each."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcastable_shapes(n: int = 2, min_dims: int = 0, max_dims: int = 3, min_side: int = 1,
                         max_side: int = 4) -> SearchStrategy[tuple[tuple[int, ...], ...]]:
    """`n` shapes that broadcast together, e.g. `((2, 3), (3,))` or `((4, 1), (1, 5))`."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=n, min_dims=min_dims, max_dims=max_dims, min_side=min_side,
        max_side=max_side).map(lambda b: tuple(b.input_shapes))


# -- values ---------------------------------------------------------------------------------
def elements(domain: Domain = REAL) -> SearchStrategy[float]:
    """Floats in `domain`: within [low, high], at least `gap` from every point it avoids."""
    base = st.floats(domain.low, domain.high, allow_nan=False, allow_infinity=False,
                     allow_subnormal=False)
    if not domain.avoid:
        return base

    def away(v: float) -> float:
        for p in domain.avoid:
            if abs(v - p) < domain.gap:
                v = p + domain.gap if v >= p else p - domain.gap
        return v

    return base.map(away)


_elements = elements  # `arrays` has a parameter of the same name


def arrays(shape: Any, dtype: Any = np.float64, elements: SearchStrategy | None = None,
           domain: Domain | None = None) -> SearchStrategy[np.ndarray]:
    """numpy arrays of `shape` (a tuple or a strategy of tuples) with values in `domain`
    (or drawn from `elements`). A `distinct` domain gives values at least `gap` apart."""
    domain = domain or REAL
    shape_st = shape if isinstance(shape, SearchStrategy) else st.just(tuple(shape))
    if domain.distinct and elements is None:
        return shape_st.flatmap(lambda s: _distinct(s, domain, dtype))
    elems = elements if elements is not None else _elements(domain)
    return shape_st.flatmap(lambda s: hnp.arrays(dtype, s, elements=elems))


def _distinct(shape: tuple, domain: Domain, dtype: Any) -> SearchStrategy[np.ndarray]:
    """Spread the values over [low, high] in a random order, each in its own slot."""
    n = int(np.prod(shape, dtype=np.int64))
    step = (domain.high - domain.low) / max(n, 1)

    def build(order: list, jitter: np.ndarray) -> np.ndarray:
        v = domain.low + (np.asarray(order, dtype=np.float64) + 0.25 + 0.5 * jitter) * step
        return v.reshape(shape).astype(dtype)

    return st.builds(build, st.permutations(range(n)),
                     hnp.arrays(np.float64, (n,), elements=st.floats(0, 1)))


def tensors(shape: Any = None, elements: SearchStrategy | None = None, dtype: Any = np.float64,
            requires_grad: bool = True, domain: Domain | None = None, name: str | None = None
            ) -> SearchStrategy[Tensor]:
    """Leaf tensors (float64, requires_grad by default) of `shape` with values in `domain`."""
    shape = shapes() if shape is None else shape
    return arrays(shape, dtype, elements, domain).map(
        lambda a: Tensor(a, requires_grad=requires_grad, name=name))
