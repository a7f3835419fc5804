"""Two-input float functions: atan2, hypot, lerp, xlogy (re-exported by `elementwise.py`).

Each backward gives its gradients in the broadcast shape; the engine undoes broadcasting.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import as_operand, binary, cast, is_tensor, promote_tensors, unwrap
from minigrad.ops.selection import choose
from minigrad.ops.unary import log
from minigrad.surface.dtypes import C_NAMES, kernel_error, result_type


class Atan2(Function, numpy_forward=True):
    """the angle of the point (b, a): atan(a / b) in the right quadrant"""

    node_name = "Atan2Backward0"
    formula = r"d atan2(a,b)/da = b/(a^2+b^2) ;  d atan2(a,b)/db = -a/(a^2+b^2)"
    source = "atan2({0}, {1})"
    gradients = ("{g} * {1} / ({0}**2 + {1}**2)", "-{g} * {0} / ({0}**2 + {1}**2)")
    tangent = "({t0} * {1} - {t1} * {0}) / ({0}**2 + {1}**2)"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.arctan2(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        scale = grad / (a * a + b * b)
        need_a, need_b = ctx.needs_input_grad
        return scale * b if need_a else None, -scale * a if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return (ta * b - tb * a) / (a * a + b * b)


class Hypot(Function, numpy_forward=True):
    """sqrt(a^2 + b^2)"""

    node_name = "HypotBackward0"
    formula = r"d hypot(a,b)/da = a/hypot(a,b) ;  d hypot(a,b)/db = b/hypot(a,b)"
    saves_output = True
    source = "hypot({0}, {1})"
    gradients = ("{g} * {0} / {out}", "{g} * {1} / {out}")
    tangent = "({t0} * {0} + {t1} * {1}) / {out}"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.hypot(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        scale = grad / ctx.output
        need_a, need_b = ctx.needs_input_grad
        return scale * a if need_a else None, scale * b if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return (ta * a + tb * b) / ctx.output


class Lerp(Function, numpy_forward=True):
    """a + w * (b - a), for a number w"""

    node_name = "LerpBackward0"
    formula = r"d lerp(a,b,w)/da = 1 - w ;  d lerp(a,b,w)/db = w"
    source = "lerp({0}, {1}, weight)"
    gradients = ("{g} * (1 - weight)", "{g} * weight")
    tangent = "{t0} * (1 - weight) + {t1} * weight"

    @staticmethod
    def forward(ctx, a, b, weight):
        ctx.weight = weight
        return a.array + weight * (b.array - a.array)

    @staticmethod
    def backward(ctx, grad):
        w = ctx.weight
        return grad * (1 - w), grad * w

    @staticmethod
    def jvp(ctx, ta, tb):
        w = ctx.weight
        return ta * (1 - w) + tb * w


class LerpTensor(Function, numpy_forward=True):
    """a + w * (b - a), w a tensor"""

    node_name = "LerpBackward1"
    formula = r"d lerp(a,b,w)/da = 1 - w ;  /db = w ;  /dw = b - a"
    source = "lerp({0}, {1}, {2})"
    gradients = ("{g} * (1 - {2})", "{g} * {2}", "{g} * ({1} - {0})")
    tangent = "{t0} * (1 - {2}) + {t1} * {2} + {t2} * ({1} - {0})"

    @staticmethod
    def forward(ctx, a, b, w):
        ctx.save_for_backward(a, b, w)
        return a.array + w.array * (b.array - a.array)

    @staticmethod
    def backward(ctx, grad):
        a, b, w = ctx.unpack_saved()
        need_a, need_b, need_w = ctx.needs_input_grad
        return (grad * (1 - w) if need_a else None, grad * w if need_b else None,
                grad * (b - a) if need_w else None)

    @staticmethod
    def jvp(ctx, ta, tb, tw):
        a, b, w = ctx.inputs
        return ta * (1 - w) + tb * w + tw * (b - a)


def _xlogy_array(x: Any, y: Any) -> np.ndarray:
    """x * ln(y), 0 where x is 0 (unless y is NaN), as PyTorch."""
    if isinstance(y, np.ndarray) and isinstance(x, np.ndarray) and x.dtype != y.dtype:
        y = y.astype(np.result_type(x, y))  # (the log in the result's dtype, as PyTorch)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asanyarray(x * np.log(y))
    return np.where((np.asanyarray(x) == 0) & ~np.isnan(y), out.dtype.type(0), out)


class Xlogy(Function, numpy_forward=True):
    """a * ln(b), 0 where a is 0"""

    node_name = "XlogyBackward0"
    formula = r"d(a ln b)/da = ln b (0 where a = 0 and b <= 0) ;  d(a ln b)/db = a/b"
    source = "xlogy({0}, {1})"
    gradients = ("{g} * ln({1})", "{g} * {0} / {1}")
    tangent = "{t0} * ln({1}) + {t1} * {0} / {1}"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _xlogy_array(unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        ga = None
        if need_a:  # PyTorch's xlogy(grad, b), 0 where a = 0 and b <= 0
            with np.errstate(divide="ignore", invalid="ignore"):
                ga = grad * log(b)
            ga = choose((grad.array == 0) | (a.array == 0) & (b.array <= 0), 0.0, ga)
        return ga, grad * a / b if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        with np.errstate(divide="ignore", invalid="ignore"):
            by_a = ta * log(b)
        by_a = choose((ta.array == 0) | (a.array == 0) & (b.array <= 0), 0.0, by_a)
        return by_a + tb * a / b


class XlogyNumber(Function, numpy_forward=True):
    """c * ln(b), for a number c"""

    node_name = "XlogyBackward1"
    formula = r"d(c ln b)/db = c/b"
    source = "xlogy(c, {0})"
    gradients = ("{g} * c / {0}",)
    tangent = "{t0} * c / {0}"

    @staticmethod
    def forward(ctx, b, c):
        ctx.save_for_backward(b)
        ctx.c = c
        return _xlogy_array(c, b.array)

    @staticmethod
    def backward(ctx, grad):
        (b,) = ctx.unpack_saved()
        return grad * ctx.c / b

    @staticmethod
    def jvp(ctx, tb):
        return tb * ctx.c / ctx.inputs[0]


class XlogyOfNumber(Function, numpy_forward=True):
    """a * ln(c), for a number c"""

    node_name = "XlogyBackward2"
    pytorch_keeps = {"self": 0}
    formula = r"d(a ln c)/da = ln c (0 where a = 0 and c <= 0)"
    source = "xlogy({0}, c)"
    gradients = ("{g} * ln(c)",)
    tangent = "{t0} * ln(c)"

    @staticmethod
    def forward(ctx, a, c):
        ctx.zero, ctx.c = (a.array == 0) & (c <= 0), c
        return _xlogy_array(a.array, np.asanyarray(c, a.array.dtype))

    @staticmethod
    def backward(ctx, grad):
        return choose(ctx.zero | (grad.array == 0), 0.0, grad * _log_of(ctx.c))

    @staticmethod
    def jvp(ctx, ta):
        a, c = ctx.inputs[0], ctx.c
        return choose((a.array == 0) & (c <= 0) | (ta.array == 0), 0.0, ta * _log_of(c))


def _log_of(c: float) -> float:
    """ln c for a number: -inf at 0, NaN below."""
    with np.errstate(divide="ignore"):
        return float(np.log(c)) if c > 0 else (-np.inf if c == 0 else np.nan)


def _in_float(a: Any, b: Any) -> tuple:
    """Two operands as tensors of PyTorch's float result dtype (integers: float32)."""
    a, b = promote_tensors(as_operand(a), as_operand(b))
    if unwrap(a).dtype.kind != "f":
        a, b = cast(a, np.float32), cast(b, np.float32)
    return a, b


def _tensor_other(name: str, other: Any) -> None:
    if not is_tensor(other):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


def atan2(input: Any, other: Any) -> Any:
    """the angle of (other, input), in (-pi, pi]: atan(input / other) in the right quadrant"""
    _tensor_other("atan2", other)
    return binary(Atan2, "atan2", *_in_float(input, other))


def hypot(input: Any, other: Any) -> Any:
    """sqrt(input^2 + other^2), without overflow (in the inputs' result type, a float one)"""
    _tensor_other("hypot", other)
    a, b = promote_tensors(as_operand(input), other)
    _floats_only("hypot_cpu", a)
    return binary(Hypot, "hypot", a, b)


def lerp(input: Any, end: Any, weight: Any) -> Any:
    """input + weight * (end - input): start, end (and a weight tensor of dims) of one dtype,
    as PyTorch requires; a 0-d weight tensor takes part in the result type as a number."""
    start, end = as_operand(input), as_operand(end)
    for name, other in (("end", end), ("weight", weight)):
        if is_tensor(other) and (name == "end" or other.array.ndim) and \
                other.array.dtype != start.array.dtype:
            raise RuntimeError(f"expected dtype {C_NAMES[start.array.dtype]} for `{name}` but "
                               f"got dtype {C_NAMES[other.array.dtype]}")
    if is_tensor(weight) and weight.array.dtype != start.array.dtype:  # a 0-d weight
        dtype = result_type(start.array, weight.array)
        start, end, weight = (x if x.array.dtype == dtype else cast(x, dtype)
                              for x in (start, end, weight))
    _floats_only("lerp_kernel_scalar" if not is_tensor(weight) else "lerp_kernel_tensor",
                 start)
    if is_tensor(weight):
        return LerpTensor.apply(start, end, weight)
    return binary(Lerp, "lerp", start, end, weight=weight)


def xlogy(input: Any, other: Any) -> Any:
    """input * ln(other), 0 where input is 0 (unless other is NaN)"""
    if not is_tensor(input):
        dtype = unwrap(other).dtype
        b = other if dtype.kind == "f" else cast(other, np.float32)
        return XlogyNumber.apply(b, c=input)
    if not is_tensor(other) and not isinstance(other, np.ndarray):
        a = input if input.array.dtype.kind == "f" else cast(input, np.float32)
        return XlogyOfNumber.apply(a, c=other)
    return binary(Xlogy, "xlogy", *_in_float(input, other))


def _floats_only(kernel: str, *tensors: Any) -> None:
    for t in tensors:
        dtype = unwrap(t).dtype if is_tensor(t) else None
        if dtype is not None and dtype.kind != "f":
            raise kernel_error(kernel, dtype)

