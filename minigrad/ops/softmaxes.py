"""softmax and log_softmax along a dim, with their functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import normalize_dims, tensor_input
from minigrad.ops.reduce import sum_array
from minigrad.surface.dtypes import kernel_error
from minigrad.surface.summation import add_reduce

# the public functions: minigrad.log_softmax, ... (re-exported by ops/ and minigrad/)
__all__ = ["log_softmax", "softmax"]


class Softmax(Function, numpy_forward=True):
    """exp(a) / sum(exp(a)) along `dim`"""

    node_name = "SoftmaxBackward0"
    formula = r"d softmax/da: y * (grad - sum(grad * y))  (y = softmax(a))"
    saves_output = True
    source = "{0}.softmax(dim={dim})"
    gradients = ()
    tangent = "{out} * ({t0} - sum({t0} * {out}))"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return softmax_array(a.array, dim)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.output
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True))

    @staticmethod
    def jvp(ctx, t):
        y = ctx.output
        return y * (t - (t * y).sum(ctx.dim, keepdim=True))


class LogSoftmax(Function, numpy_forward=True):
    """a - log(sum(exp(a))) along `dim`"""

    node_name = "LogSoftmaxBackward0"
    formula = r"d log_softmax/da: grad - softmax(a) * sum(grad)"
    saves_output = True
    source = "{0}.log_softmax(dim={dim})"
    gradients = ()
    tangent = "{t0} - sum({t0} * softmax({0}))"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return log_softmax_array(a.array, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad - ctx.output.exp() * grad.sum(ctx.dim, keepdim=True)

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradient as `backward`, in numpy alone (used when nothing is recorded)."""
        return grad - np.exp(ctx.output_data()) * sum_array(grad, (ctx.dim,), True)

    @staticmethod
    def jvp(ctx, t):
        return t - (t * ctx.output.exp()).sum(ctx.dim, keepdim=True)


# The largest value is subtracted first, so that exp cannot overflow. (The ufuncs' reduce:
# x.max / x.sum call it through a Python function, np.max / np.sum through several.)
def softmax_array(x: np.ndarray, dim: int) -> np.ndarray:
    if not x.size:  # (nothing to normalise: an empty result, as PyTorch)
        return x.copy()
    e = np.exp(x - np.maximum.reduce(x, dim, keepdims=True))
    return e / add_reduce(e, dim, True)


def log_softmax_array(x: np.ndarray, dim: int) -> np.ndarray:
    if not x.size:
        return x.copy()
    shifted = x - np.maximum.reduce(x, dim, keepdims=True)
    return shifted - np.log(add_reduce(np.exp(shifted), dim, True))


def _float_dim(input: Any, dim: int, kernel: str) -> int:
    """`dim` as an axis; PyTorch's error for an integer or bool input (its kernel's name says
    whether dim is the last one)."""
    axis = normalize_dims(dim, input.array.ndim)[0]
    if input.array.dtype.kind != "f" and input.array.size:  # (an empty one runs no kernel)
        last = axis == input.array.ndim - 1 or input.array.ndim == 0
        raise kernel_error(f"{kernel}{'_lastdim' if last else ''}_kernel_impl",
                           input.array.dtype)
    return axis


def softmax(input: Any, dim: int, dtype: Any = None) -> Any:
    """`dtype=`: the input cast to it first (ToCopyBackward0), as PyTorch does"""
    tensor_input("softmax", input)
    input = input if dtype is None else input.to(dtype)
    return Softmax.apply(input, dim=_float_dim(input, dim, "softmax"))


def log_softmax(input: Any, dim: int, dtype: Any = None) -> Any:
    tensor_input("log_softmax", input)
    input = input if dtype is None else input.to(dtype)
    return LogSoftmax.apply(input, dim=_float_dim(input, dim, "log_softmax"))
