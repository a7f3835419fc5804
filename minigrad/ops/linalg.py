"""Matrix products: dot, mv, mm, bmm, and `matmul`, which picks one the way PyTorch does."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import tensor as _tensor  # resolved at call time (tensor.py imports the ops)
from minigrad.function import Function
from minigrad.grad_mode import state
from minigrad.ops.base import shape_of, unwrap


def _check(op: str, a: Any, b: Any, ok: bool) -> None:
    if not ok:
        raise RuntimeError(f"{op}: shapes {shape_of(a)} and {shape_of(b)} cannot be multiplied")


class Dot(Function):
    """inner product of two vectors"""

    node_name = "DotBackward0"
    formula = r"d(a.b)/da = b ;  d(a.b)/db = a"

    @staticmethod
    def forward(ctx, a, b):
        _check("dot", a, b, a.data.ndim == b.data.ndim == 1 and a.data.shape == b.data.shape)
        ctx.save_for_backward(a, b)
        return np.dot(a.data, b.data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None


class Mm(Function):
    """matrix times matrix"""

    node_name = "MmBackward0"
    formula = r"d(A@B)/dA = grad @ B^T ;  d(A@B)/dB = A^T @ grad"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return mm_array(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        if not state.grad_enabled:  # nothing to record (no create_graph): see mm_grads
            return mm_grads(grad.data, a.data, b.data, need_a, need_b)
        return grad.mm(b.t()) if need_a else None, mat2_grad(grad, a, b) if need_b else None


def mm_array(a: Any, b: Any) -> np.ndarray:
    """The product of two matrices (tensors); PyTorch's error for other shapes."""
    x, y = a.data, b.data
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        _check("mm", a, b, False)
    return x @ y


def mat2_grad(grad: Any, a: Any, b: Any) -> Any:
    """`A^T @ grad`, laid out like `b` (as PyTorch's mm_mat2_backward).

    When `b` is a transposed view (a Linear's `weight.t()`), computing `(grad^T @ A)^T`
    gives a gradient whose transpose back to the weight is contiguous, so it can become
    `.grad` without a copy.
    """
    if _transposed(b.data):
        return grad.t().mm(a).t()
    return a.t().mm(grad)


def _transposed(b: np.ndarray) -> bool:
    """Is `b` laid out as the transpose of a C-contiguous matrix (a Linear's `weight.t()`)?"""
    flags = b.flags  # (each `.flags` makes a new object: read it once)
    return b.ndim == 2 and flags.f_contiguous and not flags.c_contiguous


def mm_grads(g: np.ndarray, a: np.ndarray, b: np.ndarray, need_a: bool, need_b: bool
             ) -> tuple:
    """The gradients of `a @ b` for an incoming `g`, as plain tensors, computed on the arrays:
    `g @ b^T` and `mat2_grad`'s product, the very numpy calls the Tensor formulas make.

    For a backward that records nothing, where the Tensor formulas would cost a chain of
    calls and temporary Tensors per product (~6 per Linear layer).
    """
    make = _tensor.make  # (a product of matrices is always an array: no check needed)
    grad_a = make(g @ b.T, None, 0) if need_a else None
    if not need_b:
        return grad_a, None
    return grad_a, make((g.T @ a).T if _transposed(b) else a.T @ g, None, 0)


class Mv(Function):
    """matrix times vector"""

    node_name = "MvBackward0"
    formula = r"d(A@v)/dA = outer(grad, v) ;  d(A@v)/dv = A^T @ grad"

    @staticmethod
    def forward(ctx, a, v):
        _check("mv", a, v, a.data.ndim == 2 and v.data.ndim == 1
               and a.data.shape[1] == v.data.shape[0])
        ctx.save_for_backward(a, v)
        return a.data @ v.data

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        need_a, need_v = ctx.needs_input_grad
        return (grad.unsqueeze(1).mm(v.unsqueeze(0)) if need_a else None,
                a.t().mv(grad) if need_v else None)


class Bmm(Function):
    """batch of matrix products"""

    node_name = "BmmBackward0"
    formula = r"d(A@B)/dA = grad @ B^T ;  d(A@B)/dB = A^T @ grad  (per batch)"

    @staticmethod
    def forward(ctx, a, b):
        _check("bmm", a, b, a.data.ndim == b.data.ndim == 3 and a.data.shape[0] == b.data.shape[0]
               and a.data.shape[2] == b.data.shape[1])
        ctx.save_for_backward(a, b)
        return a.data @ b.data

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad.bmm(b.transpose(1, 2)) if need_a else None,
                a.transpose(1, 2).bmm(grad) if need_b else None)


def matmul(a: Any, b: Any) -> Any:
    """`a @ b`, built from the same pieces PyTorch 2.13 uses, so the graph has its shape.

    1-D·1-D is `dot`, 2-D·2-D `mm`, 2-D·1-D `mv`; 1-D·2-D is `unsqueeze → mm → squeeze`;
    N-D·2-D folds the batch into rows (`view → mm → _unsafe_view`, `mv` for N-D·1-D); batched
    products expand both sides to the broadcast batch, fold it (`expand → view → bmm →
    _unsafe_view`). By design, 1-D/2-D·N-D and batches of size 1 also take that batched path,
    where PyTorch folds them into one mm/mv with transposes or squeezes chosen by strides and
    requires_grad: same gradients, different shape nodes (compare/graph.py KNOWN_DIFFERENCES).
    """
    from minigrad import ops

    a, b = ops.as_operand(a), ops.as_operand(b)
    da, db = unwrap(a).ndim, unwrap(b).ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return Dot.apply(a, b)
    if da == 2 and db == 1:
        return Mv.apply(a, b)
    if da == 2 and db == 2:
        return Mm.apply(a, b)
    if da == 1 and db == 2:
        return ops.squeeze_dims(Mm.apply(ops.unsqueeze(a, 0), b), (0,))
    if db <= 2:
        # fold a's batch dims into rows: (..., n, k) -> (rows, k) @ b, mv for a vector b
        lead = unwrap(a).shape[:-1]
        _check("matmul", a, b, unwrap(a).shape[-1] == unwrap(b).shape[0])
        rows = ops.reshape(a, (-1, unwrap(a).shape[-1]))
        out = Mv.apply(rows, b) if db == 1 else Mm.apply(rows, b)
        return ops.unsafe_view(out, lead + unwrap(b).shape[1:])
    return _batched(a, b)


def _batched(a: Any, b: Any) -> Any:
    from minigrad import ops

    a2 = ops.unsqueeze(a, 0) if unwrap(a).ndim == 1 else a
    b2 = ops.unsqueeze(b, -1) if unwrap(b).ndim == 1 else b
    sa, sb = unwrap(a2).shape, unwrap(b2).shape
    _check("matmul", a, b, sa[-1] == sb[-2])
    try:
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise RuntimeError(f"matmul: batch dims of {shape_of(a)} and {shape_of(b)} do not "
                           "broadcast") from None
    n_batch = int(np.prod(batch))
    a3 = ops.reshape(ops.expand(a2, batch + sa[-2:]), (n_batch,) + sa[-2:])
    b3 = ops.reshape(ops.expand(b2, batch + sb[-2:]), (n_batch,) + sb[-2:])
    out = ops.unsafe_view(Bmm.apply(a3, b3), batch + (sa[-2], sb[-1]))
    if unwrap(a).ndim == 1:
        out = ops.squeeze_dims(out, (-2,))
    if unwrap(b).ndim == 1:
        out = ops.squeeze_dims(out, (-1,))
    return out
