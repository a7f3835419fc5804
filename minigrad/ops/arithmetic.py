"""Arithmetic: + - * / and ** (and `1 - x`), each op with its function (add, sub, mul, ...).

Each backward returns the gradient in the *broadcast* shape: the engine undoes broadcasting in
one place for all ops, so no op here deals with it. (`//` and `%` are in `floor_mod.py`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import broadcast  # (names read at call time: it imports tensor)
from minigrad.autograd.function import Function
from minigrad.ops.base import (
    NEG_BOOL,
    as_operand,
    binary,
    constant,
    is_tensor,
    operands,
    promote_tensors,
    tensor_input,
    unwrap,
)
from minigrad.ops.floor_mod import div_rounded
from minigrad.ops.selection import choose

# the public functions: minigrad.add, ... (re-exported by ops/ and minigrad/)
__all__ = ["add", "div", "mul", "neg", "pow", "square", "sub"]


class Add(Function):
    """a + b"""

    node_name = "AddBackward0"
    formula = r"d(a+b)/da = 1 ;  d(a+b)/db = 1"
    source = "{0} + {1}"
    gradients = ("{g}", "{g}")

    @staticmethod
    def forward(ctx, a, b):
        x, y = operands(a, b)
        return x + y

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Function):
    """a - b"""

    node_name = "SubBackward0"
    formula = r"d(a-b)/da = 1 ;  d(a-b)/db = -1"
    source = "{0} - {1}"
    gradients = ("{g}", "-{g}")

    @staticmethod
    def forward(ctx, a, b):
        x, y = operands(a, b, "sub")
        return x - y

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad if ctx.needs_input_grad[1] else None


class AddScaled(Function):
    """a + alpha * b (`add(a, b, alpha=...)`)"""

    node_name = "AddBackward0"
    formula = r"d(a+alpha*b)/da = 1 ;  d(a+alpha*b)/db = alpha"
    source = "{0} + {alpha} * {1}"  # (a trace, by node name, reads Add's words)
    gradients = ("{g}", "{g} * {alpha}")

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.alpha = alpha
        return unwrap(a) + alpha * unwrap(b)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * ctx.alpha if ctx.needs_input_grad[1] else None


class SubScaled(Function):
    """a - alpha * b (`sub(a, b, alpha=...)`)"""

    node_name = "SubBackward0"
    formula = r"d(a-alpha*b)/da = 1 ;  d(a-alpha*b)/db = -alpha"
    source = "{0} - {alpha} * {1}"  # (a trace, by node name, reads Sub's words)
    gradients = ("{g}", "-{g} * {alpha}")

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.alpha = alpha
        return unwrap(a) - alpha * unwrap(b)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * -ctx.alpha if ctx.needs_input_grad[1] else None


class Rsub(Function):
    """c - a, for a number c (PyTorch's rsub)"""

    node_name = "RsubBackward1"
    formula = r"d(c-a)/da = -1"
    source = "{c} - {0}"
    gradients = ("-{g}",)

    @staticmethod
    def forward(ctx, a, c):
        return c - unwrap(a)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Mul(Function):
    """a * b"""

    node_name = "MulBackward0"
    formula = r"d(a*b)/da = b ;  d(a*b)/db = a"
    source = "{0} * {1}"
    gradients = ("{g} * {1}", "{g} * {0}")

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad:
            # as PyTorch: keep only what the other gradient needs (`x * 3` keeps 3, not x)
            need_a, need_b = ctx.needs_input_grad
            ctx.save_for_backward(a if need_b else None, b if need_a else None)
        x, y = operands(a, b)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None


class Div(Function):
    """a / b"""

    node_name = "DivBackward0"
    formula = r"d(a/b)/da = 1/b ;  d(a/b)/db = -a/b^2"
    source = "{0} / {1}"
    gradients = ("{g} / {1}", "-{g} * {0} / {1}**2")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        x, y = operands(a, b, "div")
        return x / y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad / b if need_a else None, -grad * a / (b * b) if need_b else None


class Neg(Function):
    """-a"""

    node_name = "NegBackward0"
    formula = r"d(-a)/da = -1"
    source = "-{0}"
    gradients = ("-{g}",)

    @staticmethod
    def forward(ctx, a):
        try:
            return -unwrap(a)
        except TypeError:  # numpy refuses a bool array too, in its own words
            raise RuntimeError(NEG_BOOL) from None

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Pow(Function):
    """a ** p, for a number p"""

    node_name = "PowBackward0"
    formula = r"d(a^p)/da = p*a^(p-1)"
    source = "{0} ** {p}"
    gradients = ("{g} * {p} * {0}{power}",)  # {power}: **(p-1), nothing when p-1 is 1

    @staticmethod
    def forward(ctx, a, p):
        ctx.save_for_backward(a)
        ctx.p = p
        return unwrap(a) ** p

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p = ctx.p
        if p == 0:
            return grad * 0
        return grad * p * a ** (p - 1)


class PowTensor(Function):
    """a ** b, both tensors"""

    node_name = "PowBackward1"
    formula = r"d(a^b)/da = b*a^(b-1) ;  d(a^b)/db = a^b*ln(a)"
    source = "{0} ** {1}"
    gradients = ("{g} * {1} * {0}**({1} - 1)", "{g} * {0}**{1} * ln({0})")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return power_array(unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
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


class RPow(Function):
    """c ** a, for a number c"""

    node_name = "PowBackward2"
    formula = r"d(c^a)/da = c^a*ln(c)"
    saves_output = True
    source = "{base} ** {0}"
    gradients = ("{g} * {out} * ln({base})",)

    @staticmethod
    def forward(ctx, a, base):
        ctx.base = base
        return power_array(np.asarray(base, dtype=unwrap(a).dtype), unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.output * float(np.log(ctx.base))


def power_array(base: Any, exponent: Any) -> Any:
    """base ** exponent in numpy; integers to negative powers as PyTorch gives them (numpy
    refuses): 1 for a base of 1, +-1 for -1, else 0 (the quotient 1 / base**n, truncated)."""
    base, exponent = np.asarray(base), np.asarray(exponent)
    if exponent.dtype.kind not in "iu" or base.dtype.kind not in "iub" or \
            not (exponent < 0).any():
        return base ** exponent
    ones = np.where(exponent % 2 == 0, 1, -1).astype(np.result_type(base, exponent))
    tiny = np.where(base == 1, 1, np.where(base == -1, ones, 0))
    return np.where(exponent < 0, tiny, base ** np.maximum(exponent, 0))


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
    tensor_input("neg", input)
    return Neg.apply(input)


negative = neg


def pow(input: Any, exponent: Any) -> Any:
    """input ** exponent (tensor ** number, tensor ** tensor, number ** tensor)"""
    if not is_tensor(input) and not is_tensor(exponent):
        raise TypeError(
            f"pow() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(exponent).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
            " * (Number self, Tensor exponent, *, Tensor out = None)\n"
            " * (Tensor input, Number exponent, *, Tensor out = None)\n")
    if not is_tensor(input):
        if isinstance(input, bool) and exponent.array.dtype.kind == "b":
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        if exponent.array.dtype.kind != "f":  # `2.0 ** int_tensor` is float32
            input, exponent = promote_tensors(input, exponent, "pow")
        return RPow.apply(exponent, base=input)
    if is_tensor(exponent) or isinstance(exponent, np.ndarray):
        if input.array.dtype.kind == "b" and unwrap(exponent).dtype.kind == "b":
            sa, sb = input.array.shape, unwrap(exponent).shape  # (shapes first, as PyTorch)
            if broadcast.size_mismatch(sa, sb):
                raise RuntimeError(broadcast.broadcast_message("pow", sa, sb))
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
    tensor_input("square", input)
    return pow(input, 2)


def compare(np_fn: Any, a: Any, b: Any) -> Any:
    """A comparison (`a < b`, ...): a boolean tensor, never recorded."""
    x, y = unwrap(a), unwrap(as_operand(b))
    try:
        return constant(np_fn(x, y))
    except ValueError:  # (shapes that do not broadcast: PyTorch's words)
        raise RuntimeError(broadcast.size_mismatch(np.shape(x), np.shape(y)) or "no broadcast"
                           ) from None
