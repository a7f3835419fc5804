"""More one-input float functions: erf, erfc, erfinv, log1p, expm1, log2, log10, exp2, rsqrt,
the inverse and hyperbolic trigonometric functions. This module also re-exports the steps
(floor, ceil, round, trunc, sign, sgn), frac and nan_to_num (`rounding.py`) and the two-input
functions atan2, hypot, lerp, xlogy (`pairwise.py`).

Each op here is a `_Pointwise`: numpy's function forward, and `derivative`, its derivative in
Tensor ops (so `create_graph=True` differentiates it again). Integer and bool inputs are
computed in float32 (`in_float`), as PyTorch does.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.in_place import inplace
from minigrad.ops.pairwise import atan2, hypot, lerp, xlogy
from minigrad.ops.rounding import ceil, fix, floor, frac, nan_to_num, round, sgn, sign, trunc
from minigrad.ops.unary import exp, in_float, sqrt

# the public functions: minigrad.floor, ... (re-exported by ops/ and minigrad/)
__all__ = ["acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
           "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "cosh", "erf", "erfc",
           "erfinv", "exp2", "expm1", "fix", "floor", "frac", "hypot", "lerp", "log10", "log1p",
           "log2", "nan_to_num", "round", "rsqrt", "sgn", "sign", "sinh", "trunc", "xlogy"]

_SQRT_PI = math.sqrt(math.pi)


class _Pointwise(Function, numpy_forward=True):
    """One input, one numpy function: the gradient is `grad * derivative(a, out)`, where `a`
    is the input (saved) or `out` the output (saved instead, for `saves_output` ops)."""

    np_fn: Any = None

    @classmethod
    def forward(cls, ctx, a):
        if not cls.saves_output:
            ctx.save_for_backward(a)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asanyarray(cls.np_fn(a.array)).astype(a.array.dtype, copy=False)

    @classmethod
    def backward(cls, ctx, grad):
        if cls.saves_output:
            return grad * cls.derivative(None, ctx.output)
        (a,) = ctx.unpack_saved()
        return grad * cls.derivative(a, None)

    @classmethod
    def jvp(cls, ctx, t):
        """Elementwise, so J v is v times the derivative (PyTorch's `auto_element_wise`)."""
        return t * cls.derivative(ctx.inputs[0], ctx.output)

    @staticmethod
    def derivative(a: Any, out: Any) -> Any:
        raise NotImplementedError


def _erf_array(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _erfc_array(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _erfinv_array(y: np.ndarray) -> np.ndarray:
    """erf's inverse: Winitzki's approximation (3 digits), then Newton's steps, each doubling
    the digits, on erf(x) = |y| (on erfc(x) = 1 - |y| past 0.5, which keeps the digits near
    1); +-inf at +-1, NaN outside [-1, 1] (as PyTorch)."""
    y = y.astype(np.float64)
    inside = np.abs(y) < 1
    w = np.where(inside, np.abs(y), 0.0)
    ln = np.log1p(-w * w)
    t = 2 / (math.pi * 0.147) + ln / 2
    x = np.sqrt(np.sqrt(t * t - ln / 0.147) - t)
    tail = w > 0.5
    for _ in range(5):
        miss = np.where(tail, (1 - w) - _erfc_array(x), _erf_array(x) - w)
        x = x - miss * (_SQRT_PI / 2) * np.exp(x * x)
    x = np.sign(y) * x
    return np.where(inside, x, np.where(np.abs(y) == 1, np.sign(y) * np.inf, np.nan))


class Erf(_Pointwise):
    """the error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to a"""

    node_name = "ErfBackward0"
    formula = r"d(erf a)/da = 2/sqrt(pi) * exp(-a^2)"
    source = "{0}.erf()"
    gradients = ("{g} * 2/sqrt(pi) * exp(-{0}**2)",)
    tangent = "{t0} * 2/sqrt(pi) * exp(-{0}**2)"
    np_fn = staticmethod(_erf_array)

    @staticmethod
    def derivative(a, out):
        return exp(-(a * a)) * (2 / _SQRT_PI)


class Erfc(_Pointwise):
    """1 - erf(a)"""

    node_name = "ErfcBackward0"
    formula = r"d(erfc a)/da = -2/sqrt(pi) * exp(-a^2)"
    source = "{0}.erfc()"
    gradients = ("-{g} * 2/sqrt(pi) * exp(-{0}**2)",)
    tangent = "-{t0} * 2/sqrt(pi) * exp(-{0}**2)"
    np_fn = staticmethod(_erfc_array)

    @staticmethod
    def derivative(a, out):
        return exp(-(a * a)) * (-2 / _SQRT_PI)


class Erfinv(_Pointwise):
    """the inverse of erf, on (-1, 1)"""

    node_name = "ErfinvBackward0"
    pytorch_keeps = {"self": 0}
    formula = r"d(erfinv a)/da = sqrt(pi)/2 * exp(erfinv(a)^2)"
    saves_output = True
    source = "{0}.erfinv()"
    gradients = ("{g} * sqrt(pi)/2 * exp({out}**2)",)
    tangent = "{t0} * sqrt(pi)/2 * exp({out}**2)"
    np_fn = staticmethod(_erfinv_array)

    @staticmethod
    def derivative(a, out):
        return exp(out * out) * (_SQRT_PI / 2)


class Log1p(_Pointwise):
    """ln(1 + a), exact for small a"""

    node_name = "Log1PBackward0"
    formula = r"d(ln(1+a))/da = 1/(1+a)"
    source = "{0}.log1p()"
    gradients = ("{g} / (1 + {0})",)
    tangent = "{t0} / (1 + {0})"
    np_fn = staticmethod(np.log1p)

    @staticmethod
    def derivative(a, out):
        return 1 / (a + 1)


class Expm1(_Pointwise):
    """e^a - 1, exact for small a"""

    node_name = "Expm1Backward0"
    formula = r"d(e^a - 1)/da = e^a"
    saves_output = True
    source = "{0}.expm1()"
    gradients = ("{g} * ({out} + 1)",)
    tangent = "{t0} * ({out} + 1)"
    np_fn = staticmethod(np.expm1)

    @staticmethod
    def derivative(a, out):
        return out + 1


class Log2(_Pointwise):
    """logarithm to base 2"""

    node_name = "Log2Backward0"
    formula = r"d(log2 a)/da = 1/(a ln 2)"
    source = "{0}.log2()"
    gradients = ("{g} / ({0} * ln(2))",)
    tangent = "{t0} / ({0} * ln(2))"
    np_fn = staticmethod(np.log2)

    @staticmethod
    def derivative(a, out):
        return 1 / (a * math.log(2))


class Log10(_Pointwise):
    """logarithm to base 10"""

    node_name = "Log10Backward0"
    formula = r"d(log10 a)/da = 1/(a ln 10)"
    source = "{0}.log10()"
    gradients = ("{g} / ({0} * ln(10))",)
    tangent = "{t0} / ({0} * ln(10))"
    np_fn = staticmethod(np.log10)

    @staticmethod
    def derivative(a, out):
        return 1 / (a * math.log(10))


class Exp2(_Pointwise):
    """2 ** a"""

    node_name = "Exp2Backward0"
    formula = r"d(2^a)/da = 2^a * ln 2"
    saves_output = True
    source = "{0}.exp2()"
    gradients = ("{g} * {out} * ln(2)",)
    tangent = "{t0} * {out} * ln(2)"
    np_fn = staticmethod(np.exp2)

    @staticmethod
    def derivative(a, out):
        return out * math.log(2)


class Rsqrt(_Pointwise):
    """1 / sqrt(a)"""

    node_name = "RsqrtBackward0"
    formula = r"d(a^-1/2)/da = -1/2 * a^-3/2"
    saves_output = True
    source = "{0}.rsqrt()"
    gradients = ("-{g} / 2 * {out}**3",)
    tangent = "-{t0} / 2 * {out}**3"
    np_fn = staticmethod(lambda x: 1 / np.sqrt(x))

    @staticmethod
    def derivative(a, out):
        return out * out * out * -0.5


class Asin(_Pointwise):
    """arcsine, on [-1, 1]"""

    node_name = "AsinBackward0"
    formula = r"d(asin a)/da = 1/sqrt(1 - a^2)"
    source = "{0}.asin()"
    gradients = ("{g} / sqrt(1 - {0}**2)",)
    tangent = "{t0} / sqrt(1 - {0}**2)"
    np_fn = staticmethod(np.arcsin)

    @staticmethod
    def derivative(a, out):
        return 1 / sqrt(1 - a * a)


class Acos(_Pointwise):
    """arccosine, on [-1, 1]"""

    node_name = "AcosBackward0"
    formula = r"d(acos a)/da = -1/sqrt(1 - a^2)"
    source = "{0}.acos()"
    gradients = ("-{g} / sqrt(1 - {0}**2)",)
    tangent = "-{t0} / sqrt(1 - {0}**2)"
    np_fn = staticmethod(np.arccos)

    @staticmethod
    def derivative(a, out):
        return -1 / sqrt(1 - a * a)


class Atan(_Pointwise):
    """arctangent"""

    node_name = "AtanBackward0"
    formula = r"d(atan a)/da = 1/(1 + a^2)"
    source = "{0}.atan()"
    gradients = ("{g} / (1 + {0}**2)",)
    tangent = "{t0} / (1 + {0}**2)"
    np_fn = staticmethod(np.arctan)

    @staticmethod
    def derivative(a, out):
        return 1 / (a * a + 1)


class Sinh(_Pointwise):
    """hyperbolic sine"""

    node_name = "SinhBackward0"
    formula = r"d(sinh a)/da = cosh a"
    source = "{0}.sinh()"
    gradients = ("{g} * cosh({0})",)
    tangent = "{t0} * cosh({0})"
    np_fn = staticmethod(np.sinh)

    @staticmethod
    def derivative(a, out):
        return cosh(a)


class Cosh(_Pointwise):
    """hyperbolic cosine"""

    node_name = "CoshBackward0"
    formula = r"d(cosh a)/da = sinh a"
    source = "{0}.cosh()"
    gradients = ("{g} * sinh({0})",)
    tangent = "{t0} * sinh({0})"
    np_fn = staticmethod(np.cosh)

    @staticmethod
    def derivative(a, out):
        return sinh(a)


class Asinh(_Pointwise):
    """inverse hyperbolic sine"""

    node_name = "AsinhBackward0"
    formula = r"d(asinh a)/da = 1/sqrt(a^2 + 1)"
    source = "{0}.asinh()"
    gradients = ("{g} / sqrt({0}**2 + 1)",)
    tangent = "{t0} / sqrt({0}**2 + 1)"
    np_fn = staticmethod(np.arcsinh)

    @staticmethod
    def derivative(a, out):
        return 1 / sqrt(a * a + 1)


class Acosh(_Pointwise):
    """inverse hyperbolic cosine, on [1, inf)"""

    node_name = "AcoshBackward0"
    formula = r"d(acosh a)/da = 1/sqrt(a^2 - 1)"
    source = "{0}.acosh()"
    gradients = ("{g} / sqrt({0}**2 - 1)",)
    tangent = "{t0} / sqrt({0}**2 - 1)"
    np_fn = staticmethod(np.arccosh)

    @staticmethod
    def derivative(a, out):
        return 1 / sqrt(a * a - 1)


class Atanh(_Pointwise):
    """inverse hyperbolic tangent, on (-1, 1)"""

    node_name = "AtanhBackward0"
    formula = r"d(atanh a)/da = 1/(1 - a^2)"
    source = "{0}.atanh()"
    gradients = ("{g} / (1 - {0}**2)",)
    tangent = "{t0} / (1 - {0}**2)"
    np_fn = staticmethod(np.arctanh)

    @staticmethod
    def derivative(a, out):
        return 1 / (1 - a * a)


erf, erfc, erfinv = in_float(Erf, "erf"), in_float(Erfc, "erfc"), in_float(Erfinv, "erfinv")
log1p, expm1 = in_float(Log1p, "log1p"), in_float(Expm1, "expm1")
log2, log10 = in_float(Log2, "log2"), in_float(Log10, "log10")
exp2, rsqrt = in_float(Exp2, "exp2"), in_float(Rsqrt, "rsqrt")
asin = arcsin = in_float(Asin, "asin")
acos = arccos = in_float(Acos, "acos")
atan = arctan = in_float(Atan, "atan")
sinh, cosh = in_float(Sinh, "sinh"), in_float(Cosh, "cosh")
asinh = arcsinh = in_float(Asinh, "asinh")
acosh = arccosh = in_float(Acosh, "acosh")
atanh = arctanh = in_float(Atanh, "atanh")
arctan2 = atan2


def in_place(op: Any) -> Any:
    """The method `x.floor_()` (for `op` floor): op's result written into x, one node as in
    PyTorch (see ops.in_place)."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:  # (`x.round_(decimals=1)`)
        return inplace(self, lambda x, _: op(x, *args, **kwargs), None)

    method.__name__ = method.__qualname__ = op.__name__ + "_"
    method.__doc__ = f"in place: {op.__name__}"
    params = list(inspect.signature(op).parameters.values())  # op's, without input or out=
    method.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
         *(p for p in params[1:] if p.name != "out")])
    return method
