"""Floor division and remainder (`a // b`, `a % b`), with PyTorch's dtypes and errors.

A number operand is a setting of the node, not an input (PyTorch gives it no edge): `x % 1.5`
is RemainderBackward0 with one edge. Integer division by zero raises, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import as_operand, binary, constant, is_tensor, promote_tensors, unwrap


class Remainder(Function, numpy_forward=True):
    """a mod b, with the sign of b (Python's %); b a tensor or a number"""

    node_name = "RemainderBackward1"
    formula = r"d(a mod b)/da = 1 ;  d(a mod b)/db = -floor(a/b)"
    source = "{0} % {1}"
    gradients = ("{g}", "-{g} * floor({0} / {1})")
    tangent = "{t0} - {t1} * floor({0} / {1})"

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad:
            ctx.save_for_backward(a, b)
        return integer_division(remainder_array, "remainder", unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        # floor(a/b) is a step: its own derivative is 0 wherever it is defined
        floor = constant(np.floor(a.array / b.array)) if need_b else None
        return grad if need_a else None, -grad * floor if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.inputs
        return ta - tb * constant(np.floor(unwrap(a) / unwrap(b)))


class RemainderScalar(Remainder):
    """a mod c, for a number c"""

    node_name = "RemainderBackward0"
    formula = r"d(a mod c)/da = 1"
    source = "{0} % {c}"
    gradients = ("{g}",)
    tangent = "{t0}"

    @staticmethod
    def forward(ctx, a, c):
        return integer_division(remainder_array, "remainder", unwrap(a), c)

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, ta):
        return ta.clone()


class FloorDivide(Function, numpy_forward=True):
    """floor(a / b): a step function, whose derivative PyTorch does not define either"""

    node_name = "NotImplemented"
    formula = r"d floor(a/b)/da: not implemented (0 almost everywhere, as in PyTorch)"
    gradients = ()
    jvp_refused = "Trying to use forward AD with aten::floor_divide that does not support it."

    @staticmethod
    def source(args: list[str], settings: dict, shape: tuple | None) -> str:
        """`x // y`, `x // 2`, `7 // x`, `7.5 % x`: the four ops named NotImplemented read
        alike, from the settings the narration adds (`op`, and `reverse` for `7 // x`)."""
        op = settings["op"]
        if "c" not in settings:
            return f"{args[0]} {op} {args[1]}"
        c = settings["c"]
        return f"{c} {op} {args[0]}" if settings.get("reverse") else f"{args[0]} {op} {c}"

    @staticmethod
    def forward(ctx, a, b):
        return integer_division(np.floor_divide, "div_floor", unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class FloorDivideScalar(FloorDivide):
    """floor(a / c) for a number c: one edge, to a"""

    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, a, c):
        return integer_division(np.floor_divide, "div_floor", unwrap(a), c)


class NumberFloorDivide(FloorDivide):
    """floor(c / a) for a number c: one edge, to a"""

    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, a, c):
        return integer_division(np.floor_divide, "div_floor", c, unwrap(a))


class NumberRemainder(Function, numpy_forward=True):
    """c mod a for a number c: PyTorch defines no derivative for it"""

    node_name = "NotImplemented"
    formula = r"d(c mod a)/da: not implemented (as in PyTorch)"
    jvp_refused = "Trying to use forward AD with aten::remainder that does not support it."
    source = staticmethod(FloorDivide.source)  # (the node name does not say which it was)
    gradients = ()

    @staticmethod
    def forward(ctx, a, c):
        return integer_division(remainder_array, "remainder", c, unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")


class DivRounded(Function, numpy_forward=True):
    """a / b rounded towards 0 ('trunc') or down ('floor'): a step, with zero gradients (as
    PyTorch's DivBackward2)"""

    node_name = "DivBackward2"
    pytorch_keeps = {"self": 0, "other": 1}
    formula = r"d round(a/b)/da = 0 ;  d round(a/b)/db = 0 (almost everywhere)"
    source = "{0}.div({1}, rounding_mode=...)"
    gradients = ("0", "0")
    tangent = "0"

    @staticmethod
    def forward(ctx, a, b, rounding_mode):
        x, y = unwrap(a), unwrap(b)
        ctx.shape = np.broadcast_shapes(np.shape(x), np.shape(y))
        if rounding_mode == "floor":
            return integer_division(np.floor_divide, "div_floor", x, y)
        return integer_division(_trunc_divide, "div_trunc", x, y)

    @staticmethod
    def backward(ctx, grad):
        zeros = constant(np.zeros(ctx.shape, grad.array.dtype))
        return tuple(zeros if need else None for need in ctx.needs_input_grad)

    @staticmethod
    def jvp(ctx, ta, tb):
        return constant(np.zeros_like(ctx.output.array))


def _trunc_divide(x: Any, y: Any) -> Any:
    """x / y rounded towards 0; integers stay integers."""
    dtype = np.result_type(x, y)
    if dtype.kind == "f":
        return np.trunc(np.true_divide(x, y))
    q = np.floor_divide(np.abs(x), np.abs(y))
    return np.where((np.asanyarray(x) < 0) != (np.asanyarray(y) < 0), -q, q).astype(dtype)


def div_rounded(input: Any, other: Any, rounding_mode: str) -> Any:
    """input / other with `rounding_mode` 'trunc' or 'floor' (PyTorch's error otherwise)"""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    # (promoted as `//` is: integers stay integers, where `/` gives float32)
    a, b = promote_tensors(as_operand(input), as_operand(other), "floor_divide")
    with np.errstate(divide="ignore", invalid="ignore"):
        return binary(DivRounded, "div", a, b, rounding_mode=rounding_mode)


def remainder_array(x: Any, y: Any) -> Any:
    """x mod y with the sign of y, as PyTorch computes it for floats: fmod, then y added where
    the signs differ, so a zero keeps the sign of x (`-2. % 1.` is -0.; numpy's is +0.)."""
    if np.result_type(x, y).kind != "f":
        return np.remainder(x, y)
    r = np.fmod(x, y)
    return np.where((r != 0) & ((r < 0) != (np.asarray(y) < 0)), r + y, r)


def integer_division(ufunc: np.ufunc, name: str, x, y):
    """`ufunc(x, y)` (operands of one dtype, see `promote`) with PyTorch's errors: none for
    bools, and integer division by zero raises (numpy would give 0 and warn)."""
    dtype = x.dtype if isinstance(x, np.ndarray) else np.result_type(y)
    np.broadcast_shapes(np.shape(x), np.shape(y))  # (shapes first: `binary` words the error)
    if dtype.kind == "b":
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    if dtype.kind in "iu" and np.any(np.asanyarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    return ufunc(x, y)


def floor_divide(input: Any, other: Any) -> Any:
    """floor(input / other) (`a // b`); integers stay integers"""
    return _with_number("floor_divide", input, other, FloorDivide, FloorDivideScalar,
                        NumberFloorDivide)


def remainder(input: Any, other: Any) -> Any:
    """input mod other, with the sign of other (`a % b`)"""
    # (`7.5 % x` has no derivative, as in PyTorch: NumberRemainder)
    return _with_number("remainder", input, other, Remainder, RemainderScalar, NumberRemainder)


def _with_number(name: str, input: Any, other: Any, both: Any, number_second: Any,
                 number_first: Any) -> Any:
    """A two-input op whose number operand is a setting of the node, not an input (PyTorch
    gives it no edge): `number_second` for `t op c`, `number_first` for `c op t` (each applied
    to the tensor, with c=), `both` for two tensors."""
    if _is_number(other) and is_tensor(input):
        t, c = promote_tensors(input, other, name)
        return number_second.apply(t, c=c)
    if _is_number(input) and is_tensor(other):
        c, t = promote_tensors(input, other, name)
        return number_first.apply(t, c=c)
    return binary(both, name, input, other, promote=True)


def _is_number(x: Any) -> bool:
    """A Python (or numpy) number: not a tensor, not an array."""
    return not is_tensor(x) and not isinstance(x, np.ndarray)
