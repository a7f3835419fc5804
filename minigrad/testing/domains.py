"""Where an op's inputs may lie for a gradient check to mean something: away from kinks, poles
and ties (`Domain`), plus the two joint checks that look at both inputs (`apart`, `off_steps`).
The op table gives each input a domain; `tensor_strategies.py` draws values inside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

TOL = 1e-3  # how far from a kink/pole/tie a value must be for a check to count it valid


@dataclass(frozen=True)
class Domain:
    """Where an op's input may lie: `[low, high]`, `gap` away from the points in `avoid`,
    strictly positive, or with all values `gap` apart (`distinct`, for max/min)."""

    name: str
    low: float = -2.0
    high: float = 2.0
    avoid: tuple[float, ...] = ()
    gap: float = 0.1
    positive: bool = False
    distinct: bool = False
    inside: tuple[float, float] | None = None  # an open interval, e.g. (0, 1) for BCE

    def contains(self, values: Any, tol: float = TOL) -> bool:
        """True when every value is in the domain, at least `tol` from its edges."""
        v = np.asarray(values, dtype=np.float64)
        if not np.all(np.isfinite(v)):
            return False
        if self.positive and not np.all(v > tol):
            return False
        if self.inside and not np.all((v > self.inside[0] + tol) & (v < self.inside[1] - tol)):
            return False
        if any(np.any(np.abs(v - p) <= tol) for p in self.avoid):
            return False
        if self.distinct and v.size > 1:
            return bool(np.all(np.diff(np.sort(v.ravel())) > tol))
        return True


REAL = Domain("real")
POSITIVE = Domain("positive", low=0.1, high=2.0, positive=True)
NONZERO = Domain("nonzero", avoid=(0.0,), gap=0.25)
AWAY_FROM_ZERO = Domain("away_from_zero", avoid=(0.0,), gap=0.05)  # kinks of relu, abs
AWAY_FROM_BOUNDS = Domain("away_from_bounds", avoid=(-0.5, 0.5), gap=0.05)  # clamp's kinks
DISTINCT = Domain("distinct", distinct=True, gap=0.05)  # no ties for max/min/amax
PROBABILITY = Domain("probability", low=0.05, high=0.95, inside=(0.0, 1.0))
INSIDE_POLES = Domain("inside_poles", low=-1.2, high=1.2)  # of tan, at +-pi/2
AWAY_FROM_STEPS = Domain("away_from_steps", avoid=(-1.5, 0.0, 1.5), gap=0.05)  # of x % 1.5
DOMAINS = {d.name: d for d in (REAL, POSITIVE, NONZERO, AWAY_FROM_ZERO, AWAY_FROM_BOUNDS,
                               DISTINCT, PROBABILITY, AWAY_FROM_STEPS, INSIDE_POLES)}


def apart(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """Joint check for maximum/minimum: the two inputs never (nearly) tie."""
    a, b = np.broadcast_arrays(*values)
    return bool(np.all(np.abs(a - b) > tol))


def off_steps(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """Joint check for remainder: a/b is never (nearly) a whole number, where a mod b jumps."""
    a, b = np.broadcast_arrays(*values)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = a / b
    return bool(np.all(np.isfinite(ratio)) and np.all(np.abs(ratio - np.round(ratio)) > 0.05))


# -- float math, statistics, cumulative ops (op_table_math.py) ------------------------------
OFF_WHOLE = Domain("off_whole", avoid=(-2.0, -1.0, 0.0, 1.0, 2.0), gap=0.05)  # floor's steps
OFF_HALVES = Domain("off_halves", avoid=(-1.5, -0.5, 0.5, 1.5), gap=0.05)  # round's steps
UNIT_OPEN = Domain("unit_open", low=-0.9, high=0.9, inside=(-1.0, 1.0))  # asin, atanh, erfinv
ABOVE_ONE = Domain("above_one", low=1.2, high=3.0, inside=(1.0, 10.0))  # acosh
DOMAINS.update({d.name: d for d in (OFF_WHOLE, OFF_HALVES, UNIT_OPEN, ABOVE_ONE)})


def off_tenths(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """round(decimals=1) jumps where 10 * a is a half: stay away from those."""
    v = np.asarray(values[0], dtype=np.float64) * 10
    return bool(np.all(np.abs(v - np.floor(v) - 0.5) > 0.05))


def all_apart(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """Joint check for clamp with tensor bounds, dist: no two inputs (nearly) tie."""
    arrays = np.broadcast_arrays(*values)
    return all(bool(np.all(np.abs(a - b) > 0.05)) for i, a in enumerate(arrays)
               for b in arrays[i + 1:])


def _reduced(values: Any, params: dict) -> int:
    """How many elements each output of a reduction over params' dim/dimset reduces."""
    shape = np.shape(values)
    dims = params.get("dim", params.get("dimset"))
    if dims is None:
        return int(np.prod(shape, dtype=np.int64))
    dims = (dims,) if isinstance(dims, int) else dims
    return int(np.prod([shape[d] for d in dims], dtype=np.int64)) if shape else 1


def spread(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """var/std: more elements than the correction (1) in each reduction, and not all equal
    (std's kink at 0)."""
    x = np.asarray(values[0], dtype=np.float64)
    if _reduced(x, params) < 2:
        return False
    dims = params.get("dim", params.get("dimset"))
    return bool(np.all(np.std(x, axis=dims) > 0.05)) if x.ndim else False


def distinct_magnitudes(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """The inf-norm: no two |a_i| (nearly) tie, and none is near 0."""
    a = np.abs(np.asarray(values[0], dtype=np.float64)).ravel()
    return bool(np.all(a > 0.05)) and (a.size < 2 or bool(np.all(np.diff(np.sort(a)) > 0.05)))
