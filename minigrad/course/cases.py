"""What the grader feeds an op: the cases of each check, drawn once per batch.

A `Case` is the input arrays and the settings (keyword arguments). Each check has visible
cases (the student's own `course grade .` runs the same ones, drawn from a fixed seed) and,
in the teacher's grade, hidden ones drawn from the secret seed in the teacher's course.json:
larger shapes, two and more batch dimensions, zero-size dimensions, float32 inputs, and for
the stability check extreme values. The smallest cases come first, so the first failing case
is already a small example.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minigrad.course.entry import Op
from minigrad.testing.domains import Domain

EXPONENTS = (2.0, 3.0, 0.5, -1.0, 1.5)
HARD = ("broadcasting", "dim", "batched")  # a kind's harder-shapes check
COUNTS = {"forward": (24, 16), "backward": (20, 12), "shapes": (20, 12), "second": (8, 0),
          "stability": (0, 12)}  # (visible, hidden) cases per check
HIDDEN = ("larger", "zero_size", "float32", "more_batch", "extreme")  # what a hidden case is


@dataclass
class Case:
    """One call: input arrays and settings; `hidden` says what kind of hidden case it is
    ("" for a visible one). The reference fills in the rest (reference.py)."""

    arrays: tuple[np.ndarray, ...]
    params: dict[str, Any]
    hidden: str = ""
    grad: np.ndarray | None = None  # the gradient of the output sent into backward
    directions: tuple[np.ndarray, ...] = ()  # for the second derivative
    expected: dict[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(a.size for a in self.arrays)


def seed_of(op: str, check: str, secret: int | None) -> int:
    """The seed of a check's cases: fixed for visible ones, mixed with the secret for hidden."""
    base = zlib.crc32(f"{op}:{check}".encode())
    return base if secret is None else base ^ (secret & 0xFFFFFFFF) ^ 0x5EC12E7


def draw(op: Op, check: str, secret: int | None) -> list[Case]:
    """The cases of `check` ("forward", "backward", "shapes", "second", "stability"): the
    visible ones, then (when `secret` is given) the hidden ones."""
    visible, hidden = COUNTS[check]
    rng = np.random.default_rng(seed_of(op.name, check, None))
    hard = op.shapes_check is not None
    if check == "forward":
        found = _plain(op, rng, visible // 2 if hard else visible, 3)
        found += _hard(op, rng, visible // 2, 3, 1) if hard else []
    elif check == "shapes":
        found = _hard(op, rng, visible, 3, 1)
    else:
        found = _plain(op, rng, visible, 2 if check == "second" else 3)
    found.sort(key=lambda c: (c.size, len(c.arrays[0].shape)))
    if secret is not None and hidden:
        found += _hidden(op, check, np.random.default_rng(seed_of(op.name, check, secret)),
                         hidden)
    return found


def speed_case(op: Op) -> Case:
    """One large case for the speed check: about 65 thousand elements per input."""
    rng = np.random.default_rng(seed_of(op.name, "speed", None))
    big = {"matmul": ((8, 64, 64), (64, 64)), "transpose": ((64, 32, 32),)}
    shapes = big.get(op.kind) or ((256, 256),) * len(op.inputs)
    params = _params(op, rng, shapes[0], hard=False)
    return Case(tuple(_values(rng, s, op.domain(i)) for i, s in enumerate(shapes)), params)


def _plain(op: Op, rng: np.random.Generator, n: int, side: int) -> list[Case]:
    cases = [_simple(op, rng)]
    while len(cases) < n:
        shapes = _plain_shapes(op, rng, side)
        cases.append(_case(op, rng, shapes, hard=False))
    return cases


def _hard(op: Op, rng: np.random.Generator, n: int, side: int, batch: int) -> list[Case]:
    return [_case(op, rng, _hard_shapes(op, rng, side, batch), hard=True) for _ in range(n)]


def _case(op: Op, rng: np.random.Generator, shapes: tuple, hard: bool,
          values: Any = None) -> Case:
    params = _params(op, rng, shapes[0], hard)
    sample = values or _values
    return Case(tuple(sample(rng, s, op.domain(i)) for i, s in enumerate(shapes)), params)


def _simple(op: Op, rng: np.random.Generator) -> Case:
    """The smallest plain case, with the simplest values of each input's domain."""
    shapes = {"matmul": ((1, 1), (1, 1)), "transpose": ((1, 1),), "along": ((1,),)}
    shape = shapes.get(op.kind) or ((),) * len(op.inputs)
    return _case(op, rng, shape, hard=False, values=lambda r, s, d: simplest(s, d))


def simplest(shape: tuple, domain: Domain) -> np.ndarray:
    """An array of `shape` with the plainest values of `domain`: 0 where it may be, else 1
    (distinct values 0, 1, 2, ... scaled into it)."""
    if domain.distinct:
        n = math.prod(shape)
        return (domain.low + (np.arange(n) + 0.5) * (domain.high - domain.low) / max(n, 1)
                ).reshape(shape)
    zero_ok = domain.contains(0.0) or (not domain.positive and not domain.avoid
                                       and domain.inside is None)
    return np.full(shape, 0.0 if zero_ok else 1.0)


def _values(rng: np.random.Generator, shape: tuple, domain: Domain) -> np.ndarray:
    n = math.prod(shape)
    if domain.distinct:
        step = (domain.high - domain.low) / max(n, 1)
        v = domain.low + (rng.permutation(n) + 0.25 + 0.5 * rng.random(n)) * step
        return v.reshape(shape)
    v = rng.uniform(domain.low, domain.high, shape)
    for p in domain.avoid:
        near = np.abs(v - p) < domain.gap
        v = np.where(near, np.where(v >= p, p + domain.gap, p - domain.gap), v)
    return np.asarray(v, dtype=np.float64)


def _extreme(rng: np.random.Generator, shape: tuple, domain: Domain) -> np.ndarray:
    """Values a naive formula overflows on: magnitudes 30 to 1000 (tiny and huge ones for a
    positive domain), each with a random sign where the domain allows, and always one value
    above 709 and one below -709 (exp overflows there: a case without them would let an
    unstable formula pass)."""
    n = math.prod(shape)
    if domain.positive:
        return 10.0 ** rng.uniform(-300, 300, shape)
    magnitude = 10.0 ** rng.uniform(1.5, 3.0, n)
    if domain.distinct:
        magnitude = np.sort(magnitude) + np.arange(n)  # (still no ties)
        magnitude = magnitude[rng.permutation(n)]
    values = magnitude * rng.choice([-1.0, 1.0], n)
    at = rng.permutation(n)
    values[at[:1]] = 1000.5
    values[at[1:2]] = -1000.25
    return values.reshape(shape)


# -- shapes and settings by kind ---------------------------------------------------------------
def _shape(rng: np.random.Generator, lo: int, hi: int, side: int) -> tuple[int, ...]:
    return tuple(int(s) for s in rng.integers(1, side + 1, int(rng.integers(lo, hi + 1))))


def _plain_shapes(op: Op, rng: np.random.Generator, side: int) -> tuple:
    kind = op.kind
    if kind == "binary":
        s = _shape(rng, 0, 3, side)
        return (s, s)
    if kind == "matmul":
        n, k, m = (int(v) for v in rng.integers(1, side + 1, 3))
        return ((n, k), (k, m))
    if kind == "transpose":
        return (_shape(rng, 2, 2, side),)
    if kind == "along":
        return (_shape(rng, 1, 3, side),)
    return (_shape(rng, 0, 3, side),)  # unary, power, reduce, reshape


def _hard_shapes(op: Op, rng: np.random.Generator, side: int, batch: int) -> tuple:
    kind = op.kind
    if kind == "binary":
        while True:
            full = _shape(rng, 1, 3, side)
            a = tuple(1 if rng.random() < 0.4 else s for s in full)
            b = tuple(1 if rng.random() < 0.4 else s for s in full)
            a, b = a[int(rng.integers(0, len(a) + 1)):], b[int(rng.integers(0, len(b) + 1)):]
            if a != b:
                return (a, b)
    if kind == "matmul":
        n, k, m = (int(v) for v in rng.integers(1, side + 1, 3))
        front = tuple(int(v) for v in rng.integers(1, side + 1, batch))
        return (front + (n, k), (k, m))
    if kind == "transpose":
        return (_shape(rng, 3, 2 + batch, side),)
    return (_shape(rng, 1, 3, side),)  # reduce and along: another dim


def _params(op: Op, rng: np.random.Generator, shape: tuple, hard: bool) -> dict[str, Any]:
    ndim = len(shape)
    if op.kind == "power":
        return {"exponent": float(rng.choice(EXPONENTS))}
    if op.kind == "reshape":
        n = math.prod(shape)
        choices = [(-1,), (n, 1), (1, n), tuple(reversed(shape))]
        return {"shape": choices[int(rng.integers(0, 4))]}
    if op.kind in ("reduce", "along"):
        if not hard:
            return {} if op.kind == "reduce" else {"dim": -1}
        params: dict[str, Any] = {"dim": int(rng.integers(-ndim, ndim))}
        if "keepdim" in op.signature:
            params["keepdim"] = bool(rng.random() < 0.5)
        return params
    if op.kind == "transpose":
        if not hard:
            return {"dim0": 0, "dim1": 1}
        d0, d1 = rng.choice(ndim, 2, replace=False)
        return {"dim0": int(d0) - int(rng.integers(0, 2)) * ndim, "dim1": int(d1)}
    return {}


# -- hidden cases ------------------------------------------------------------------------------
def _hidden(op: Op, check: str, rng: np.random.Generator, n: int) -> list[Case]:
    """Hidden cases: larger shapes, more batch dimensions (matmul, transpose), zero-size
    dimensions, float32 inputs; extreme values for the stability check."""
    found: list[Case] = []
    hard = check == "shapes" or (check == "forward" and op.shapes_check is not None)
    for i in range(n):
        if check == "stability":
            case = _case(op, rng, _plain_shapes(op, rng, 3), hard=False, values=_extreme)
            case.hidden = "extreme"
        else:
            kind = ("larger", "zero_size", "float32", "more_batch")[i % 4]
            use_hard = hard and (check == "shapes" or i % 2 == 1)
            case = _hidden_case(op, rng, kind, use_hard)
        found.append(case)
    return found


def _hidden_case(op: Op, rng: np.random.Generator, kind: str, hard: bool) -> Case:
    if kind == "more_batch" and hard and op.kind in ("matmul", "transpose"):
        return _tag(_case(op, rng, _hard_shapes(op, rng, 3, int(rng.integers(2, 4))), True),
                    "more_batch")
    if kind == "zero_size":
        case = _case(op, rng, _hard_shapes(op, rng, 3, 1) if hard else
                     _plain_shapes(op, rng, 3), hard)
        return _tag(_zero_size(op, case, rng), "zero_size")
    shapes = _hard_shapes(op, rng, 6, 2) if hard else _plain_shapes(op, rng, 6)
    case = _case(op, rng, shapes, hard)
    if kind == "float32":
        case.arrays = tuple(a.astype(np.float32) for a in case.arrays)
        return _tag(case, "float32")
    return _tag(case, "larger")


def _tag(case: Case, hidden: str) -> Case:
    case.hidden = hidden
    return case


def _zero_size(op: Op, case: Case, rng: np.random.Generator) -> Case:
    """The case with one dimension made 0, where the op allows it (not the dimension a max
    or a softmax runs along, nor a matmul's inner one; the shape setting of reshape is made
    again). For two inputs that broadcast, the dimension is one of the broadcast shape's."""
    shapes = [a.shape for a in case.arrays]
    if op.kind == "binary":
        full = np.broadcast_shapes(*shapes)
        if not full:
            return case
        d = int(rng.integers(0, len(full)))
        new = [_zero_aligned(s, len(full), d, full[d]) for s in shapes]
        if not any(0 in s for s in new):
            return case
        return Case(tuple(np.zeros(s, dtype=a.dtype) for s, a in zip(new, case.arrays)),
                    dict(case.params))
    shape = shapes[0]
    if not shape:
        return case
    keep = {case.params.get("dim", -1) % len(shape)} if op.kind == "along" else set()
    if op.kind == "matmul":
        keep = {len(shape) - 1}
    free = [d for d in range(len(shape)) if d not in keep]
    if not free:
        return case
    d = int(rng.choice(free))
    zero = tuple(0 if i == d else s for i, s in enumerate(shape))
    arrays = [np.zeros(zero, dtype=case.arrays[0].dtype)] + list(case.arrays[1:])
    params = dict(case.params)
    if op.kind == "reshape":
        params["shape"] = (-1,)
    return Case(tuple(arrays), params)


def _zero_aligned(shape: tuple, ndim: int, d: int, size: int) -> tuple:
    """`shape` with its dimension aligned to the broadcast dimension `d` made 0 (unless it
    is a broadcast 1 beside a bigger size, which would no longer broadcast)."""
    i = d - (ndim - len(shape))
    if i < 0 or (shape[i] == 1 and size != 1):
        return shape
    return shape[:i] + (0,) + shape[i + 1:]
