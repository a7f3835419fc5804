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
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd import tensor as _tensor  # (resolved at call time)


def linear(ctx: Any, *tangents: Any) -> Any:
    """The op applied to its float inputs' tangents, its other arguments and settings as
    they were: for an op linear in its tensor inputs, J v is the op of v."""
    Tensor = _tensor.Tensor
    args = [t if isinstance(a, Tensor) and t is not None else a
            for a, t in zip(ctx.inputs, tangents)]
    return ctx.function.apply(*args, **ctx.settings)
