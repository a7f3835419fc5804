"""The steps (floor, ceil, round, trunc, sign, sgn), frac and nan_to_num (re-exported by
`elementwise.py`).

A step's gradient is 0 wherever it is defined: PyTorch sends zeros, under its own node names
(`FloorBackward0`). Integer tensors come back as they are (never recorded); bools get
PyTorch's error, except from sign, whose sign of a bool is the bool.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.selection import choose
from minigrad.surface.dtypes import TORCH_NAMES


class _Step(Function):
    """A step function: its gradient is 0 wherever it is defined (PyTorch sends zeros)."""

    formula = r"d(step a)/da = 0 (almost everywhere)"
    gradients = ("0",)
    np_fn: Any = None
    tangent = "0"

    @classmethod
    def forward(cls, ctx, a):
        return cls.np_fn(a.array)

    @staticmethod
    def backward(ctx, grad):
        return constant(np.zeros_like(grad.array))

    @staticmethod
    def jvp(ctx, t):
        return constant(np.zeros_like(t.array))


class Floor(_Step):
    """the largest whole number <= a"""

    node_name = "FloorBackward0"
    source = "{0}.floor()"
    np_fn = staticmethod(np.floor)


class Ceil(_Step):
    """the smallest whole number >= a"""

    node_name = "CeilBackward0"
    source = "{0}.ceil()"
    np_fn = staticmethod(np.ceil)


class Round(_Step):
    """a rounded to the nearest whole number, halves to even (as PyTorch and numpy)"""

    node_name = "RoundBackward0"
    source = "{0}.round()"
    np_fn = staticmethod(np.round)


class RoundDecimals(_Step):
    """a rounded to `decimals` decimal places"""

    node_name = "RoundBackward1"
    source = "{0}.round(decimals=...)"

    @staticmethod
    def forward(ctx, a, decimals):
        return np.round(a.array, decimals)


class Trunc(_Step):
    """a with its fractional part dropped (rounded towards 0)"""

    node_name = "TruncBackward0"
    source = "{0}.trunc()"
    np_fn = staticmethod(np.trunc)


class Sign(_Step):
    """-1, 0 or 1, the sign of a (0 for NaN and -0.0, as PyTorch)"""

    node_name = "SignBackward0"
    source = "{0}.sign()"
    np_fn = staticmethod(lambda x: np.where(np.isnan(x), 0, np.sign(x)) + x.dtype.type(0))


class Sgn(Sign):
    """the sign of a (for real numbers the same as sign)"""

    node_name = "SgnBackward0"
    source = "{0}.sgn()"


class Frac(Function):
    """a - trunc(a), the fractional part (with a's sign)"""

    node_name = "FracBackward0"
    formula = r"d(frac a)/da = 1 (almost everywhere)"
    source = "{0}.frac()"
    gradients = ("{g}",)
    tangent = "{t0}"

    @staticmethod
    def forward(ctx, a):
        return a.array - np.trunc(a.array)

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, t):
        return t.clone()


class NanToNum(Function):
    """a with NaN, +inf and -inf replaced by finite numbers"""

    node_name = "NanToNumBackward0"
    formula = r"d(nan_to_num a)/da = 1 where a is finite, else 0"
    source = "{0}.nan_to_num()"
    gradients = ("{g} * isfinite({0})",)
    tangent = "{t0} * isfinite({0})"

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.finite = np.isfinite(a.array)
        return np.nan_to_num(a.array, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, grad):
        return choose(ctx.finite, grad, 0.0)

    @staticmethod
    def jvp(ctx, t):
        return choose(np.isfinite(ctx.inputs[0].array), t, 0.0)


def _stepped(op: type, kernel: str, name: str) -> Any:
    """A step's function: integers come back as they are (a copy, never recorded); bools get
    PyTorch's error, naming its `kernel`."""

    def function(input: Any) -> Any:
        kind = input.array.dtype.kind
        if kind == "b" and op is not Sign and op is not Sgn:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
        if kind in "biu":  # (the sign of a bool is itself)
            signs = op in (Sign, Sgn) and kind != "b"
            return constant(np.sign(input.array) if signs else input.array.copy())
        return op.apply(input)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = op.__doc__
    return function


floor = _stepped(Floor, "floor_vml_cpu", "floor")
ceil = _stepped(Ceil, "ceil_vml_cpu", "ceil")
trunc = fix = _stepped(Trunc, "trunc_vml_cpu", "trunc")
sign = _stepped(Sign, "sign", "sign")
sgn = _stepped(Sgn, "sgn", "sgn")
_round = _stepped(Round, "round_vml_cpu", "round")


def round(input: Any, *, decimals: int = 0) -> Any:
    """a rounded to the nearest whole number (halves to even), or to `decimals` places"""
    if not decimals:
        return _round(input)
    if input.array.dtype.kind != "f":
        raise NotImplementedError(
            f'"round_cpu" not implemented for \'{TORCH_NAMES[input.array.dtype]}\'')
    return RoundDecimals.apply(input, decimals=decimals)


def frac(input: Any) -> Any:
    if input.array.dtype.kind != "f":
        raise NotImplementedError(
            f'"frac_cpu" not implemented for \'{TORCH_NAMES[input.array.dtype]}\'')
    return Frac.apply(input)


def nan_to_num(input: Any, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Any:
    """NaN -> `nan`, +inf -> `posinf`, -inf -> `neginf` (by default the dtype's largest and
    smallest finite numbers); integers and bools come back as they are"""
    if input.array.dtype.kind != "f":
        return constant(input.array.copy())
    return NanToNum.apply(input, nan=nan, posinf=posinf, neginf=neginf)
