"""Weight normalization's op: w = g * v / ||v||, the norm taken over every dim but `dim`
(`norm_except_dim`), as `torch._weight_norm` computes it for nn.utils' weight_norm.

Along the first or last dim PyTorch records it as one node, WeightNormInterfaceBackward0,
whose backward is written out here (and, being Tensor ops, differentiates again); along
another dim it is the plain ops `v * (g / norm_except_dim(v, 2, dim))`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.arithmetic import div, mul
from minigrad.ops.norms import aten_norm, vector_norm_array
from minigrad.ops.reduce import sum as _sum
from minigrad.ops.views import contiguous, transpose, view

# the public functions: minigrad.norm_except_dim (re-exported by ops/ and minigrad/)
__all__ = ["norm_except_dim"]


def norm_except_dim(v: Any, pow: float = 2, dim: int = 0) -> Any:
    """The `pow`-norm of `v` over every dim but `dim`, shaped to broadcast against v (dim -1:
    the norm of all of v)."""
    ndim = v.array.ndim
    if dim == -1:
        return aten_norm(v, pow)
    if dim == 0:
        shape = (v.array.shape[0],) + (1,) * (ndim - 1)
        return view(aten_norm(view(contiguous(v), (v.array.shape[0], -1)), pow, 1), shape)
    if dim == ndim - 1:
        shape = (1,) * (ndim - 1) + (v.array.shape[-1],)
        return view(aten_norm(view(contiguous(v), (-1, v.array.shape[-1])), pow, 0), shape)
    return transpose(norm_except_dim(transpose(v, 0, dim), pow, 0), 0, dim)


def _norms(v: np.ndarray, dim: int) -> np.ndarray:
    axes = tuple(d for d in range(v.ndim) if d != dim)
    return vector_norm_array(v, 2, axes, True)


class WeightNormInterface(Function, numpy_forward=True):
    """weight normalization: g * v / ||v|| (the norm over every dim but one)"""

    node_name = "WeightNormInterfaceBackward0"
    formula = r"w = g v/||v||:  dw/dv = g/||v|| (grad - v (grad.v)/||v||^2) ;  " \
        r"dw/dg = (grad.v)/||v||"
    source = "_weight_norm({0}, {1}, {dim})"
    gradients = ("{1} / ||{0}|| * ({g} - {0} * sum({g} * {0}) / ||{0}||**2)",
                 "sum({g} * {0}) / ||{0}||")
    jvp_refused = ("Trying to use forward AD with _weight_norm_interface that does not support "
                   "it because it has not been implemented yet.")  # (PyTorch's words)

    @staticmethod
    def forward(ctx, v, g, dim):
        ctx.save_for_backward(v, g)
        norms = _norms(v.array, dim)
        ctx.keep_as_pytorch(norms=norms)  # (PyTorch's node shows them: `_saved_result1`)
        return v.array * (g.array / norms)

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.unpack_saved()
        dim = ctx.settings["dim"]
        norms = norm_except_dim(v, 2, dim)  # (recomputed from v: differentiable again)
        sums = _sum(mul(grad, v), [d for d in range(v.array.ndim) if d != dim], True)
        need_v, need_g = ctx.needs_input_grad
        grad_v = mul(div(g, norms), grad - mul(v, div(sums, norms * norms))) if need_v else None
        return grad_v, (div(sums, norms) if need_g else None)


def _weight_norm(v: Any, g: Any, dim: int = 0) -> Any:
    """w = g * v / ||v|| over every dim but `dim` (one node along the first or last dim)."""
    dim = dim + v.array.ndim if dim < -1 else dim
    if dim in (0, v.array.ndim - 1):
        return WeightNormInterface.apply(v, g, dim=dim)
    return mul(v, div(g, norm_except_dim(v, 2, dim)))
