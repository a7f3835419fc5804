"""The affine map of `nn.Linear`: `y = x @ W^T + b`, recorded with PyTorch's graph.

PyTorch records a 2-D `F.linear(x, W, b)` as one `addmm(b, x, W.t())`: the node
`AddmmBackward0` with edges `(bias, input, TBackward0 -> weight)`. Other input ranks are
folded into rows first (`view -> addmm -> view`); without a bias it is `x @ W.t()`.
`linear` below builds exactly those graphs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad import ops
from minigrad import tensor as _tensor  # resolved at call time (tensor.py imports the ops)
from minigrad.function import Function
from minigrad.grad_mode import state
from minigrad.ops.base import as_operand, is_tensor, plain, unwrap
from minigrad.ops.linalg import mat2_grad, mm_grads
from minigrad.ops.shape import T


class Addmm(Function):
    """b + A @ B (a bias row added to a matrix product)"""

    node_name = "AddmmBackward0"
    formula = r"addmm(b, A, B) = b + A@B:  d/db = grad summed over rows ;  d/dA = grad @ B^T ;  " \
        r"d/dB = A^T @ grad"

    @staticmethod
    def forward(ctx, bias, mat1, mat2):
        ctx.save_for_backward(mat1, mat2)
        return addmm_array(unwrap(bias), mat1.data, mat2.data)

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        need_bias, need_1, need_2 = ctx.needs_input_grad
        # the bias gradient is `grad` itself: the engine sums it over the rows (sum_to)
        if not state.grad_enabled:  # nothing to record (no create_graph): see mm_grads
            return (grad if need_bias else None,
                    *mm_grads(grad.data, mat1.data, mat2.data, need_1, need_2))
        return (grad if need_bias else None,
                grad.mm(mat2.t()) if need_1 else None,
                mat2_grad(grad, mat1, mat2) if need_2 else None)


def addmm_array(b: Any, m1: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """`b + m1 @ m2` in numpy."""
    out = m1 @ m2
    if type(b) is np.ndarray and b.dtype == out.dtype and b.shape == out.shape[1:]:
        # a Linear's bias row: added into the product, as PyTorch's addmm writes one
        # output (one array and one pass over it less than `b + out`; the same bits)
        return np.add(b, out, out=out)
    return b + out


def _dtype_name(dtype: np.dtype) -> str:
    names = {"float64": "Double", "float32": "Float", "float16": "Half", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    return names.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _check(x: Any, weight: Any) -> None:
    """PyTorch's errors for the two classic mistakes: wrong in_features, wrong dtype."""
    xs, ws = x.data.shape, weight.data.shape
    if len(ws) != 2 or not xs or xs[-1] != ws[1]:
        rows, cols = math.prod(xs[:-1]), xs[-1] if xs else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and "
            f"{ws[-1] if ws else 1}x{ws[0] if ws else 1}) (linear: input of shape {tuple(xs)}, "
            f"weight of shape {tuple(ws)}; the input's last dim must be in_features="
            f"{ws[1] if len(ws) == 2 else '?'})")
    if x.data.dtype != weight.data.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_dtype_name(x.data.dtype)} and "
            f"{_dtype_name(weight.data.dtype)} (convert the input with .float() or the model "
            "with .double())")


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    """`input @ weight.T + bias`, with the graph PyTorch records for `F.linear`."""
    Tensor = _tensor.Tensor
    if not isinstance(input, Tensor):
        input = as_operand(input)
        if not is_tensor(input):
            raise TypeError(f"linear(): argument 'input' must be Tensor, not "
                            f"{type(input).__name__}")
    x, w = input.data, weight.data
    xs, ws = x.shape, w.shape
    if len(ws) != 2 or not xs or xs[-1] != ws[1] or x.dtype != w.dtype:
        _check(input, weight)  # raises PyTorch's error
    if bias is not None and len(xs) == 2:
        if not state.grad_enabled:
            # under no_grad (evaluation) there is no graph to build: numpy alone
            return plain(addmm_array(unwrap(bias), x, w.T))
        if weight._requires_grad:  # (the training step: ops.t's checks are done above)
            return Addmm.apply(bias, input, T.apply(weight))
        return Addmm.apply(bias, input, ops.t(weight))
    if bias is not None:  # PyTorch views the input before weight.t()
        rows = ops.view(input, (-1, xs[-1]))
        return ops.view(Addmm.apply(bias, rows, ops.t(weight)), xs[:-1] + (ws[0],))
    w_t = ops.t(weight)
    if len(xs) == 2:
        return ops.mm(input, w_t)
    return ops.matmul(input, w_t)
