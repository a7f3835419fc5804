"""Elementwise ops: arithmetic and the usual functions (selection ops are in `selection.py`).

Each backward returns the gradient in the *broadcast* shape; the engine sums it back to each
input's shape (`engine.sum_to`), so no op here deals with broadcasting.
"""

from __future__ import annotations

import numpy as np

from minigrad.function import Function
from minigrad.grad_mode import state
from minigrad.ops.base import NEG_BOOL, constant, float_array, operands, plain, unwrap
from minigrad.ops.selection import _keep_or_zero, where


class Add(Function):
    """a + b"""

    node_name = "AddBackward0"
    formula = r"d(a+b)/da = 1 ;  d(a+b)/db = 1"
    ufunc = np.add

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
    ufunc = np.subtract

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

    @staticmethod
    def forward(ctx, a, c):
        ctx.c = c  # kept for explanations (`t2 = 1 - x`)
        return c - unwrap(a)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Mul(Function):
    """a * b"""

    node_name = "MulBackward0"
    formula = r"d(a*b)/da = b ;  d(a*b)/db = a"
    ufunc = np.multiply

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
    ufunc = np.true_divide

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

    @staticmethod
    def forward(ctx, a):
        try:
            return -unwrap(a)
        except TypeError:  # numpy refuses a bool array too, in its own words
            raise RuntimeError(NEG_BOOL) from None

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Reciprocal(Function):
    """1 / a"""

    node_name = "ReciprocalBackward0"
    formula = r"d(1/a)/da = -1/a^2"
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return 1.0 / unwrap(a)

    @staticmethod
    def backward(ctx, grad):
        out = ctx.output
        return -grad * out * out


class Pow(Function):
    """a ** p, for a number p"""

    node_name = "PowBackward0"
    formula = r"d(a^p)/da = p*a^(p-1)"

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

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return unwrap(a) ** unwrap(b)

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
                gb = where(at_zero, 0.0, gb)
        return ga, gb


class RPow(Function):
    """c ** a, for a number c"""

    node_name = "PowBackward2"
    formula = r"d(c^a)/da = c^a*ln(c)"
    saves_output = True

    @staticmethod
    def forward(ctx, a, base):
        ctx.base = base
        return np.asarray(base, dtype=unwrap(a).dtype) ** unwrap(a)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.output * float(np.log(ctx.base))


class Remainder(Function):
    """a mod b, with the sign of b (Python's %); b a tensor or a number"""

    node_name = "RemainderBackward1"
    formula = r"d(a mod b)/da = 1 ;  d(a mod b)/db = -floor(a/b)"

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad:
            ctx.save_for_backward(a, b)
        return integer_division(np.remainder, "remainder", unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # floor(a/b) is a step: its own derivative is 0 wherever it is defined
        floor = constant(np.floor(a.data / b.data)) if need_b else None
        return grad if need_a else None, -grad * floor if need_b else None


class RemainderScalar(Remainder):
    """a mod c, for a number c"""

    node_name = "RemainderBackward0"
    formula = r"d(a mod c)/da = 1"

    @staticmethod
    def forward(ctx, a, c):
        ctx.c = c  # kept for explanations (`t2 = x % 1.5`)
        return integer_division(np.remainder, "remainder", unwrap(a), c)

    @staticmethod
    def backward(ctx, grad):
        return grad


class FloorDivide(Function):
    """floor(a / b): a step function, whose derivative PyTorch does not define either"""

    node_name = "NotImplemented"
    formula = r"d floor(a/b)/da: not implemented (0 almost everywhere, as in PyTorch)"

    @staticmethod
    def forward(ctx, a, b):
        ctx.op = "//"  # (explanations: the node's name does not say which op it was)
        return integer_division(np.floor_divide, "div_floor", unwrap(a), unwrap(b))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class FloorDivideScalar(FloorDivide):
    """floor(a / c) for a number c: one edge, to a"""

    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, a, c):
        ctx.op, ctx.c = "//", c  # (for explanations)
        return integer_division(np.floor_divide, "div_floor", unwrap(a), c)


class NumberFloorDivide(FloorDivide):
    """floor(c / a) for a number c: one edge, to a"""

    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, a, c):
        ctx.op, ctx.c, ctx.reverse = "//", c, True  # (for explanations: `7 // x`)
        return integer_division(np.floor_divide, "div_floor", c, unwrap(a))


class NumberRemainder(Function):
    """c mod a for a number c: PyTorch defines no derivative for it"""

    node_name = "NotImplemented"
    formula = r"d(c mod a)/da: not implemented (as in PyTorch)"

    @staticmethod
    def forward(ctx, a, c):
        ctx.op, ctx.c, ctx.reverse = "%", c, True  # (for explanations: `7.5 % x`)
        return integer_division(np.remainder, "remainder", c, unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")


def integer_division(ufunc: np.ufunc, name: str, x, y):
    """`ufunc(x, y)` (operands of one dtype, see `promote`) with PyTorch's errors: none for
    bools, and integer division by zero raises (numpy would give 0 and warn)."""
    dtype = x.dtype if isinstance(x, np.ndarray) else np.result_type(y)
    if dtype.kind == "b":
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    if dtype.kind in "iu" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    return ufunc(x, y)


class Exp(Function):
    """e ** a"""

    node_name = "ExpBackward0"
    formula = r"d(exp a)/da = exp a"
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return np.exp(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.output


class Log(Function):
    """natural logarithm"""

    node_name = "LogBackward0"
    formula = r"d(ln a)/da = 1/a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a


class Sqrt(Function):
    """square root"""

    node_name = "SqrtBackward0"
    formula = r"d(sqrt a)/da = 1/(2*sqrt a)"
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return np.sqrt(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        return grad / (2 * ctx.output)


class Abs(Function):
    """|a|"""

    node_name = "AbsBackward0"
    formula = r"d|a|/da = sign(a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * constant(np.sign(a.data))


class Tanh(Function):
    """hyperbolic tangent"""

    node_name = "TanhBackward0"
    formula = r"d(tanh a)/da = 1 - tanh(a)^2"
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return np.tanh(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        if not state.grad_enabled:  # nothing to record (no create_graph): numpy alone
            return plain(tanh_backward_array(grad.data, ctx.output_data()))
        return TanhBackward.apply(grad, ctx.output)


def tanh_backward_array(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    """grad * (1 - y^2) in numpy (the 1 as a 0-d array: see ops.base.operands)."""
    return grad * (float_array(1.0, y.dtype) - y * y)


class TanhBackward(Function):
    """grad * (1 - y^2) as one op, where y = tanh(a) (PyTorch's tanh_backward)"""

    node_name = "TanhBackwardBackward0"
    formula = r"d(g*(1-y^2))/dg = 1 - y^2 ;  d(g*(1-y^2))/dy = -2*g*y"

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        return tanh_backward_array(grad.data, y.data)

    @staticmethod
    def backward(ctx, gg):
        grad, y = ctx.saved_tensors
        need_grad, need_y = ctx.needs_input_grad
        return (gg * (1 - y * y) if need_grad else None,
                gg * grad * y * -2 if need_y else None)


class Sigmoid(Function):
    """logistic function 1 / (1 + e^-a)"""

    node_name = "SigmoidBackward0"
    formula = r"d(sigmoid a)/da = sigmoid(a)*(1 - sigmoid(a))"
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        x = unwrap(a)
        # split by sign so that exp never overflows
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return SigmoidBackward.apply(grad, ctx.output)


class SigmoidBackward(Function):
    """grad * y * (1 - y) as one op, where y = sigmoid(a) (PyTorch's sigmoid_backward)"""

    node_name = "SigmoidBackwardBackward0"
    formula = r"d(g*y*(1-y))/dg = y*(1-y) ;  d(g*y*(1-y))/dy = g*(1-2y)"

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        return grad.data * y.data * (1 - y.data)

    @staticmethod
    def backward(ctx, gg):
        grad, y = ctx.saved_tensors
        need_grad, need_y = ctx.needs_input_grad
        return (gg * y * (1 - y) if need_grad else None,
                gg * grad * (1 - 2 * y) if need_y else None)


class Relu(Function):
    """max(a, 0)"""

    node_name = "ReluBackward0"
    formula = r"d(relu a)/da = 1 if a > 0 else 0"
    saves_output = True
    # a 0-d zero per dtype: numpy takes it ~1 us (small) to ~4 us (128x256) faster than the
    # number 0, which it must first convert (the same value, so the same bits)
    _zeros: dict = {}

    @staticmethod
    def forward(ctx, a):
        x = unwrap(a)
        zero = Relu._zeros.get(x.dtype)
        if zero is None:
            zero = Relu._zeros[x.dtype] = np.zeros((), x.dtype)
            zero.flags.writeable = False
        return np.maximum(x, zero)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.output_data()
        keep = y > Relu._zeros.get(y.dtype, 0)  # where, not *: no -0. where a < 0
        if not state.grad_enabled:  # nothing to record: where()'s numpy, without its checks
            return plain(_keep_or_zero(grad.data, keep))
        return where(keep, grad, 0.0)


class Sin(Function):
    """sine"""

    node_name = "SinBackward0"
    formula = r"d(sin a)/da = cos a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sin(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.cos()


class Cos(Function):
    """cosine"""

    node_name = "CosBackward0"
    formula = r"d(cos a)/da = -sin a"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cos(unwrap(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * a.sin()
