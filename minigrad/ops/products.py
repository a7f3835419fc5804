"""Matrix products, with their functions: dot, mv, mm, bmm, `matmul` (which picks one the way
PyTorch does) and `linear` (nn.Linear's `x @ W^T + b`, one AddmmBackward0 node).

PyTorch records a 2-D `F.linear(x, W, b)` as one `addmm(b, x, W.t())`: the node
`AddmmBackward0` with edges `(bias, input, TBackward0 -> weight)`. Other input ranks are
folded into rows first (`view -> addmm -> view`); without a bias it is `x @ W.t()`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd import tensor as _tensor  # resolved at call time (tensor.py imports the ops)
from minigrad.autograd.function import Function
from minigrad.ops.base import as_operand, is_tensor, shape_of, tensor_input, unwrap
from minigrad.ops.product_checks import check_linear, check_product, same_dtype
from minigrad.ops.tangent_rules import bilinear, is_zero, plus
from minigrad.ops.views import expand, reshape, squeeze_fresh, t, unsafe_view, unsqueeze, view

# the public functions: minigrad.bmm, ... (re-exported by ops/ and minigrad/)
__all__ = ["bmm", "dot", "matmul", "mm", "mv", "vdot"]


class Dot(Function, numpy_forward=True):
    """inner product of two vectors"""

    node_name = "DotBackward0"
    formula = r"d(a.b)/da = b ;  d(a.b)/db = a"
    source = "{0} @ {1}"
    gradients = ("{g} * {1}", "{g} * {0}")
    tangent = "{t0} @ {1} + {0} @ {t1}"

    @staticmethod
    def forward(ctx, a, b):
        check_product("dot", a, b,
                      a.array.ndim == b.array.ndim == 1 and a.array.shape == b.array.shape)
        ctx.save_for_backward(a, b)
        return np.dot(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None

    @staticmethod
    def jvp(ctx, ta, tb):
        return bilinear(ctx, ta, tb)

class Vdot(Function, numpy_forward=True):
    """inner product of two vectors, the first conjugated (for real ones: dot)"""

    node_name = "VdotBackward0"
    formula = r"d(conj(a).b)/da = b ;  d(conj(a).b)/db = a"
    source = "{0}.vdot({1})"
    gradients = ("{g} * {1}", "{g} * {0}")

    forward = Dot.forward
    backward = Dot.backward
    jvp, tangent = Dot.jvp, Dot.tangent


class Mm(Function, numpy_forward=True):
    """matrix times matrix"""

    node_name = "MmBackward0"
    formula = r"d(A@B)/dA = grad @ B^T ;  d(A@B)/dB = A^T @ grad"
    source = "{0} @ {1}"
    gradients = ("{g} @ {1}.T", "{0}.T @ {g}")
    tangent = "{t0} @ {1} + {0} @ {t1}"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return mm_array(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        return grad.mm(b.t()) if need_a else None, mat2_grad(grad, a, b) if need_b else None

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradients as `backward`, in numpy alone (used when nothing is recorded)."""
        a, b = ctx.unpack_saved()
        return mm_grads(grad, a.array, b.array, *ctx.needs_input_grad)

    @staticmethod
    def jvp(ctx, ta, tb):
        return bilinear(ctx, ta, tb)


def mm_array(a: Any, b: Any) -> np.ndarray:
    """The product of two matrices (tensors); PyTorch's error for other shapes."""
    x, y = a.array, b.array
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        check_product("mm", a, b, False)
    return x @ y


def mat2_grad(grad: Any, a: Any, b: Any) -> Any:
    """`A^T @ grad`, laid out like `b` (as PyTorch's mm_mat2_backward).

    When `b` is a transposed view (a Linear's `weight.t()`), computing `(grad^T @ A)^T`
    gives a gradient whose transpose back to the weight is contiguous, so it can become
    `.grad` without a copy.
    """
    if _transposed(b.array):
        return grad.t().mm(a).t()
    return a.t().mm(grad)


def _transposed(b: np.ndarray) -> bool:
    """Is `b` laid out as the transpose of a C-contiguous matrix (a Linear's `weight.t()`)?"""
    flags = b.flags  # (each `.flags` makes a new object: read it once)
    return b.ndim == 2 and flags.f_contiguous and not flags.c_contiguous


def mm_grads(g: np.ndarray, a: np.ndarray, b: np.ndarray, need_a: bool, need_b: bool
             ) -> tuple:
    """The gradients of `a @ b` for an incoming `g`, as arrays (None where not needed): the
    very numpy products `backward`'s Tensor formulas make, `g @ b^T` and `mat2_grad`'s."""
    grad_a = g @ b.T if need_a else None
    if not need_b:
        return grad_a, None
    return grad_a, (g.T @ a).T if _transposed(b) else a.T @ g


class Mv(Function, numpy_forward=True):
    """matrix times vector"""

    node_name = "MvBackward0"
    formula = r"d(A@v)/dA = outer(grad, v) ;  d(A@v)/dv = A^T @ grad"
    source = "{0} @ {1}"
    gradients = ("outer({g}, {1})", "{0}.T @ {g}")
    tangent = "{t0} @ {1} + {0} @ {t1}"

    @staticmethod
    def forward(ctx, a, v):
        check_product("mv", a, v, a.array.ndim == 2 and v.array.ndim == 1
                      and a.array.shape[1] == v.array.shape[0])
        ctx.save_for_backward(a, v)
        return a.array @ v.array

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.unpack_saved()
        need_a, need_v = ctx.needs_input_grad
        return (grad.unsqueeze(1).mm(v.unsqueeze(0)) if need_a else None,
                a.t().mv(grad) if need_v else None)

    @staticmethod
    def jvp(ctx, ta, tb):
        return bilinear(ctx, ta, tb)


class Bmm(Function, numpy_forward=True):
    """batch of matrix products"""

    node_name = "BmmBackward0"
    formula = r"d(A@B)/dA = grad @ B^T ;  d(A@B)/dB = A^T @ grad  (per batch)"
    source = "{0} @ {1}"
    gradients = ("{g} @ {1}.mT", "{0}.mT @ {g}")
    tangent = "{t0} @ {1} + {0} @ {t1}"

    @staticmethod
    def forward(ctx, a, b):
        sa, sb = a.array.shape, b.array.shape
        check_product("bmm", a, b, len(sa) == len(sb) == 3 and sa[0] == sb[0] and sa[2] == sb[1])
        ctx.save_for_backward(a, b)
        return a.array @ b.array

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.unpack_saved()
        need_a, need_b = ctx.needs_input_grad
        return (grad.bmm(b.transpose(1, 2)) if need_a else None,
                a.transpose(1, 2).bmm(grad) if need_b else None)

    @staticmethod
    def jvp(ctx, ta, tb):
        return bilinear(ctx, ta, tb)


def matmul(input: Any, other: Any) -> Any:
    """`a @ b`, built from the same pieces PyTorch 2.13 uses, so the graph has its shape.

    1-D·1-D is `dot`, 2-D·2-D `mm`, 2-D·1-D `mv`; 1-D·2-D is `unsqueeze → mm → squeeze`;
    N-D·2-D folds the batch into rows (`view → mm → _unsafe_view`, `mv` for N-D·1-D); batched
    products expand both sides to the broadcast batch, fold it (`expand → view → bmm →
    _unsafe_view`). By design, 1-D/2-D·N-D and batches of size 1 also take that batched path,
    where PyTorch folds them into one mm/mv with transposes or squeezes chosen by strides and
    requires_grad: same gradients, different shape nodes (compare/graph.py KNOWN_DIFFERENCES).
    """
    tensor_input("matmul", input)
    tensor_input("matmul", other, "other", 2)
    a, b = as_operand(input), as_operand(other)
    da, db = unwrap(a).ndim, unwrap(b).ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == db == 1:
        same_dtype("dot", a, b)
    if da == 1 and db == 1:
        return Dot.apply(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 2 and db == 2:
        return mm(a, b)
    if da == 1 and db == 2:
        return squeeze_fresh(mm(unsqueeze(a, 0), b), (0,))
    if db <= 2:
        # fold a's batch dims into rows: (..., n, k) -> (rows, k) @ b, mv for a vector b
        lead = unwrap(a).shape[:-1]
        rows = reshape(a, (-1, unwrap(a).shape[-1]))
        check_product("mv" if db == 1 else "matmul", rows, b,
                      unwrap(a).shape[-1] == unwrap(b).shape[0])
        same_dtype("mv" if db == 1 else "mm", a, b)
        out = Mv.apply(rows, b) if db == 1 else Mm.apply(rows, b)
        return unsafe_view(out, lead + unwrap(b).shape[1:])
    return _batched(a, b)


def _batched(a: Any, b: Any) -> Any:
    a2 = unsqueeze(a, 0) if unwrap(a).ndim == 1 else a
    b2 = unsqueeze(b, -1) if unwrap(b).ndim == 1 else b
    sa, sb = unwrap(a2).shape, unwrap(b2).shape
    if sa[-1] != sb[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{math.prod(sa[:-2]) or 1}, {sa[-1]}] but got: "
                           f"[{math.prod(sb[:-2]) or 1}, {sb[-2]}].")
    same_dtype("bmm", a, b)
    try:
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise RuntimeError(f"matmul: batch dims of {shape_of(a)} and {shape_of(b)} do not "
                           "broadcast") from None
    n_batch = int(np.prod(batch))
    a3 = reshape(expand(a2, batch + sa[-2:]), (n_batch,) + sa[-2:])
    b3 = reshape(expand(b2, batch + sb[-2:]), (n_batch,) + sb[-2:])
    out = unsafe_view(Bmm.apply(a3, b3), batch + (sa[-2], sb[-1]))
    if unwrap(a).ndim == 1:
        out = squeeze_fresh(out, (-2,))
    if unwrap(b).ndim == 1:
        out = squeeze_fresh(out, (-1,))
    return out


def vdot(input: Any, other: Any) -> Any:
    if input.array.ndim != 1 or other.array.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.array.ndim}D and "
                           f"{other.array.ndim}D tensors")
    n, m = input.array.size, other.array.size
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")
    return Vdot.apply(input, other)


def mm(input: Any, mat2: Any) -> Any:
    tensor_input("mm", input)
    tensor_input("mm", mat2, "mat2", 2)
    sa, sb = shape_of(input), shape_of(mat2)
    check_product("mm", input, mat2, len(sa) == len(sb) == 2 and sa[1] == sb[0])
    same_dtype("mm", input, mat2)
    return Mm.apply(input, mat2)


def mv(input: Any, vec: Any) -> Any:
    tensor_input("mv", input)
    tensor_input("mv", vec, "vec", 2)
    sa, sb = shape_of(input), shape_of(vec)
    check_product("mv", input, vec, len(sa) == 2 and len(sb) == 1 and sa[1] == sb[0])
    same_dtype("mv", input, vec)
    return Mv.apply(input, vec)


def dot(input: Any, tensor: Any) -> Any:
    tensor_input("dot", input)
    tensor_input("dot", tensor, "tensor", 2)
    check_product("dot", input, tensor, len(shape_of(input)) == len(shape_of(tensor)) == 1)
    same_dtype("dot", input, tensor)
    return Dot.apply(input, tensor)


def bmm(input: Any, mat2: Any) -> Any:
    tensor_input("bmm", input)
    tensor_input("bmm", mat2, "mat2", 2)
    sa, sb = shape_of(input), shape_of(mat2)
    check_product("bmm", input, mat2, len(sa) == len(sb) == 3 and sa[0] == sb[0] and sa[2] == sb[1])
    same_dtype("bmm", input, mat2)
    return Bmm.apply(input, mat2)


class Addmm(Function, numpy_forward=True):
    """b + A @ B (a bias row added to a matrix product)"""

    node_name = "AddmmBackward0"
    formula = r"addmm(b, A, B) = b + A@B:  d/db = grad.sum(0) ;  d/dA = grad @ B^T ;  " \
        r"d/dB = A^T @ grad"
    source = "{1} @ {2} + {0}"
    gradients = ("{g}", "{g} @ {2}.T", "{1}.T @ {g}")
    tangent = "{t1} @ {2} + {1} @ {t2} + {t0}"

    @staticmethod
    def forward(ctx, bias, mat1, mat2):
        ctx.save_for_backward(mat1, mat2)
        return addmm_array(unwrap(bias), mat1.array, mat2.array)

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.unpack_saved()
        need_bias, need_1, need_2 = ctx.needs_input_grad
        # the bias gradient is `grad` itself: the engine sums it over the rows
        return (grad if need_bias else None,
                grad.mm(mat2.t()) if need_1 else None,
                mat2_grad(grad, mat1, mat2) if need_2 else None)

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradients as `backward`, in numpy alone (used when nothing is recorded)."""
        mat1, mat2 = ctx.unpack_saved()
        need_bias, need_1, need_2 = ctx.needs_input_grad
        return grad if need_bias else None, *mm_grads(grad, mat1.array, mat2.array, need_1, need_2)

    @staticmethod
    def jvp(ctx, tbias, t1, t2):
        _, mat1, mat2 = ctx.inputs
        if is_zero(t1) and is_zero(t2):  # only the bias moves
            return tbias.expand(*ctx.output.array.shape).clone()
        return plus(None if is_zero(t1) else Mm.apply(t1, mat2),
                    None if is_zero(t2) else Mm.apply(mat1, t2),
                    None if is_zero(tbias) else tbias)


def addmm_array(b: Any, m1: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """`b + m1 @ m2` in numpy."""
    return b + m1 @ m2


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    """`input @ weight.T + bias`, with the graph PyTorch records for `F.linear`."""
    Tensor = _tensor.Tensor
    if not isinstance(input, Tensor):
        input = as_operand(input)
        if not is_tensor(input):
            raise TypeError(f"linear(): argument 'input' must be Tensor, not "
                            f"{type(input).__name__}")
    x, w = input.array, weight.array
    xs, ws = x.shape, w.shape
    if len(ws) != 2 or not xs or xs[-1] != ws[1] or x.dtype != w.dtype or (
            bias is not None and unwrap(bias).dtype != x.dtype):
        check_linear(input, weight, bias)  # raises PyTorch's error
    if bias is not None and len(xs) == 2:
        return Addmm.apply(bias, input, t(weight))
    if bias is not None and x.flags.c_contiguous:  # PyTorch views the input before weight.t()
        rows = view(input, (-1, xs[-1]))
        return view(Addmm.apply(bias, rows, t(weight)), xs[:-1] + (ws[0],))
    w_t = t(weight)
    if bias is not None:  # a transposed input cannot be viewed: PyTorch's matmul, then + bias
        return matmul(input, w_t) + bias
    if len(xs) == 2:
        return mm(input, w_t)
    return matmul(input, w_t)
