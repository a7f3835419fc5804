"""hypothesis strategies for gradient checks: shapes, values in an op's domain, whole op calls,
and random expressions over the op table.

    from hypothesis import given
    from minigrad.testing import gradcheck, strategies as mst

    @given(mst.tensors(shape=(3,), domain=mst.POSITIVE))
    def test_my_log(x):
        assert gradcheck(MyLog.apply, x)

Everything is float64 by default: that is what finite differences need. The strategies that
need no op table (shapes, values, arrays, tensors) are in `tensor_strategies.py`, re-exported
here; this file draws from the table: one op's inputs and params, and whole expressions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import assume, reject
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad
from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.tensor import Tensor
from minigrad.testing.domains import (
    AWAY_FROM_BOUNDS,
    AWAY_FROM_ZERO,
    DISTINCT,
    DOMAINS,
    NONZERO,
    POSITIVE,
    REAL,
    Domain,
)
from minigrad.testing.expression import Apply, Expression, Leaf, Node, evaluate
from minigrad.testing.op_spec import LAYER_SHAPES, OpSpec
from minigrad.testing.op_table import OPS, by_name
from minigrad.testing.tensor_strategies import (
    arrays,
    broadcastable_shapes,
    elements,
    shapes,
    tensors,
)

__all__ = [
    "AWAY_FROM_BOUNDS", "AWAY_FROM_ZERO", "DISTINCT", "DOMAINS", "NONZERO", "POSITIVE", "REAL",
    "GUARD", "OpCase", "arrays", "broadcastable_shapes", "elements", "expression_inputs",
    "expressions", "input_shapes", "op_cases", "op_params", "shapes", "tensors",
]

NAMES = ("x", "y", "z", "w")
SearchStrategy = st.SearchStrategy


# -- one op: shapes, params, inputs -----------------------------------------------------------
@st.composite
def _has_one(draw: Any, max_side: int) -> tuple:
    s = list(draw(shapes(1, 3, max_side=max_side)))
    s[draw(st.integers(0, len(s) - 1))] = 1
    return (tuple(s),)


@st.composite
def _cat(draw: Any, max_side: int) -> tuple:
    a = draw(shapes(1, 3, max_side=max_side))
    b = list(a)
    b[draw(st.integers(0, len(a) - 1))] = draw(st.integers(1, max_side))
    return a, tuple(b)


@st.composite
def _batched(draw: Any, max_side: int) -> tuple:
    side = st.integers(1, max_side)
    n, k, m = draw(side), draw(side), draw(side)
    batch_a, batch_b = draw(broadcastable_shapes(2, 0, 2, max_side=max_side))
    if not batch_a:
        batch_a, batch_b = (draw(side),), ()
    if batch_a == (1,) and len(batch_b) == 1:
        # 3-D (batch 1) @ 3-D: PyTorch runs it as 2-D @ N-D (root TransposeBackward0 or
        # CloneBackward0, the matmul_mat_batched entry), so both batches get the same size
        batch_a = batch_b
    if draw(st.booleans()):
        return batch_a + (n, k), (k,)  # N-D @ 1-D
    return batch_a + (n, k), batch_b + (k, m)


@st.composite
def _rhs_batched(draw: Any, ndim: int, max_side: int) -> tuple:
    # n, m >= 2 for 2-D @ N-D: PyTorch skips the final clone when the result is one row or
    # column, and then its root node is TransposeBackward0 instead of CloneBackward0
    low = 2 if ndim == 2 else 1
    k, m = draw(st.integers(1, max_side)), draw(st.integers(low, max(low, max_side)))
    batch = draw(shapes(1, 2, max_side=max_side))
    a = (draw(st.integers(2, max(2, max_side))), k) if ndim == 2 else (k,)
    return a, batch + (k, m)


@st.composite
def _linear_nd(draw: Any, max_side: int) -> tuple:
    k, m = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    lead = draw(st.sampled_from([(), (2, 3)])) if max_side > 1 else ()
    return lead + (k,), (m, k), (m,)


def _sides(count: int, max_side: int) -> SearchStrategy[tuple[int, ...]]:
    return st.tuples(*[st.integers(1, max_side)] * count)


_SHAPES: dict[str, Callable[[int, int], SearchStrategy]] = {
    "any": lambda n, m: shapes(0, 3, max_side=m).map(lambda s: (s,)),
    "nonscalar": lambda n, m: shapes(1, 3, max_side=m).map(lambda s: (s,)),
    "matrix": lambda n, m: shapes(2, 2, max_side=m).map(lambda s: (s,)),
    "ndim2": lambda n, m: shapes(2, 3, max_side=m).map(lambda s: (s,)),
    "has_one": lambda n, m: _has_one(m),
    "broadcast": lambda n, m: broadcastable_shapes(n, max_side=m),
    "into": lambda n, m: broadcastable_shapes(2, max_side=m).map(
        lambda s: (np.broadcast_shapes(*s), s[1])),
    "same": lambda n, m: shapes(0, 3, max_side=m).map(lambda s: (s,) * n),
    "cat": lambda n, m: _cat(m),
    "dot": lambda n, m: _sides(1, m).map(lambda s: ((s[0],), (s[0],))),
    "mm": lambda n, m: _sides(3, m).map(lambda s: ((s[0], s[1]), (s[1], s[2]))),
    "mv": lambda n, m: _sides(2, m).map(lambda s: ((s[0], s[1]), (s[1],))),
    "vm": lambda n, m: _sides(2, m).map(lambda s: ((s[0],), (s[0], s[1]))),
    "bmm": lambda n, m: _sides(4, m).map(lambda s: ((s[0], s[1], s[2]), (s[0], s[2], s[3]))),
    "batched": lambda n, m: _batched(m),
    "mat_batched": lambda n, m: _rhs_batched(2, m),
    "vec_batched": lambda n, m: _rhs_batched(1, m),
    "linear": lambda n, m: _sides(3, m).map(lambda s: ((s[0], s[1]), (s[2], s[1]), (s[2],))),
    "linear_nobias": lambda n, m: _sides(3, m).map(lambda s: ((s[0], s[1]), (s[2], s[1]))),
    "linear_nd": lambda n, m: _linear_nd(m),
}


# the layers' shape kinds: one of a few fixed choices (op_spec.LAYER_SHAPES)
_SHAPES.update({kind: (lambda n, m, c=choices: st.sampled_from(c))
                for kind, choices in LAYER_SHAPES.items()})


def input_shapes(spec: OpSpec, max_side: int = 3) -> SearchStrategy[tuple]:
    """Shapes of the op's inputs that its `shapes` rule accepts."""
    return _SHAPES[spec.shapes](spec.arity, max_side)


def _factor_shape(numel: int) -> SearchStrategy[tuple]:
    """Shapes with `numel` elements (sometimes with a -1), for view/reshape."""
    factors, n, p = [], numel, 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1

    @st.composite
    def build(draw: Any) -> tuple:
        ndim = draw(st.integers(0 if numel == 1 else 1, 3))
        dims = [1] * ndim
        for f in factors:
            dims[draw(st.integers(0, ndim - 1))] *= f
        if ndim and draw(st.booleans()):
            dims[draw(st.integers(0, ndim - 1))] = -1
        return tuple(dims)

    return build()


@st.composite
def _expand_size(draw: Any, shape: tuple) -> tuple:
    lead = tuple(draw(st.lists(st.integers(1, 3), max_size=1)))
    size = [draw(st.integers(1, 3)) if n == 1 else draw(st.sampled_from([n, -1]))
            for n in shape]
    return lead + tuple(size)


@st.composite
def _span(draw: Any, n: int) -> slice:
    start = draw(st.integers(0, n - 1))
    stop = draw(st.integers(start + 1, n))
    return slice(start, stop, draw(st.sampled_from([None, 2])))


@st.composite
def _mask(draw: Any, shape: tuple) -> Any:
    m = draw(hnp.arrays(np.bool_, shape))
    m.flat[draw(st.integers(0, m.size - 1))] = True  # at least one element picked
    return m.tolist()


def _cat_dims(a: tuple, b: tuple) -> list[int]:
    return [d for d in range(len(a))
            if all(x == y for k, (x, y) in enumerate(zip(a, b)) if k != d)]


_PARAMS: dict[str, Callable[[tuple, dict], SearchStrategy]] = {
    "dim": lambda s, p: st.integers(-len(s[0]), len(s[0]) - 1),
    "dimset": lambda s, p: st.lists(st.integers(0, len(s[0]) - 1), min_size=1,
                                    max_size=len(s[0]), unique=True).map(
        lambda d: tuple(sorted(d))),
    "dims": lambda s, p: st.permutations(range(len(s[0]))).map(tuple),
    "dim0": lambda s, p: st.integers(0, len(s[0]) - 1),
    "dim1": lambda s, p: st.integers(-len(s[0]), len(s[0]) - 1).filter(
        lambda d: d % len(s[0]) != p["dim0"]),
    "newdim": lambda s, p: st.integers(-len(s[0]) - 1, len(s[0])),
    "onedim": lambda s, p: st.sampled_from([d for d, n in enumerate(s[0]) if n == 1]),
    "shape": lambda s, p: _factor_shape(int(np.prod(s[0], dtype=np.int64))),
    "size": lambda s, p: _expand_size(s[0]),
    "index": lambda s, p: st.integers(-s[0][0], s[0][0] - 1),
    "span": lambda s, p: _span(s[0][0]),
    "indices": lambda s, p: st.lists(st.integers(-s[0][0], s[0][0] - 1), min_size=1,
                                     max_size=4),
    "mask": lambda s, p: _mask(s[0]),
    "cond": lambda s, p: hnp.arrays(np.bool_, np.broadcast_shapes(*s)).map(
        lambda a: a.tolist()),
    "catdim": lambda s, p: st.sampled_from(_cat_dims(*s)),
    "reduction": lambda s, p: st.sampled_from(["mean", "sum", "none"]),
    "labels": lambda s, p: st.lists(st.integers(0, s[0][1] - 1), min_size=s[0][0],
                                    max_size=s[0][0]),
}


@st.composite
def op_params(draw: Any, spec: OpSpec, input_shapes: tuple) -> dict[str, Any]:
    """Keyword params for `spec` that fit inputs of these shapes (dim in range, ...)."""
    params: dict[str, Any] = {}
    for name in spec.params:
        params[name] = draw(_PARAMS[name](tuple(input_shapes), params))
    return params


@dataclass(frozen=True)
class OpCase:
    """One drawn call of an op: its input tensors and params; `case()` runs it."""

    spec: OpSpec
    tensors: tuple[Tensor, ...]
    params: dict

    def __call__(self, *tensors: Any) -> Any:
        return self.spec.fn(*tensors, **self.params)

    @property
    def source(self) -> str:
        return self.spec.render(*NAMES[:self.spec.arity], **self.params)

    def __repr__(self) -> str:
        shapes = ", ".join(f"{n}: {tuple(t.shape)}" for n, t in zip(NAMES, self.tensors))
        return f"OpCase({self.source}  with {shapes})"


@st.composite
def op_cases(draw: Any, spec: OpSpec, max_side: int = 3) -> OpCase:
    """A call of `spec` on float64 leaves named x, y with shapes, params and values drawn to
    fit its shape rule and domains."""
    in_shapes = draw(input_shapes(spec, max_side))
    params = draw(op_params(spec, in_shapes))
    xs = tuple(draw(tensors(shape=s, domain=spec.domain(i), name=NAMES[i]))
               for i, s in enumerate(in_shapes))
    if spec.valid is not None:
        assume(spec.valid(*[x.array for x in xs], **params))
    return OpCase(spec, xs, params)


# -- expressions ------------------------------------------------------------------------------
GUARD = OpSpec("guard", lambda x: x ** 2 + 0.5, "AddBackward0", "({0} ** 2 + 0.5)",
               positive_output=True, in_expressions=False)
"""Wrapped around an argument that must be positive (log, sqrt, a denominator)."""


def expressions(inputs: Sequence[str] | dict[str, tuple] = ("x", "y"), max_depth: int = 3,
                ops: Iterable[str | OpSpec] | None = None, max_side: int = 3,
                max_numel: int = 16) -> SearchStrategy[Expression]:
    """Random differentiable expression trees over the op table, e.g.
    `((x * y).sum() + x.exp()).mean()`.

    `inputs`: names (their shapes are drawn so that they broadcast together) or a dict of
    name -> shape. `ops`: the table entries to use (names or OpSpecs; default all). Arguments
    that must be positive are wrapped in `(... ** 2 + 0.5)` unless already positive; results
    larger than `max_numel` elements are summed. Draw inputs with `expression_inputs(expr)`.
    """
    specs = [by_name(o) if isinstance(o, str) else o for o in (ops or OPS)]
    specs = [s for s in specs if s.in_expressions]
    if not specs:
        raise ValueError("expressions() needs at least one op")
    fixed = dict(inputs) if isinstance(inputs, dict) else None
    names = tuple(fixed) if fixed else tuple(inputs)

    @st.composite
    def build(draw: Any) -> Expression:
        in_shapes = tuple(fixed.values()) if fixed else draw(
            broadcastable_shapes(len(names), max_side=max_side))
        leaves = [Leaf(n, tuple(s)) for n, s in zip(names, in_shapes)]
        root = _node(draw, max_depth, leaves, specs, max_numel, root=True)
        return Expression(root, dict(zip(names, in_shapes)))

    return build()


def _node(draw: Any, depth: int, leaves: list, specs: list, max_numel: int, root: bool = False
          ) -> Node:
    if depth <= 0 or (not root and draw(st.integers(0, 3)) == 0):
        return draw(st.sampled_from(leaves))
    arities = sorted({s.arity for s in specs})
    arity = draw(st.sampled_from(arities))
    args = [_node(draw, depth - 1, leaves, specs, max_numel) for _ in range(arity)]
    candidates = _accepting(specs, arity, args)
    if not candidates and arity > 1:  # e.g. (2, 3) and (2,): sum the others to scalars
        args = [args[0]] + [_apply(by_name("sum"), [a], {}) for a in args[1:]]
        candidates = _accepting(specs, arity, args)
    assume(candidates)
    spec = draw(st.sampled_from(candidates))
    params = draw(op_params(spec, tuple(a.shape for a in args)))
    args = [_apply(GUARD, [a], {}) if _needs_guard(spec.domain(i)) and not a.positive else a
            for i, a in enumerate(args)]
    try:
        node = _apply(spec, args, params)
    except RuntimeError:  # e.g. view() of a transposed tensor: PyTorch refuses it too
        reject()
    if int(np.prod(node.shape, dtype=np.int64)) > max_numel:
        node = _apply(by_name("sum"), [node], {})
    return node


def _accepting(specs: list, arity: int, args: list) -> list:
    shapes_ = tuple(a.shape for a in args)
    return [s for s in specs if s.arity == arity and s.accepts(shapes_)]


def _needs_guard(domain: Domain) -> bool:
    """Poles and log-like domains are kept by construction; kinks and ties by rejection."""
    return domain.positive or domain is NONZERO


def _apply(spec: OpSpec, args: list, params: dict) -> Apply:
    """An Apply node. Its shape comes from running the subtree on ones: shape rules stay
    simple, and what depends on memory layout (view after a transpose) shows up here."""
    node = Apply(spec, tuple(args), tuple(params.items()), ())
    leaves: dict = {}
    stack: list = list(args)
    while stack:
        n = stack.pop()
        if isinstance(n, Leaf):
            leaves[n.name] = minigrad.ones(n.shape, dtype=minigrad.float64)
        else:
            stack.extend(n.args)
    with no_grad(), np.errstate(all="ignore"):
        shape = tuple(evaluate(node, leaves).shape)
    return Apply(spec, tuple(args), tuple(params.items()), shape)


@st.composite
def expression_inputs(draw: Any, expr: Expression, domain: Domain = REAL
                      ) -> tuple[Tensor, ...]:
    """float64 leaves for `expr` (in its input order), rejected unless every op of the
    expression sees values in its domain (`Expression.in_domain`)."""
    xs = tuple(draw(tensors(shape=expr.shapes[n], domain=domain, name=n)) for n in expr.names)
    assume(expr.in_domain(*xs))
    return xs
