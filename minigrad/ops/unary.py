"""One-input elementwise functions: exp, log, sqrt, abs, tanh, sigmoid, relu, sin, cos, tan,
1/a.

Integer and bool inputs are computed in float32, as PyTorch does (`in_float`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import cast, constant, float_array, tensor_input, unwrap
from minigrad.ops.selection import _keep_or_zero, choose
from minigrad.surface.dtypes import kernel_error

# the public functions: minigrad.abs, ... (re-exported by ops/ and minigrad/)
__all__ = ["abs", "cos", "exp", "log", "reciprocal", "relu", "sigmoid", "sin", "sqrt", "tan",
           "tanh"]


class Reciprocal(Function, numpy_forward=True):
    """1 / a"""

    node_name = "ReciprocalBackward0"
    formula = r"d(1/a)/da = -1/a^2"
    saves_output = True
    source = "{0}.reciprocal()"
    gradients = ("-{g} * {out}**2",)
    tangent = "-{t0} * {out}**2"

    @staticmethod
    def forward(ctx, a):
        return 1.0 / unwrap(a)

    @staticmethod
    def backward(ctx, grad):
        out = ctx.output
        return -grad * out * out

    @staticmethod
    def jvp(ctx, t):
        out = ctx.output
        return -t * out * out


class Exp(Function, numpy_forward=True):
    """e ** a"""

    node_name = "ExpBackward0"
    formula = r"d(exp a)/da = exp a"
    saves_output = True
    source = "{0}.exp()"
    gradients = ("{g} * {out}",)
    tangent = "{t0} * {out}"

    @staticmethod
    def forward(ctx, a):
        return np.exp(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.output

    @staticmethod
    def jvp(ctx, t):
        return t * ctx.output


class Log(Function, numpy_forward=True):
    """natural logarithm"""

    node_name = "LogBackward0"
    formula = r"d(ln a)/da = 1/a"
    source = "{0}.log()"
    gradients = ("{g} / {0}",)
    tangent = "{t0} / {0}"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return grad / a

    @staticmethod
    def jvp(ctx, t):
        return t / ctx.inputs[0]


class Sqrt(Function, numpy_forward=True):
    """square root"""

    node_name = "SqrtBackward0"
    formula = r"d(sqrt a)/da = 1/(2*sqrt a)"
    saves_output = True
    source = "{0}.sqrt()"
    gradients = ("{g} / (2 * {out})",)
    tangent = "{t0} / (2 * {out})"

    @staticmethod
    def forward(ctx, a):
        return np.sqrt(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        return grad / (2 * ctx.output)

    @staticmethod
    def jvp(ctx, t):
        return t / (2 * ctx.output)


class Abs(Function, numpy_forward=True):
    """|a|"""

    node_name = "AbsBackward0"
    formula = r"d|a|/da = sign(a)"
    source = "{0}.abs()"
    gradients = ("{g} * sign({0})",)
    tangent = "{t0} * sign({0})"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return grad * constant(np.sign(a.array))

    @staticmethod
    def jvp(ctx, t):
        return t * constant(np.sign(ctx.inputs[0].array))


class Tanh(Function, numpy_forward=True):
    """hyperbolic tangent"""

    node_name = "TanhBackward0"
    formula = r"d(tanh a)/da = 1 - tanh(a)^2"
    saves_output = True
    source = "{0}.tanh()"
    gradients = ("{g} * (1 - {out}**2)",)
    tangent = "{t0} * (1 - {out}**2)"

    @staticmethod
    def forward(ctx, a):
        return np.tanh(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        return TanhBackward.apply(grad, ctx.output)

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradient as `backward`, in numpy alone (used when nothing is recorded)."""
        return tanh_backward_array(grad, ctx.output_data())

    @staticmethod
    def jvp(ctx, t):
        return TanhBackward.apply(t, ctx.output)


def tanh_backward_array(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    """grad * (1 - y^2) in numpy (the 1 as a 0-d array: see ops.base.operands)."""
    return grad * (float_array(1.0, y.dtype) - y * y)


class TanhBackward(Function, numpy_forward=True):
    """grad * (1 - y^2) as one op, where y = tanh(a) (PyTorch's tanh_backward)"""

    node_name = "TanhBackwardBackward0"
    formula = r"d(g*(1-y^2))/dg = 1 - y^2 ;  d(g*(1-y^2))/dy = -2*g*y"
    source = None  # (read as TanhBackwardBackward0(g, y))
    gradients = ()
    tangent = "{t0} * (1 - {1}**2) - 2 * {0} * {1} * {t1}"

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        return tanh_backward_array(grad.array, y.array)

    @staticmethod
    def backward(ctx, gg):
        grad, y = ctx.unpack_saved()
        need_grad, need_y = ctx.needs_input_grad
        return (gg * (1 - y * y) if need_grad else None,
                gg * grad * y * -2 if need_y else None)

    @staticmethod
    def jvp(ctx, tg, ty):
        grad, y = ctx.inputs
        return TanhBackward.apply(tg, y) + ty * grad * y * -2


class Sigmoid(Function, numpy_forward=True):
    """logistic function 1 / (1 + e^-a)"""

    node_name = "SigmoidBackward0"
    formula = r"d(sigmoid a)/da = sigmoid(a)*(1 - sigmoid(a))"
    saves_output = True
    source = "{0}.sigmoid()"
    gradients = ("{g} * {out} * (1 - {out})",)
    tangent = "{t0} * {out} * (1 - {out})"

    @staticmethod
    def forward(ctx, a):
        x = unwrap(a)
        # split by sign so that exp never overflows
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return SigmoidBackward.apply(grad, ctx.output)

    @staticmethod
    def jvp(ctx, t):
        return SigmoidBackward.apply(t, ctx.output)


class SigmoidBackward(Function, numpy_forward=True):
    """grad * y * (1 - y) as one op, where y = sigmoid(a) (PyTorch's sigmoid_backward)"""

    node_name = "SigmoidBackwardBackward0"
    formula = r"d(g*y*(1-y))/dg = y*(1-y) ;  d(g*y*(1-y))/dy = g*(1-2y)"
    source = None  # (read as SigmoidBackwardBackward0(g, y))
    gradients = ()
    tangent = "{t0} * {1} * (1 - {1}) + {t1} * {0} * (1 - 2 * {1})"

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        return grad.array * y.array * (1 - y.array)

    @staticmethod
    def backward(ctx, gg):
        grad, y = ctx.unpack_saved()
        need_grad, need_y = ctx.needs_input_grad
        return (gg * y * (1 - y) if need_grad else None,
                gg * grad * (1 - 2 * y) if need_y else None)

    @staticmethod
    def jvp(ctx, tg, ty):
        grad, y = ctx.inputs
        return SigmoidBackward.apply(tg, y) + ty * grad * (1 - 2 * y)


class Relu(Function, numpy_forward=True):
    """max(a, 0)"""

    node_name = "ReluBackward0"
    formula = r"d(relu a)/da = 1 if a > 0 else 0"
    saves_output = True
    source = "{0}.relu()"
    gradients = ("{g} * ({0} > 0)",)
    tangent = "{t0} * ({0} > 0)"

    @staticmethod
    def forward(ctx, a):
        x = unwrap(a)
        return np.maximum(x, x.dtype.type(0))  # (a zero of x's dtype: relu of bools stays bool)

    @staticmethod
    def backward(ctx, grad):
        return choose(ctx.output_data() > 0, grad, 0.0)  # where, not *: no -0. where a < 0

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradient as `backward`, in numpy alone (used when nothing is recorded)."""
        return _keep_or_zero(grad, ctx.output_data() > 0)

    @staticmethod
    def jvp(ctx, t):
        return choose(ctx.output.array > 0, t, 0.0)


class Sin(Function, numpy_forward=True):
    """sine"""

    node_name = "SinBackward0"
    formula = r"d(sin a)/da = cos a"
    source = "{0}.sin()"
    gradients = ("{g} * cos({0})",)
    tangent = "{t0} * cos({0})"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sin(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return grad * a.cos()

    @staticmethod
    def jvp(ctx, t):
        return t * ctx.inputs[0].cos()


class Cos(Function, numpy_forward=True):
    """cosine"""

    node_name = "CosBackward0"
    formula = r"d(cos a)/da = -sin a"
    source = "{0}.cos()"
    gradients = ("-{g} * sin({0})",)
    tangent = "-{t0} * sin({0})"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cos(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return -grad * a.sin()

    @staticmethod
    def jvp(ctx, t):
        return -t * ctx.inputs[0].sin()


class Tan(Function, numpy_forward=True):
    """tangent"""

    node_name = "TanBackward0"
    formula = r"d(tan a)/da = 1 + tan(a)^2"
    saves_output = True  # as PyTorch's TanBackward0 (`_saved_result`)
    source = "{0}.tan()"
    gradients = ("{g} * (1 + {out}**2)",)
    tangent = "{t0} * (1 + {out}**2)"

    @staticmethod
    def forward(ctx, a):
        return np.tan(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        y = ctx.output
        return grad * (y * y + 1)

    @staticmethod
    def jvp(ctx, t):
        y = ctx.output
        return t * (y * y + 1)


def in_float(op: type, name: str) -> Any:
    """The function of a one-input op that computes in float, as PyTorch's exp, tanh, ...:
    an int or bool tensor is computed in float32 (numpy would give float64, or float16)."""

    def function(input: Any) -> Any:
        tensor_input(name, input)
        if input.array.dtype.kind != "f":
            input = cast(input, np.float32)
        return op.apply(input)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = op.__doc__
    return function


reciprocal = in_float(Reciprocal, "reciprocal")
exp = in_float(Exp, "exp")
log = in_float(Log, "log")
sqrt = in_float(Sqrt, "sqrt")
tanh = in_float(Tanh, "tanh")
sigmoid = in_float(Sigmoid, "sigmoid")
sin = in_float(Sin, "sin")
cos = in_float(Cos, "cos")
tan = in_float(Tan, "tan")


def abs(input: Any) -> Any:
    tensor_input("abs", input)
    if input.array.dtype.kind == "b":
        raise kernel_error("abs_cpu", input.array.dtype)
    return Abs.apply(input)


def relu(input: Any) -> Any:
    tensor_input("relu", input)
    if input.array.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return Relu.apply(input)
