"""The activations of `torch.nn.functional` beyond relu/tanh/sigmoid/softmax, with PyTorch's
arguments, defaults and errors (re-exported by `minigrad.nn.functional`).

`inplace=True` writes the result into the input, as PyTorch does: the input takes over the new
node as its grad_fn (`leaky_relu_` and `elu_` record PyTorch's LeakyReluBackward1 and
EluBackward1), and a leaf that requires grad refuses, in PyTorch's words.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.ops import activations as A
from minigrad.ops.out import takes_out
from minigrad.surface import dtypes

__all__ = ["gelu", "leaky_relu", "elu", "selu", "silu", "softplus", "hardtanh", "relu6", "mish",
           "softmin"]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _float_only(input: Tensor, kernel: str) -> None:
    """PyTorch's refusal of an integer or bool input (these ops have float kernels only)."""
    if input.array.dtype.kind != "f":
        raise dtypes.kernel_error(kernel, input.array.dtype)


def _run(input: Tensor, inplace: bool, op: Callable[[Tensor], Tensor]) -> Tensor:
    """`op(input)`, or the same written into input when `inplace`."""
    if inplace:
        return ops.inplace(input, lambda target, _: op(target), None)
    return op(input)


@takes_out  # (PyTorch's binding takes out=)
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x), Phi the normal CDF; approximate='tanh' uses PyTorch's tanh formula
    (GeluBackward0)"""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _float_only(input, "GeluKernelImpl")
    return A.Gelu.apply(input, approximate=approximate)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x (LeakyReluBackward0; in place LeakyReluBackward1)"""
    _float_only(input, "leaky_relu_cpu")
    op = A.LeakyReluInplace if inplace else A.LeakyRelu
    return _run(input, inplace, lambda x: op.apply(x, negative_slope=negative_slope))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else alpha * (exp(x) - 1) (EluBackward0; in place EluBackward1)"""
    _float_only(input, "elu_cpu")
    op = A.EluInplace if inplace else A.Elu
    return _run(input, inplace, lambda x: op.apply(x, alpha=alpha))


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with PyTorch's fixed alpha and scale (EluBackward0)"""
    _float_only(input, "elu_cpu")
    op = A.EluInplace if inplace else A.Elu
    return _run(input, inplace, lambda x: op.apply(x, alpha=SELU_ALPHA, scale=SELU_SCALE))


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (SiluBackward0)"""
    _float_only(input, "silu_cpu")
    return _run(input, inplace, A.Silu.apply)


@takes_out  # (PyTorch's binding takes out=)
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold
    (SoftplusBackward0)"""
    _float_only(input, "softplus_cpu")
    return A.Softplus.apply(input, beta=beta, threshold=threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """x clamped into [min_val, max_val] (HardtanhBackward0)"""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _run(input, inplace,
                lambda x: A.Hardtanh.apply(x, min_val=min_val, max_val=max_val))


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6): hardtanh(x, 0, 6), as PyTorch records it (HardtanhBackward0)"""
    return hardtanh(input, 0, 6, inplace)  # (ints, as PyTorch's relu6 gives them)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x)) (MishBackward0)"""
    _float_only(input, "mish_cpu")
    return _run(input, inplace, A.Mish.apply)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """softmax(-x) along `dim` (SoftmaxBackward0 <- NegBackward0, as PyTorch records it)"""
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the "
                      "call to include dim=X as an argument.", UserWarning,
                      stacklevel=_stacklevel - 1)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return ops.softmax(-input, dim)
