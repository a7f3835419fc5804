"""Selection ops: each output element is one of the inputs' (maximum, minimum, where, clamp).

The gradient goes to the input that was chosen and nowhere else (shared half and half on a
tie), in the broadcast shape; the engine undoes the broadcasting (in one place for all ops).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd import broadcast
from minigrad.autograd import tensor as _tensor  # resolved at call time (tensor.py imports the ops)
from minigrad.autograd.function import Function
from minigrad.ops.base import (
    as_operand,
    binary,
    cast,
    constant,
    promote_tensors,
    tensor_input,
    unwrap,
)
from minigrad.surface.dtypes import TORCH_NAMES, result_type

# the public functions: minigrad.clamp, ... (re-exported by ops/ and minigrad/)
__all__ = ["clamp", "clamp_max", "clamp_min", "clip", "maximum", "minimum", "where"]


def _share_of_a(a: Any, b: Any, a_wins: np.ndarray) -> tuple:
    """Masks that send the gradient to the winner, half to each on a tie (as PyTorch)."""
    tie = unwrap(a) == unwrap(b)
    share = np.where(tie, 0.5, a_wins.astype(np.float64)).astype(np.result_type(unwrap(a)))
    return constant(share), constant(1 - share)


class Maximum(Function, numpy_forward=True):
    """elementwise max(a, b)"""

    node_name = "MaximumBackward0"
    formula = r"d max(a,b)/da = 1 where a > b (1/2 on ties), else 0"
    source = "maximum({args})"
    gradients = ()
    tangent = "{t0} where {0} > {1}, {t1} elsewhere (half each on ties)"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.maximum(unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        to_a, to_b = _share_of_a(a, b, unwrap(a) > unwrap(b))
        return grad * to_a, grad * to_b

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        to_a, to_b = _share_of_a(a, b, unwrap(a) > unwrap(b))
        return ta * to_a + tb * to_b


class Minimum(Function, numpy_forward=True):
    """elementwise min(a, b)"""

    node_name = "MinimumBackward0"
    formula = r"d min(a,b)/da = 1 where a < b (1/2 on ties), else 0"
    source = "minimum({args})"
    gradients = ()
    tangent = "{t0} where {0} < {1}, {t1} elsewhere (half each on ties)"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.minimum(unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        to_a, to_b = _share_of_a(a, b, unwrap(a) < unwrap(b))
        return grad * to_a, grad * to_b

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        to_a, to_b = _share_of_a(a, b, unwrap(a) < unwrap(b))
        return ta * to_a + tb * to_b


class Where(Function, numpy_forward=True):
    """condition ? a : b (the condition is not an input of the graph, as in PyTorch)"""

    node_name = "WhereBackward0"
    formula = r"d where(c,a,b)/da = 1 where c ;  /db = 1 where not c"
    source = "where(condition, {0}, {1})"
    gradients = ()
    tangent = "where(condition, {t0}, {t1})"

    @staticmethod
    def forward(ctx, a, b, condition=None):
        ctx.condition = condition
        return where_array(condition, unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        c = ctx.condition
        need_a, need_b = ctx.needs_input_grad
        return (choose(c, grad, 0.0) if need_a else None,
                choose(c, 0.0, grad) if need_b else None)

    @staticmethod
    def jvp(ctx, ta, tb):
        return choose(ctx.condition, ta, tb)


def where_array(condition: np.ndarray, a: Any, b: Any) -> np.ndarray:
    """`np.where(condition, a, b)`; masking the bits where one side is +0 (see below)."""
    if _is_plus_zero(b) and isinstance(a, np.ndarray) and condition.dtype == np.bool_:
        return _keep_or_zero(a, condition, b)  # where(c, grad, 0): ReLU's backward
    if _is_plus_zero(a) and isinstance(b, np.ndarray) and condition.dtype == np.bool_:
        return _keep_or_zero(b, ~condition, a)  # where(c, 0, grad)
    return np.where(condition, a, b)


# the unsigned integer of the same size as each float: its view of the float's bits
_BITS_OF = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
            np.dtype(np.float64): np.uint64}


def _is_plus_zero(x: Any) -> bool:
    """The Python number 0 (not -0.0, whose sign bit where() must keep)."""
    return type(x) in (int, float) and x == 0 and math.copysign(1.0, x) > 0


# speed: the MLP step bench is ~15% slower with np.where here (A/B in one process)
def _keep_or_zero(x: np.ndarray, keep: np.ndarray, zero: Any = 0.0) -> np.ndarray:
    """`np.where(keep, x, zero)` for a boolean array `keep` and a +0 `zero`, exactly; ~8x
    faster for a float array `x` of keep's shape (ReLU's backward_arrays calls it directly).

    np.where picks each element with a branch, and a random mask (ReLU's) makes the CPU guess
    wrong half the time. `x * keep` has no branch but is not exact: -3 * 0 is -0.0, and
    inf * 0 is NaN, where PyTorch gives +0.0. So we multiply the *bits* instead: viewed as
    unsigned integers of the same size, `bits * 1` is the number unchanged and `bits * 0` is
    all zero bits, which is +0.0. Viewing back gives x where keep, +0.0 elsewhere, any dtype.
    """
    bits = _BITS_OF.get(x.dtype)
    if bits is None or x.shape != keep.shape or not x.ndim:  # (0-d: numpy gives a scalar)
        return np.where(keep, x, zero)
    return (x.view(bits) * keep).view(x.dtype)


class Clamp(Function, numpy_forward=True):
    """a limited to [min, max]"""

    node_name = "ClampBackward1"
    formula = r"d clamp(a)/da = 1 inside [min, max], else 0"
    source = "{0}.clamp({bounds})"
    gradients = ()
    tangent = "{t0} inside [min, max], 0 outside"

    @staticmethod
    def forward(ctx, a, lo=None, hi=None):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        return np.clip(unwrap(a), lo, hi)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        inside = np.ones(a.array.shape, dtype=bool)
        if ctx.lo is not None:
            inside &= a.array >= unwrap(ctx.lo)
        if ctx.hi is not None:
            inside &= a.array <= unwrap(ctx.hi)
        return choose(inside, grad, 0.0)

    @staticmethod
    def jvp(ctx, t):
        x, inside = ctx.inputs[0].array, True
        if ctx.lo is not None:
            inside = inside & (x >= unwrap(ctx.lo))
        if ctx.hi is not None:
            inside = inside & (x <= unwrap(ctx.hi))
        return choose(np.broadcast_to(inside, x.shape), t, 0.0)

class ClampMin(Function, numpy_forward=True):
    """a limited from below: max(a, min)"""

    node_name = "ClampMinBackward0"
    formula = r"d clamp_min(a)/da = 1 where a >= min, else 0"
    source = "{0}.clamp_min({bound})"
    gradients = ()
    _limit, _passes = np.maximum, np.greater_equal  # (ClampMax: the other side)

    @staticmethod
    def forward(ctx, a, bound):
        ctx.save_for_backward(a)
        return ctx._function._limit(unwrap(a), bound)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return choose(ctx._function._passes(a.array, ctx.settings["bound"]), grad, 0.0)

    tangent = "{t0} where {0} is within the bound, 0 elsewhere"

    @staticmethod
    def jvp(ctx, t):
        return choose(ctx.function._passes(ctx.inputs[0].array, ctx.bound), t, 0.0)


class ClampMax(ClampMin):
    """a limited from above: min(a, max)"""

    node_name = "ClampMaxBackward0"
    formula = r"d clamp_max(a)/da = 1 where a <= max, else 0"
    source = "{0}.clamp_max({bound})"
    gradients = ()
    _limit, _passes = np.minimum, np.less_equal


class ClampTensor(Function, numpy_forward=True):
    """a limited to [min, max], where the bounds are tensors (either may be None)"""

    node_name = "ClampBackward0"
    pytorch_keeps = {"self": 0, "min": 1, "max": 2}
    formula = r"d clamp/da = 1 inside [lo, hi] ; d/dlo = 1 where a < lo ; d/dhi = 1 where a > hi"
    gradients = ()

    source = "{0}.clamp(...)"  # (a trace of PyTorch's graph cannot tell a bound from none)
    tangent = "{t0} inside [lo, hi], the bound's tangent where a bound is taken"

    @staticmethod
    def forward(ctx, a, lo, hi):
        x, low, high = a.array, unwrap(lo), unwrap(hi)
        ctx.masks = _clamp_masks(x, low, high)
        ctx.shapes = x.shape, np.shape(low), np.shape(high)
        out = x if low is None else np.maximum(x, low)
        return out if high is None else np.minimum(out, high)

    @staticmethod
    def backward(ctx, grad):
        grads = [choose(np.broadcast_to(m, grad.array.shape), grad, 0.0)
                 if m is not None and need else None
                 for m, need in zip(ctx.masks, ctx.needs_input_grad, strict=True)]
        for i in (1, 2):  # a bound's gradient is summed to its shape here, as in PyTorch
            if grads[i] is not None and grads[i].array.shape != ctx.shapes[i]:
                grads[i] = broadcast.SumToSize.apply(grads[i], shape=ctx.shapes[i])
        return tuple(grads)

    @staticmethod
    def jvp(ctx, ta, tlo, thi):
        a, lo, hi = ctx.inputs
        masks = _clamp_masks(a.array, unwrap(lo), unwrap(hi))
        shape = ctx.output.array.shape
        terms = [choose(np.broadcast_to(m, shape), t, 0.0)
                 for m, t in zip(masks, (ta, tlo, thi)) if m is not None]
        return sum(terms[1:], terms[0])


def _clamp_masks(x: np.ndarray, low: Any, high: Any) -> tuple:
    """Where the result is x itself, the lower bound, the upper bound (None: no bound)."""
    inside = np.ones(x.shape, dtype=bool)
    to_low = to_high = None
    if low is not None:
        inside = inside & (x >= low)
        to_low = x < low
    if high is not None:
        inside = inside & (x <= high)
        to_high = x > high
        if low is not None:  # min > max: the result is max (as PyTorch)
            to_low, to_high = to_low & (low <= high), to_high | (low > high)
    return inside, to_low, to_high


def choose(condition: Any, a: Any, b: Any) -> Any:
    """`condition ? a : b` elementwise, for backward formulas: `a`/`b` tensors or numbers
    (of the tensor's dtype already), `condition` a mask (an array or a tensor)."""
    c = condition.array if isinstance(condition, _tensor.Tensor) else condition
    if type(c) is not np.ndarray or c.dtype != np.bool_:
        c = np.asanyarray(c, dtype=bool)
    return Where.apply(a, b, condition=c)


def where(condition: Any, input: Any = None, other: Any = None) -> Any:
    """elementwise `input if condition else other`; `where(condition)` alone: the positions
    where it is nonzero, one int64 vector per dim (`nonzero(condition, as_tuple=True)`)"""
    if input is None and other is None:
        c = np.atleast_1d(unwrap(condition))  # (a 0-d condition counts as one element)
        return tuple(constant(i.astype(np.int64)) for i in np.nonzero(c))
    tensor_input("where", condition, "condition")
    kind = np.asarray(unwrap(condition)).dtype
    if kind != np.bool_ and kind != np.uint8:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {TORCH_NAMES[kind]}")
    shape = np.shape(unwrap(condition))  # (broadcast in PyTorch's order, for its words)
    for x in (input, other):
        if broadcast.size_mismatch(shape, np.shape(unwrap(x))):
            raise RuntimeError(broadcast.broadcast_message("where", shape, np.shape(unwrap(x))))
        shape = np.broadcast_shapes(shape, np.shape(unwrap(x)))
    return choose(condition, *promote_tensors(as_operand(input), as_operand(other)))


def maximum(input: Any, other: Any) -> Any:
    tensor_input("maximum", input)
    tensor_input("maximum", other, "other", 2)
    return binary(Maximum, "maximum", input, other, promote=True)


def minimum(input: Any, other: Any) -> Any:
    tensor_input("minimum", input)
    tensor_input("minimum", other, "other", 2)
    return binary(Minimum, "minimum", input, other, promote=True)


def clamp(input: Any, min: Any = None, max: Any = None) -> Any:
    """input limited to [min, max]: numbers (ClampBackward1), or tensors that broadcast,
    which may require grad themselves (ClampBackward0); not one of each (as PyTorch)"""
    tensor_input("clamp", input)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if _is_tensor(min) or _is_tensor(max):
        return _clamp_tensors(input, min, max)
    if input.array.dtype.kind != "f":  # `int_tensor.clamp(0.5)` is float32
        dtype = result_type(input.array, unwrap(min), unwrap(max))
        if dtype != input.array.dtype:
            input = cast(input, dtype)
    return Clamp.apply(input, lo=min, hi=max)


clip = clamp


def clamp_min(input: Any, min: Any) -> Any:
    """input limited from below (ClampMinBackward0; a tensor bound: clamp's)"""
    if _is_tensor(min) or input.array.dtype.kind != "f":
        return clamp(input, min=min)
    return ClampMin.apply(input, bound=min)


def clamp_max(input: Any, max: Any) -> Any:
    """input limited from above (ClampMaxBackward0; a tensor bound: clamp's)"""
    if _is_tensor(max) or input.array.dtype.kind != "f":
        return clamp(input, max=max)
    return ClampMax.apply(input, bound=max)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, _tensor.Tensor)


def _clamp_tensors(input: Any, min: Any, max: Any) -> Any:
    """clamp with tensor bounds: one dtype for all three (PyTorch's promotion)."""
    if any(b is not None and not _is_tensor(b) for b in (min, max)):
        # (PyTorch's words for `x.clamp(lo, 2)`: minigrad cannot tell how they were passed)
        got = ", ".join("Tensor" if _is_tensor(b) else type(b).__name__ for b in (min, max))
        marked = ", ".join(f"!{t}!" for t in got.split(", "))
        why = f"      didn't match because some of the arguments have invalid types: ({marked})\n"
        raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * (Tensor min = None, Tensor max = None)\n"
                        f"{why} * (Number min = None, Number max = None)\n{why}")
    bounds = [b for b in (min, max) if b is not None]
    dtype = result_type(input.array, *[b.array for b in bounds])
    if dtype.kind == "b" and len(bounds) == 2:
        raise NotImplementedError("\"clamp_cpu\" not implemented for 'Bool'")
    input, min, max = (cast(t, dtype) if t is not None and t.array.dtype != dtype else t
                       for t in (input, min, max))
    try:
        np.broadcast_shapes(input.array.shape, *[b.array.shape for b in bounds])
    except ValueError:
        other = bounds[0].array.shape
        raise RuntimeError(broadcast.broadcast_message("clamp", input.array.shape, other)) \
            from None
    return ClampTensor.apply(input, min, max)
