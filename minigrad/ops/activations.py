"""The activations of torch.nn beyond relu/tanh/sigmoid: gelu, leaky_relu, elu (and selu),
silu, softplus, hardtanh (and relu6), mish. Each is one node with PyTorch's name.

Forward is numpy; backward is written in Tensor ops (so `create_graph=True` differentiates
it again). Gelu's exact derivative needs erf, which only numpy-free Python has
(`math.erf`), so its backward is one op of its own, `GeluBackward` (PyTorch's
`GeluBackwardBackward0`), whose own backward is Tensor ops again.

The `source` of an op with settings names them without values (`leaky_relu(x,
negative_slope)`): an explanation of PyTorch's graph (compare.trace_torch) reads the same.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant, unwrap
from minigrad.ops.losses import _softplus
from minigrad.ops.selection import choose
from minigrad.ops.tangent_rules import elementwise

# (the public functions are torch.nn.functional's: see minigrad/nn/functional_activations.py)
__all__: list[str] = []

_erf_object = np.frompyfunc(math.erf, 1, 1)  # numpy has no erf; math.erf is exact to an ulp
_SQRT_2_PI = math.sqrt(2.0 / math.pi)  # of the tanh approximation
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)  # the normal density's constant
_TANH_C = 0.044715


def _erf(x: np.ndarray) -> np.ndarray:
    values = _erf_object(np.asanyarray(x, dtype=np.float64))
    return np.asanyarray(values, dtype=np.float64).astype(np.asanyarray(x).dtype)


def _mask(condition: np.ndarray, yes: float, no: float, dtype: Any) -> Any:
    """A constant of `yes` where condition holds and `no` elsewhere (a piecewise slope)."""
    return constant(np.where(condition, yes, no).astype(dtype))


class Gelu(Function, numpy_forward=True):
    """x * Phi(x), Phi the standard normal CDF (or its tanh approximation)"""

    node_name = "GeluBackward0"
    formula = r"d gelu(a)/da = Phi(a) + a * phi(a)   (phi the normal density)"
    source = "gelu({0}, approximate)"
    gradients = ("{g} * (Phi({0}) + {0} * phi({0}))",)
    tangent = "{t0} * (Phi({0}) + {0} * phi({0}))"
    jvp = staticmethod(elementwise)  # backward's formula, the tangent as the gradient

    @staticmethod
    def forward(ctx, a, *, approximate="none"):
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        x = unwrap(a)
        if approximate == "tanh":
            return 0.5 * x * (1 + np.tanh(_SQRT_2_PI * (x + _TANH_C * x ** 3)))
        return 0.5 * x * (1 + _erf(x / math.sqrt(2.0)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        if ctx.approximate == "tanh":
            u = (a + a * a * a * _TANH_C) * _SQRT_2_PI
            t = u.tanh()
            du = (a * a * (3 * _TANH_C) + 1) * _SQRT_2_PI
            return grad * ((t + 1) * 0.5 + a * (1 - t * t) * du * 0.5)
        return GeluBackward.apply(grad, a)


class GeluBackward(Function, numpy_forward=True):
    """grad * (Phi(a) + a * phi(a)) as one op (PyTorch's gelu_backward)"""

    node_name = "GeluBackwardBackward0"
    formula = r"d(g*gelu'(a))/dg = gelu'(a) ;  d(g*gelu'(a))/da = g * phi(a) * (2 - a^2)"
    source = None  # (read as GeluBackwardBackward0(g, a))
    gradients = ()
    tangent = "{t0} * gelu'({1}) + {t1} * {0} * phi({1}) * (2 - {1}**2)"

    @staticmethod
    def forward(ctx, grad, a):
        ctx.save_for_backward(grad, a)
        x = a.array
        cdf = 0.5 * (1 + _erf(x / math.sqrt(2.0)))
        return grad.array * (cdf + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI)

    @staticmethod
    def backward(ctx, gg):
        grad, a = ctx.unpack_saved()
        need_grad, need_a = ctx.needs_input_grad
        density = (a * a * -0.5).exp() * _INV_SQRT_2PI
        return (GeluBackward.apply(gg, a) if need_grad else None,
                gg * grad * density * (2 - a * a) if need_a else None)

    @staticmethod
    def jvp(ctx, tg, ta):
        grad, a = ctx.inputs
        density = (a * a * -0.5).exp() * _INV_SQRT_2PI
        return GeluBackward.apply(tg, a) + ta * grad * density * (2 - a * a)


class LeakyRelu(Function, numpy_forward=True):
    """a if a > 0 else negative_slope * a"""

    node_name = "LeakyReluBackward0"
    formula = r"d leaky_relu(a)/da = 1 if a > 0 else negative_slope"
    source = "leaky_relu({0}, negative_slope)"
    gradients = ("{g} * (1 if {0} > 0 else negative_slope)",)
    tangent = "{t0} * (1 if {0} > 0 else negative_slope)"
    jvp = staticmethod(elementwise)  # backward's formula, the tangent as the gradient

    @staticmethod
    def forward(ctx, a, *, negative_slope=0.01):
        ctx.save_for_backward(a)
        ctx.negative_slope = negative_slope
        x = unwrap(a)
        return np.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return grad * _mask(a.array > 0, 1.0, ctx.negative_slope, a.array.dtype)


class LeakyReluInplace(LeakyRelu):
    """leaky_relu_ (in place): PyTorch names its node LeakyReluBackward1"""

    node_name = "LeakyReluBackward1"
    source = "leaky_relu_({0}, negative_slope)"


class Elu(Function, numpy_forward=True):
    """scale * (a if a > 0 else alpha * (exp(input_scale * a) - 1)); selu is elu with fixed
    alpha and scale"""

    node_name = "EluBackward0"
    formula = r"d elu(a)/da = scale if a > 0 else scale * alpha * input_scale * " \
        r"exp(input_scale * a)"
    source = "elu({0}, alpha)"
    gradients = ("{g} * (1 if {0} > 0 else alpha * exp({0}))",)
    tangent = "{t0} * (1 if {0} > 0 else alpha * exp({0}))"
    jvp = staticmethod(elementwise)  # backward's formula, the tangent as the gradient

    @staticmethod
    def forward(ctx, a, *, alpha=1.0, scale=1.0, input_scale=1.0):
        ctx.save_for_backward(a)
        ctx.alpha, ctx.scale, ctx.input_scale = alpha, scale, input_scale
        x = unwrap(a)
        negative = alpha * np.expm1(input_scale * np.minimum(x, 0))
        return (scale * np.where(x > 0, x, negative)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        # exp of min(a, 0): the branch not taken must not overflow (0 * inf is nan)
        slope = (a.clamp(max=0) * ctx.input_scale).exp() * (ctx.alpha * ctx.input_scale)
        return choose(a.array > 0, grad * ctx.scale, grad * slope * ctx.scale)


class EluInplace(Elu):
    """elu_ (in place): PyTorch names its node EluBackward1"""

    node_name = "EluBackward1"
    source = "elu_({0}, alpha)"


class Silu(Function, numpy_forward=True):
    """a * sigmoid(a) (also called swish)"""

    node_name = "SiluBackward0"
    formula = r"d silu(a)/da = s * (1 + a * (1 - s))   (s = sigmoid(a))"
    source = "silu({0})"
    gradients = ("{g} * s * (1 + {0} * (1 - s))",)
    tangent = "{t0} * s * (1 + {0} * (1 - s))"
    jvp = staticmethod(elementwise)  # backward's formula, the tangent as the gradient

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        x = unwrap(a)
        e = np.exp(-np.abs(x))  # split by sign so that exp never overflows
        s = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
        return (x * s).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        s = a.sigmoid()
        return grad * s * (a * (1 - s) + 1)


class Softplus(Function, numpy_forward=True):
    """log(1 + exp(beta * a)) / beta, and a itself where beta * a > threshold"""

    node_name = "SoftplusBackward0"
    formula = r"d softplus(a)/da = sigmoid(beta * a)  (1 where beta * a > threshold)"
    source = "softplus({0}, beta, threshold)"
    gradients = ("{g} * sigmoid(beta * {0})",)
    tangent = "{t0} * sigmoid(beta * {0})"
    jvp = staticmethod(elementwise)  # backward's formula, the tangent as the gradient

    @staticmethod
    def forward(ctx, a, *, beta=1.0, threshold=20.0):
        ctx.save_for_backward(a)
        ctx.beta, ctx.threshold = beta, threshold
        x = unwrap(a)
        z = x * beta
        return np.where(z > threshold, x, np.logaddexp(0, z) / beta).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        linear = a.array * ctx.beta > ctx.threshold
        return choose(linear, grad, grad * (a * ctx.beta).sigmoid())


class Hardtanh(Function, numpy_forward=True):
    """a clamped into [min_val, max_val] (relu6 is hardtanh(a, 0, 6))"""

    node_name = "HardtanhBackward0"
    formula = r"d hardtanh(a)/da = 1 if min_val < a < max_val else 0"
    source = "hardtanh({0}, min_val, max_val)"
    gradients = ("{g} * (min_val < {0} < max_val)",)
    tangent = "{t0} * (min_val < {0} < max_val)"
    jvp = staticmethod(elementwise)  # backward's formula, the tangent as the gradient

    @staticmethod
    def forward(ctx, a, *, min_val=-1.0, max_val=1.0):
        ctx.save_for_backward(a)
        ctx.min_val, ctx.max_val = min_val, max_val
        x = unwrap(a)
        return np.clip(x, min_val, max_val).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        x = a.array
        return grad * _mask((x > ctx.min_val) & (x < ctx.max_val), 1.0, 0.0, x.dtype)


class Mish(Function, numpy_forward=True):
    """a * tanh(softplus(a))"""

    node_name = "MishBackward0"
    formula = r"d mish(a)/da = t + a * sigmoid(a) * (1 - t^2)   (t = tanh(softplus(a)))"
    source = "mish({0})"
    gradients = ("{g} * (t + {0} * sigmoid({0}) * (1 - t**2))",)
    tangent = "{t0} * (t + {0} * sigmoid({0}) * (1 - t**2))"
    jvp = staticmethod(elementwise)  # backward's formula, the tangent as the gradient

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        x = unwrap(a)
        return (x * np.tanh(np.logaddexp(0, x))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        t = _softplus(a).tanh()
        return grad * (t + a * a.sigmoid() * (1 - t * t))
