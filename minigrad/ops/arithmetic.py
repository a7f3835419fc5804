"""Arithmetic: + - * / and ** (and `1 - x`), each op with its function (add, sub, mul, ...).

Each backward returns the gradient in the *broadcast* shape: the engine undoes broadcasting in
one place for all ops, so no op here deals with it. (`//` and `%` are in `floor_mod.py`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import RESULT, Function
from minigrad.ops.base import (
    NEG_BOOL,
    binary,
    constant,
    is_tensor,
    operands,
    promote_tensors,
    unwrap,
)
from minigrad.ops.floor_mod import div_rounded
from minigrad.ops.selection import choose

# the public functions: minigrad.add, ... (re-exported by ops/ and minigrad/)
__all__ = ["add", "div", "mul", "neg", "pow", "square", "sub"]


class Add(Function, numpy_forward=True):
    """a + b"""

    node_name = "AddBackward0"
    formula = r"d(a+b)/da = 1 ;  d(a+b)/db = 1"
    source = "{0} + {1}"
    gradients = ("{g}", "{g}")
    tangent = "{t0} + {t1}"

    @staticmethod
    def forward(ctx, a, b):
        x, y = operands(a, b)
        return x + y

    @staticmethod
    def backward(ctx, grad):
        return grad, grad

    @staticmethod
    def jvp(ctx, ta, tb):
        return ta + tb


class Sub(Function, numpy_forward=True):
    """a - b"""

    node_name = "SubBackward0"
    formula = r"d(a-b)/da = 1 ;  d(a-b)/db = -1"
    source = "{0} - {1}"
    gradients = ("{g}", "-{g}")
    tangent = "{t0} - {t1}"

    @staticmethod
    def forward(ctx, a, b):
        x, y = operands(a, b, "sub")
        return x - y

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad if ctx.needs_input_grad[1] else None

    @staticmethod
    def jvp(ctx, ta, tb):
        return ta - tb


class AddScaled(Function, numpy_forward=True):
    """a + alpha * b (`add(a, b, alpha=...)`)"""

    node_name = "AddBackward0"
    formula = r"d(a+alpha*b)/da = 1 ;  d(a+alpha*b)/db = alpha"
    source = "{0} + {alpha} * {1}"  # (a trace, by node name, reads Add's words)
    gradients = ("{g}", "{g} * {alpha}")
    tangent = "{t0} + {alpha} * {t1}"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.alpha = alpha
        return unwrap(a) + alpha * unwrap(b)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * ctx.alpha if ctx.needs_input_grad[1] else None

    @staticmethod
    def jvp(ctx, ta, tb):
        return ta + tb * ctx.alpha


class SubScaled(Function, numpy_forward=True):
    """a - alpha * b (`sub(a, b, alpha=...)`)"""

    node_name = "SubBackward0"
    formula = r"d(a-alpha*b)/da = 1 ;  d(a-alpha*b)/db = -alpha"
    source = "{0} - {alpha} * {1}"  # (a trace, by node name, reads Sub's words)
    gradients = ("{g}", "-{g} * {alpha}")
    tangent = "{t0} - {alpha} * {t1}"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.alpha = alpha
        return unwrap(a) - alpha * unwrap(b)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * -ctx.alpha if ctx.needs_input_grad[1] else None

    @staticmethod
    def jvp(ctx, ta, tb):
        return ta - tb * ctx.alpha


class Rsub(Function, numpy_forward=True):
    """c - a, for a number c (PyTorch's rsub)"""

    node_name = "RsubBackward1"
    formula = r"d(c-a)/da = -1"
    source = "{c} - {0}"
    gradients = ("-{g}",)
    tangent = "-{t0}"

    @staticmethod
    def forward(ctx, a, c):
        return c - unwrap(a)

    @staticmethod
    def backward(ctx, grad):
        return -grad

    @staticmethod
    def jvp(ctx, ta):
        return -ta


class Mul(Function, numpy_forward=True):
    """a * b"""

    node_name = "MulBackward0"
    formula = r"d(a*b)/da = b ;  d(a*b)/db = a"
    source = "{0} * {1}"
    gradients = ("{g} * {1}", "{g} * {0}")
    tangent = "{t0} * {1} + {0} * {t1}"

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad:  # (empty when the call is not recorded: nothing to keep)
            # as PyTorch: keep only what the other gradient needs (`x * 3` keeps 3, not x)
            need_a, need_b = ctx.needs_input_grad
            ctx.save_for_backward(a if need_b else None, b if need_a else None)
        x, y = operands(a, b)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None

    @staticmethod
    def backward_arrays(ctx, grad):  # speed: chain -3.1% instructions/node (-5.2% backward)
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        return (np.multiply(*operands(grad, b)) if need_a else None,
                np.multiply(*operands(grad, a)) if need_b else None)

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return ta * b + a * tb


class Div(Function, numpy_forward=True):
    """a / b"""

    node_name = "DivBackward0"
    formula = r"d(a/b)/da = 1/b ;  d(a/b)/db = -a/b^2"
    source = "{0} / {1}"
    gradients = ("{g} / {1}", "-{g} * {0} / {1}**2")
    tangent = "({t0} - {out} * {t1}) / {1}"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        x, y = operands(a, b, "div")
        return x / y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        return grad / b if need_a else None, -grad * a / (b * b) if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        return (ta - ctx.output * tb) / ctx.inputs[1]


class Neg(Function, numpy_forward=True):
    """-a"""

    node_name = "NegBackward0"
    formula = r"d(-a)/da = -1"
    source = "-{0}"
    gradients = ("-{g}",)
    tangent = "-{t0}"

    @staticmethod
    def forward(ctx, a):
        try:
            return -unwrap(a)
        except TypeError:  # numpy refuses a bool array too, in its own words
            raise RuntimeError(NEG_BOOL) from None

    @staticmethod
    def backward(ctx, grad):
        return -grad

    @staticmethod
    def jvp(ctx, ta):
        return -ta


class Pow(Function, numpy_forward=True):
    """a ** p, for a number p"""

    node_name = "PowBackward0"
    formula = r"d(a^p)/da = p*a^(p-1)"
    source = "{0} ** {p}"
    gradients = ("{g} * {p} * {0}{power}",)  # {power}: **(p-1), nothing when p-1 is 1
    tangent = "{t0} * {p} * {0}{power}"

    @staticmethod
    def forward(ctx, a, p):
        ctx.save_for_backward(a)
        ctx.p = p
        return unwrap(a) ** p

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        p = ctx.p
        if p == 0:
            return grad * 0
        return grad * p * a ** (p - 1)

    @staticmethod
    def jvp(ctx, ta):
        p = ctx.p
        return ta * 0 if p == 0 else ta * p * ctx.inputs[0] ** (p - 1)


class PowTensor(Function, numpy_forward=True):
    """a ** b, both tensors"""

    node_name = "PowBackward1"
    pytorch_keeps = {"result": RESULT}
    formula = r"d(a^b)/da = b*a^(b-1) ;  d(a^b)/db = a^b*ln(a)"
    source = "{0} ** {1}"
    gradients = ("{g} * {1} * {0}**({1} - 1)", "{g} * {0}**{1} * ln({0})")
    tangent = "{t0} * {1} * {0}**({1} - 1) + {t1} * {out} * ln({0})"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return unwrap(a) ** unwrap(b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        ga = grad * b * a ** (b - 1) if need_a else None
        gb = None
        if need_b:
            with np.errstate(divide="ignore", invalid="ignore"):
                gb = grad * a ** b * a.log()
            # where a == 0 and b >= 0 the limit is 0, as PyTorch defines it
            at_zero = (unwrap(a) == 0) & (unwrap(b) >= 0)
            if at_zero.any():
                gb = choose(at_zero, 0.0, gb)
        return ga, gb

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        with np.errstate(divide="ignore", invalid="ignore"):
            tb_part = tb * ctx.output * a.log()
        at_zero = (unwrap(a) == 0) & (unwrap(b) >= 0)  # the limit 0, as in backward
        if at_zero.any():
            tb_part = choose(at_zero, 0.0, tb_part)
        return ta * b * a ** (b - 1) + tb_part


class RPow(Function, numpy_forward=True):
    """c ** a, for a number c"""

    node_name = "PowBackward2"
    pytorch_keeps = {"exponent": 0}
    formula = r"d(c^a)/da = c^a*ln(c)"
    saves_output = True
    source = "{base} ** {0}"
    gradients = ("{g} * {out} * ln({base})",)
    tangent = "{t0} * {out} * ln({base})"

    @staticmethod
    def forward(ctx, a, base):
        ctx.base = base
        return np.asarray(base, dtype=unwrap(a).dtype) ** unwrap(a)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.output * float(np.log(ctx.base))

    @staticmethod
    def jvp(ctx, ta):
        return ta * ctx.output * float(np.log(ctx.base))


def add(input: Any, other: Any, alpha: float = 1) -> Any:
    """input + alpha * other"""
    if alpha != 1:  # one AddBackward0 node, as in PyTorch
        return binary(AddScaled, "add", input, other, promote=True, alpha=alpha)
    return binary(Add, "add", input, other)


def sub(input: Any, other: Any, alpha: float = 1) -> Any:
    """input - alpha * other"""
    if alpha != 1:  # one SubBackward0 node, as in PyTorch
        return binary(SubScaled, "sub", input, other, promote=True, alpha=alpha)
    return binary(Sub, "sub", input, other)


subtract = sub


def rsub(input: Any, other: Any) -> Any:
    """other - input (`1 - x`)"""
    if is_tensor(other) or isinstance(other, np.ndarray):
        return sub(other, input)
    if type(other) is bool or input.array.dtype.kind != "f":  # PyTorch's dtype or error
        other, input = promote_tensors(other, input, "sub")
    return Rsub.apply(input, c=other)


def mul(input: Any, other: Any) -> Any:
    """input * other"""
    return binary(Mul, "mul", input, other)


multiply = mul


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    """input / other; `rounding_mode="trunc"` or `"floor"` rounds the quotient (floor_mod)"""
    if rounding_mode is not None:
        return div_rounded(input, other, rounding_mode)
    return binary(Div, "div", input, other)


divide = true_divide = div


def neg(input: Any) -> Any:
    return Neg.apply(input)


negative = neg


def pow(input: Any, exponent: Any) -> Any:
    """input ** exponent (tensor ** number, tensor ** tensor, number ** tensor)"""
    if not is_tensor(input):
        if exponent.array.dtype.kind != "f":  # `2.0 ** int_tensor` is float32
            input, exponent = promote_tensors(input, exponent, "pow")
        return RPow.apply(exponent, base=input)
    if is_tensor(exponent) or isinstance(exponent, np.ndarray):
        if input.array.dtype.kind == "b" and unwrap(exponent).dtype.kind == "b":
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        return binary(PowTensor, "pow", input, exponent, promote=True)
    if input.array.dtype.kind != "f":  # `int_tensor ** 0.5` is float32, `bool_tensor ** 2` int64
        input, exponent = promote_tensors(input, exponent, "pow")
        kind = input.array.dtype.kind
        if kind == "b":  # x ** True is x, x ** False all True
            return constant(input.array | (not exponent))
        if kind in "iu" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return Pow.apply(input, p=exponent)


def square(input: Any) -> Any:
    return pow(input, 2)

