"""The matrix exponential, `matrix_exp(A) = I + A + A^2/2! + ...` (batched over leading dims).

Forward: scaling and squaring (exp(A) = exp(A / 2^s)^(2^s)) around a Taylor series, in numpy.
Backward, as PyTorch computes it: for E = exp(A), dL/dA is the top-right block of
exp([[A^T, G], [0, A^T]]) (G the incoming gradient), the block-triangle identity of
Fréchet derivatives; it is written with Tensor ops (cat, matrix_exp, slicing), so
`create_graph=True` differentiates it again.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.index import cat, getitem
from minigrad.ops.views import transpose
from minigrad.surface.dtypes import TORCH_NAMES

# the public functions: minigrad.matrix_exp (re-exported by ops/ and minigrad/)
__all__ = ["matrix_exp"]

TAYLOR_TERMS = 18  # after scaling to norm <= 1/2, the 18th term is below 1e-21


def expm_array(a: np.ndarray) -> np.ndarray:
    """exp of each square matrix in `a` (..., n, n), by scaling and squaring."""
    norm = float(np.abs(a).sum(axis=-2).max()) if a.size else 0.0  # (the largest 1-norm)
    s = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    x = a / 2.0 ** s
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    total, term = eye.copy(), eye.copy()
    for k in range(1, TAYLOR_TERMS + 1):
        term = term @ x / k
        total = total + term
    for _ in range(s):
        total = total @ total
    return total.astype(a.dtype, copy=False)


class MatrixExp(Function, numpy_forward=True):
    """the matrix exponential exp(A)"""

    node_name = "LinalgMatrixExpBackward0"
    formula = r"d(exp A) = top-right block of exp([[A^T, grad], [0, A^T]])"
    source = "{0}.matrix_exp()"
    gradients = ("exp([[{0}.mT, {g}], [0, {0}.mT]])[..., :n, n:]",)
    tangent = "exp([[{0}, {t0}], [0, {0}]])[..., :n, n:]"

    @staticmethod
    def jvp(ctx, t):
        """The top-right block of exp of the block matrix [[A, V], [0, A]] (V the tangent)."""
        a = ctx.inputs[0]
        n = a.shape[-1]
        block = cat([cat([a, t], dim=-1), cat([t * 0, a], dim=-1)], dim=-2)
        return getitem(MatrixExp.apply(block), (Ellipsis, slice(None, n), slice(n, None)))

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return expm_array(a.array)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        n = a.array.shape[-1]
        a_t = transpose(a, -2, -1)
        zeros = constant(np.zeros(a_t.array.shape, dtype=grad.array.dtype))
        block = cat([cat([a_t, grad], -1), cat([zeros, a_t], -1)], -2)
        return getitem(matrix_exp(block), (Ellipsis, slice(0, n), slice(n, 2 * n)))


def matrix_exp(input: Any) -> Any:
    """exp of a square matrix, or of each in a batch (..., n, n); float dtypes only."""
    shape = input.array.shape
    if len(shape) < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {shape[-2]} by {shape[-1]} matrices")
    if input.array.dtype.kind != "f":
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {TORCH_NAMES[input.array.dtype]}")
    return MatrixExp.apply(input)
