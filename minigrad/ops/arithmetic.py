"""Arithmetic: + - * / (and `1 - x`), each op with its function (add, sub, mul, ...).

Each backward returns the gradient in the *broadcast* shape: the engine undoes broadcasting in
one place for all ops, so no op here deals with it. (`//` and `%` are in `floor_mod.py`, `**`
in `powers.py`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import (
    NEG_BOOL,
    binary,
    is_tensor,
    operands,
    promote_tensors,
    tensor_input,
    unwrap,
)
from minigrad.ops.floor_mod import div_rounded

# the public functions: minigrad.add, ... (re-exported by ops/ and minigrad/)
__all__ = ["add", "div", "mul", "neg", "sub"]


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

    backward_arrays = backward  # (the same in numpy: the gradient passes through)

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

    backward_arrays = backward  # (the same in numpy: `-` on the array)

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

    backward_arrays = backward  # (the same in numpy: `-` on the array)

    @staticmethod
    def jvp(ctx, ta):
        return -ta


class Mul(Function, numpy_forward=True):
    """a * b"""

    node_name = "MulBackward0"
    pack_order = (1, 0)  # (saved-tensor hooks see b first, as PyTorch packs and unpacks them)
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
    def backward_arrays(ctx, grad):
        """The same gradients as `backward`, in numpy alone (used when nothing is recorded)."""
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        return product(grad, b) if need_a else None, product(grad, a) if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return ta * b + a * tb


def product(grad: Any, factor: Any) -> Any:
    """`grad * factor` in numpy, promoted as the Tensor product is (ops.base.operands)."""
    x, y = operands(grad, factor)
    return x * y


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

    backward_arrays = backward  # (the same in numpy: `-` on the array)

    @staticmethod
    def jvp(ctx, ta):
        return -ta


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


