"""One op in forward mode: its value, then its output's tangent by its JVP rule.

`Function.apply` comes here (and only here) when a forward-mode level is visible and an input
has a tangent at it. For the innermost such level L:

1. the op runs as usual with levels L and up hidden: its value, recorded for backward as
   always (tangents at outer levels flow through it the same way, recursively);
2. its JVP rule runs, still with L hidden, on the inputs' tangents at L: a built-in op's
   `jvp(ctx, *tangents)` reads `ctx.inputs`, `ctx.output` and its settings (`ctx.dim`); a
   user's Function gets the ctx its forward filled (`ctx.save_for_forward`), as in PyTorch;
3. the output gets that tangent at L, and listeners a `ForwardTangent` event.

The rule computes with Tensor ops, so a tangent is itself recorded for backward (and carries
outer levels' tangents): forward-over-reverse and reverse-over-forward both work.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from minigrad.autograd import events
from minigrad.autograd import tensor as _tensor  # (used at call time: tensor.py imports us)
from minigrad.autograd.forward_ad import LEVELS, own_tangent, set_tangent, top_level
from minigrad.autograd.grad_mode import GRAD_ENABLED, no_grad

NO_RULE = ("Trying to use forward AD with {} that does not support it because it has not been "
           "implemented yet.\nminigrad: give its Function a `jvp` rule (CONTRIBUTING.md, "
           "\"Adding an op\").")
NO_USER_RULE = ("You must implement the jvp function for custom autograd.Function to use it "
                "with forward mode AD.")


class JvpContext:
    """What a built-in op's JVP rule reads: `inputs` (the primals, as `apply` got them),
    `output` (the op's value: a Tensor, or a tuple of them), `function` (the op's class), and
    its settings, also as attributes (`ctx.dim`)."""

    __slots__ = ("function", "inputs", "output", "settings")

    def __init__(self, function: type, inputs: tuple, output: Any, settings: dict) -> None:
        self.function, self.inputs, self.output, self.settings = function, inputs, output, settings

    def __getattr__(self, name: str) -> Any:
        try:
            return self.settings[name]
        except KeyError:
            raise AttributeError(f"{self.function.__name__}'s jvp: no setting {name!r} (it "
                                 f"got {sorted(self.settings)})") from None


def apply(cls: type, args: tuple, kwargs: dict) -> Any:
    """`cls.apply(*args, **kwargs)` with tangents: see the module's docstring."""
    level = top_level(args)
    built_in = cls.numpy_forward  # (minigrad's own ops)
    rule = getattr(cls, "jvp", None)
    if rule is None or getattr(cls, "jvp_refused", None):  # refused before anything runs
        raise NotImplementedError(getattr(cls, "jvp_refused", None) or (
            NO_RULE.format(aten_name(cls)) if built_in else NO_USER_RULE))
    outer = LEVELS.hide_from(level)
    try:
        if built_in:
            out = cls.apply(*args, **kwargs)
            ctx = JvpContext(cls, args, out, kwargs)
        else:
            out, ctx = _run_user_forward(cls, args, kwargs)
        if ctx is None:  # a user's Function whose outputs are none differentiable
            return out
        tangents = tuple(_input_tangent(a, level, built_in) for a in args)
        LEVELS.rules += 1
        try:
            result = rule(ctx, *tangents) if built_in else rule(_UserContext(ctx), *tangents)
        finally:
            LEVELS.rules -= 1
    finally:
        LEVELS.hide_from(outer)
    _attach(out, result, level)
    first = out[0] if isinstance(out, tuple) else out  # (the output a node may save)
    node = getattr(first, "grad_fn", None)
    if built_in and cls.saves_output and node is not None and node._output_array is not None:
        node._output_tangents = first._tangents  # (the same dict: leaving a level empties it)
    if events.listening():
        events.emit(events.ForwardTangent(cls, out, args, tangents, result, kwargs, level))
    return out


def _input_tangent(a: Any, level: int, built_in: bool) -> Any:
    """An input's tangent at `level`. Missing ones are zeros for a float tensor (as PyTorch
    materializes them), 0.0 for a number given to a built-in op (`x * 3`: 3 does not move),
    None for anything else (an index tensor, a mask, a setting)."""
    if isinstance(a, _tensor.Tensor):
        if a.array.dtype.kind not in "fc":
            return None
        tangent = own_tangent(a, level)
        if tangent is None:
            tangent = _tensor.Tensor._make(np.zeros_like(a.array), None, 0)
            tangent.zero_tangent = True  # (a rule may skip the products it is in)
        return tangent
    if built_in and type(a) in (int, float):
        return 0.0
    return None


def _attach(out: Any, result: Any, level: int) -> None:
    """Give each differentiable output its tangent from the rule's `result`."""
    Tensor = _tensor.Tensor
    outs = out if isinstance(out, tuple) else (out,)
    tangents = result if isinstance(result, tuple) else (result,)
    if len(tangents) != len(outs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(tangents)})")
    for i, (o, t) in enumerate(zip(outs, tangents)):
        differentiable = isinstance(o, Tensor) and o.array.dtype.kind in "fc"
        if t is None:
            if differentiable:
                raise RuntimeError(f"Function's jvp returned None at position {i}, but the "
                                   "corresponding forward output is a differentiable Tensor: "
                                   "return its tangent (zeros where it does not change).")
            continue
        if not isinstance(t, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(t).__name__}) for grad "
                               f"output {i}.")
        if not differentiable:
            raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the "
                               "corresponding forward output is not a differentiable Tensor."
                               "You should return None at that position instead.")
        set_tangent(o, level, t)


# -- a user's Function ------------------------------------------------------------------------
def _run_user_forward(cls: type, args: tuple, kwargs: dict) -> tuple:
    """(outputs, ctx) of a user's Function: `apply` when it records a node (the node is the
    ctx), else forward run here on a ctx of its own, as `apply` would without recording."""
    Tensor = _tensor.Tensor
    if GRAD_ENABLED.get() and any(isinstance(a, Tensor) and a._requires_grad for a in args):
        out = cls.apply(*args, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        ctx = next((o.grad_fn for o in outs if isinstance(o, Tensor)
                    and type(o.grad_fn) is cls._node_class), None)
        return out, ctx
    ctx = cls._node_class()
    ctx._keeps_saved = False
    with no_grad():
        raw = cls.forward(ctx, *args, **kwargs)
    outs = raw if isinstance(raw, tuple) else (raw,)
    wrapped = tuple(Tensor._make(np.asanyarray(o.array if isinstance(o, Tensor) else o), None, 0)
                    if isinstance(o, np.ndarray | np.generic | Tensor) else o for o in outs)
    return (wrapped if isinstance(raw, tuple) else wrapped[0]), ctx


class _UserContext:
    """The ctx a user's `jvp` gets: the one forward filled, except that `saved_tensors` is
    what forward gave `ctx.save_for_forward` (PyTorch keeps the two apart)."""

    def __init__(self, ctx: Any) -> None:
        object.__setattr__(self, "_ctx", ctx)

    @property
    def saved_tensors(self) -> tuple:
        return self._ctx.__dict__.get("_saved_forward", ())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._ctx, name, value)

    def __delattr__(self, name: str) -> None:  # (`del ctx.result` in jvp, as PyTorch's tutorial)
        delattr(self._ctx, name)


def aten_name(cls: type) -> str:
    """PyTorch's name of the op behind a node name: `NativeBatchNormBackward0` ->
    `native_batch_norm`, `MaxPool2DWithIndicesBackward0` -> `max_pool2d_with_indices`."""
    name = re.sub(r"Backward\d*$", "", cls._node_class.__name__)
    name = re.sub(r"(\d)D", r"\1d", name)
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
