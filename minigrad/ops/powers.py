"""Powers: `a ** p` for a number p (PowBackward0), `a ** b` of two tensors (PowBackward1),
`c ** a` for a number c (PowBackward2), with `pow` and `square`, and the dtypes and errors
PyTorch gives them (integers to negative powers included).

Each backward returns the gradient in the *broadcast* shape, as in arithmetic.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import broadcast  # (names read at call time: it imports tensor)
from minigrad.autograd.function import RESULT, Function
from minigrad.ops.base import binary, constant, is_tensor, promote_tensors, tensor_input, unwrap
from minigrad.ops.selection import choose

# the public functions: minigrad.pow, minigrad.square (re-exported by ops/ and minigrad/)
__all__ = ["pow", "square"]


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
        return power_array(unwrap(a), unwrap(b))

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
        return power_array(np.asanyarray(base, dtype=unwrap(a).dtype), unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.output * float(np.log(ctx.base))

    @staticmethod
    def jvp(ctx, ta):
        return ta * ctx.output * float(np.log(ctx.base))


def power_array(base: Any, exponent: Any) -> Any:
    """base ** exponent in numpy; integers to negative powers as PyTorch gives them (numpy
    refuses): 1 for a base of 1, +-1 for -1, else 0 (the quotient 1 / base**n, truncated)."""
    base, exponent = np.asanyarray(base), np.asanyarray(exponent)  # (a meta one stays)
    if exponent.dtype.kind not in "iu" or base.dtype.kind not in "iub" or \
            not (exponent < 0).any():
        return base ** exponent
    ones = np.where(exponent % 2 == 0, 1, -1).astype(np.result_type(base, exponent))
    tiny = np.where(base == 1, 1, np.where(base == -1, ones, 0))
    return np.where(exponent < 0, tiny, base ** np.maximum(exponent, 0))


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
