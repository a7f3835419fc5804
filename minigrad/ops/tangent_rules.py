"""What the ops' JVP rules share (forward mode; the rules are in each op's class, `jvp`).

A rule `jvp(ctx, *tangents)` gets one tangent per positional input of `apply` (zeros for a
float tensor that has none, 0.0 for a number, None for a mask or an index) and reads
`ctx.inputs`, `ctx.output` and the op's settings (`ctx.dim`); it returns the output's tangent
(a tuple for several outputs, None for one that is not differentiable), computed with Tensor
ops so that it can be differentiated again. Its one-line text, `tangent`, says the same for
the narration: `{t0}`, `{t1}` are the inputs' tangents, `{0}`, `{1}` the inputs, `{out}`
the output, other names the op's settings (as in `minigrad/teach/op_words.py`).

`linear` is the rule of every op that is linear in its tensor inputs (views, sums, shaping,
indexing, concatenation): the op itself applied to the tangents, PyTorch's `auto_linear`.
`bilinear`: the product rule of a product (dot, mm, bmm). `elementwise`: a one-input
elementwise op's backward formula with the tangent as the gradient, PyTorch's
`auto_element_wise`.
"""

from __future__ import annotations

import functools
import inspect
from types import SimpleNamespace
from typing import Any

from minigrad.autograd import tensor as _tensor  # (resolved at call time)


def linear(ctx: Any, *tangents: Any) -> Any:
    """The op applied to its float inputs' tangents, its other arguments and settings as
    they were: for an op linear in its tensor inputs, J v is the op of v."""
    Tensor = _tensor.Tensor
    args = [t if isinstance(a, Tensor) and t is not None else a
            for a, t in zip(ctx.inputs, tangents)]
    return ctx.function.apply(*args, **ctx.settings)


def bilinear(ctx: Any, ta: Any, tb: Any) -> Any:
    """The JVP of a product, linear in each of its two inputs (dot, mm, bmm, ...): the
    product rule, op(ta, b) + op(a, tb)."""
    a, b = ctx.inputs
    op = ctx.function.apply
    return plus(None if is_zero(ta) else op(ta, b, **ctx.settings),
                None if is_zero(tb) else op(a, tb, **ctx.settings))


# speed: JVP through the bench's MLP (weights without tangents) takes ~40% less time when
# the products with a zero tangent are skipped (min of 15 runs, 2.8 -> 1.7 ms)
def is_zero(t: Any) -> bool:
    """Is `t` the zeros that stand for "no tangent" (made for an input that has none)?"""
    return t is None or t.__dict__.get("zero_tangent", False)


def plus(*terms: Any) -> Any:
    """The sum of the terms that are not None (None when all are)."""
    given = [t for t in terms if t is not None]
    return sum(given[1:], given[0]) if given else None


def elementwise(ctx: Any, t: Any) -> Any:
    """The JVP of a one-input elementwise op: its Jacobian is diagonal, so J v = J^T v, its
    backward's formula with the tangent in place of the gradient. The backward gets a ctx
    with what its forward keeps: the input as `saved_tensors`, the settings (forward's
    defaults for those not given) as attributes."""
    fn = ctx.function
    kept = SimpleNamespace(**{**_defaults(fn), **ctx.settings}, saved_tensors=ctx.inputs[:1])
    return fn.backward(kept, t)


@functools.cache
def _defaults(fn: type) -> dict:
    """The keyword arguments of `fn.forward` that have defaults, with them."""
    return {name: p.default for name, p in inspect.signature(fn.forward).parameters.items()
            if p.default is not inspect.Parameter.empty}
