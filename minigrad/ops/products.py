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
from minigrad.ops.views import expand, reshape, squeeze_dims, t, unsafe_view, unsqueeze, view
from minigrad.surface.dtypes import C_NAMES, TORCH_NAMES, kernel_error

# the public functions: minigrad.bmm, ... (re-exported by ops/ and minigrad/)
__all__ = ["bmm", "dot", "matmul", "mm", "mv"]


def _same_dtype(kind: str, a: Any, b: Any) -> None:
    """PyTorch's refusal of a product of two dtypes (it does not promote), and of bools; in
    the words of the kernel that `kind` (dot, mm, mv, bmm) runs."""
    da, db = unwrap(a).dtype, unwrap(b).dtype
    if da is db and da.kind != "b":
        return
    if da == db or da.kind == "b" and db.kind == "b":
        raise kernel_error(_KERNELS[kind], da)
    ta, tb = TORCH_NAMES[da], TORCH_NAMES[db]
    raise RuntimeError({
        "dot": f"dot : expected both vectors to have same dtype, but found {ta} and {tb}",
        "mm": f"expected m1 and m2 to have the same dtype, but got: {C_NAMES[da]} != "
              f"{C_NAMES[db]}",
        "mv": f"addmv input tensors must have the same dtype, but got {tb}, {ta}, and {tb}",
        "bmm": f"expected scalar type {ta} but found {tb}"}[kind])


_KERNELS = {"dot": "dot", "mm": "addmm_impl_cpu_", "mv": "addmv_impl_cpu", "bmm": "bmm"}


def _check(op: str, a: Any, b: Any, ok: bool) -> None:
    """PyTorch's error for operands of `op` (dot, mm, mv, bmm, matmul) that cannot be
    multiplied, unless `ok`."""
    if ok:
        return
    sa, sb = shape_of(a), shape_of(b)
    if op == "dot":
        message = (f"1D tensors expected, but got {len(sa)}D and {len(sb)}D tensors"
                   if len(sa) != 1 or len(sb) != 1 else
                   f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to "
                   f"have the same number of elements, but got {sa[0]} and {sb[0]} elements "
                   "respectively")
    elif op == "mv" and len(sa) == 2 and len(sb) == 1:
        message = f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), vec ({sb[0]})"
    elif op == "mv" and not sa:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    elif op == "mv":
        message = f"vector + matrix @ vector expected, got 1, {len(sa)}, {len(sb)}"
    elif op == "bmm" and len(sa) == len(sb) == 3:
        message = (f"Expected size for first two dimensions of batch2 tensor to be: "
                   f"[{sa[0]}, {sa[2]}] but got: [{sb[0]}, {sb[1]}].")
    elif op == "mm" and len(sa) == len(sb) == 2 or op == "matmul" and sa and len(sb) == 2:
        rows = math.prod(sa[:-1]) if len(sa) > 1 else 1
        message = (f"mat1 and mat2 shapes cannot be multiplied ({rows}x{sa[-1]} and "
                   f"{sb[0]}x{sb[1]})")
    elif op == "bmm":
        message = f"batch{1 if len(sa) != 3 else 2} must be a 3D tensor"
    else:
        message = "self must be a matrix" if len(sa) != 2 else "mat2 must be a matrix"
    raise RuntimeError(message)


class Dot(Function):
    """inner product of two vectors"""

    node_name = "DotBackward0"
    formula = r"d(a.b)/da = b ;  d(a.b)/db = a"
    source = "{0} @ {1}"
    gradients = ("{g} * {1}", "{g} * {0}")

    @staticmethod
    def forward(ctx, a, b):
        _check("dot", a, b, a.array.ndim == b.array.ndim == 1 and a.array.shape == b.array.shape)
        ctx.save_for_backward(a, b)
        return np.dot(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None


class Mm(Function):
    """matrix times matrix"""

    node_name = "MmBackward0"
    formula = r"d(A@B)/dA = grad @ B^T ;  d(A@B)/dB = A^T @ grad"
    source = "{0} @ {1}"
    gradients = ("{g} @ {1}.T", "{0}.T @ {g}")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return mm_array(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad.mm(b.t()) if need_a else None, mat2_grad(grad, a, b) if need_b else None

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradients as `backward`, in numpy alone (used when nothing is recorded)."""
        a, b = ctx.saved_tensors
        return mm_grads(grad, a.array, b.array, *ctx.needs_input_grad)


def mm_array(a: Any, b: Any) -> np.ndarray:
    """The product of two matrices (tensors); PyTorch's error for other shapes."""
    x, y = a.array, b.array
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[0]:
        _check("mm", a, b, False)
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


class Mv(Function):
    """matrix times vector"""

    node_name = "MvBackward0"
    formula = r"d(A@v)/dA = outer(grad, v) ;  d(A@v)/dv = A^T @ grad"
    source = "{0} @ {1}"
    gradients = ("outer({g}, {1})", "{0}.T @ {g}")

    @staticmethod
    def forward(ctx, a, v):
        _check("mv", a, v, a.array.ndim == 2 and v.array.ndim == 1
               and a.array.shape[1] == v.array.shape[0])
        ctx.save_for_backward(a, v)
        return a.array @ v.array

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
    source = "{0} @ {1}"
    gradients = ("{g} @ {1}.mT", "{0}.mT @ {g}")

    @staticmethod
    def forward(ctx, a, b):
        sa, sb = a.array.shape, b.array.shape
        _check("bmm", a, b, len(sa) == len(sb) == 3 and sa[0] == sb[0] and sa[2] == sb[1])
        ctx.save_for_backward(a, b)
        return a.array @ b.array

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
    tensor_input("matmul", a)
    tensor_input("matmul", b, "other", 2)
    a, b = as_operand(a), as_operand(b)
    da, db = unwrap(a).ndim, unwrap(b).ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == db == 1:
        _same_dtype("dot", a, b)
    if da == 1 and db == 1:
        return Dot.apply(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 2 and db == 2:
        return mm(a, b)
    if da == 1 and db == 2:
        return squeeze_dims(mm(unsqueeze(a, 0), b), (0,))
    if db <= 2:
        # fold a's batch dims into rows: (..., n, k) -> (rows, k) @ b, mv for a vector b
        lead = unwrap(a).shape[:-1]
        rows = reshape(a, (-1, unwrap(a).shape[-1]))
        _check("mv" if db == 1 else "matmul", rows, b, unwrap(a).shape[-1] == unwrap(b).shape[0])
        _same_dtype("mv" if db == 1 else "mm", a, b)
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
    _same_dtype("bmm", a, b)
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
        out = squeeze_dims(out, (-2,))
    if unwrap(b).ndim == 1:
        out = squeeze_dims(out, (-1,))
    return out


def mm(input: Any, mat2: Any) -> Any:
    tensor_input("mm", input)
    tensor_input("mm", mat2, "mat2", 2)
    sa, sb = shape_of(input), shape_of(mat2)
    _check("mm", input, mat2, len(sa) == len(sb) == 2 and sa[1] == sb[0])
    _same_dtype("mm", input, mat2)
    return Mm.apply(input, mat2)


def mv(input: Any, vec: Any) -> Any:
    tensor_input("mv", input)
    tensor_input("mv", vec, "vec", 2)
    sa, sb = shape_of(input), shape_of(vec)
    _check("mv", input, vec, len(sa) == 2 and len(sb) == 1 and sa[1] == sb[0])
    _same_dtype("mv", input, vec)
    return Mv.apply(input, vec)


def dot(input: Any, other: Any) -> Any:
    tensor_input("dot", input)
    tensor_input("dot", other, "tensor", 2)
    _check("dot", input, other, len(shape_of(input)) == len(shape_of(other)) == 1)
    _same_dtype("dot", input, other)
    return Dot.apply(input, other)


def bmm(input: Any, mat2: Any) -> Any:
    tensor_input("bmm", input)
    tensor_input("bmm", mat2, "mat2", 2)
    sa, sb = shape_of(input), shape_of(mat2)
    _check("bmm", input, mat2, len(sa) == len(sb) == 3 and sa[0] == sb[0] and sa[2] == sb[1])
    _same_dtype("bmm", input, mat2)
    return Bmm.apply(input, mat2)


class Addmm(Function):
    """b + A @ B (a bias row added to a matrix product)"""

    node_name = "AddmmBackward0"
    formula = r"addmm(b, A, B) = b + A@B:  d/db = grad.sum(0) ;  d/dA = grad @ B^T ;  " \
        r"d/dB = A^T @ grad"
    source = "{1} @ {2} + {0}"
    gradients = ("{g}", "{g} @ {2}.T", "{1}.T @ {g}")

    @staticmethod
    def forward(ctx, bias, mat1, mat2):
        ctx.save_for_backward(mat1, mat2)
        return addmm_array(unwrap(bias), mat1.array, mat2.array)

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        need_bias, need_1, need_2 = ctx.needs_input_grad
        # the bias gradient is `grad` itself: the engine sums it over the rows
        return (grad if need_bias else None,
                grad.mm(mat2.t()) if need_1 else None,
                mat2_grad(grad, mat1, mat2) if need_2 else None)

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradients as `backward`, in numpy alone (used when nothing is recorded)."""
        mat1, mat2 = ctx.saved_tensors
        need_bias, need_1, need_2 = ctx.needs_input_grad
        return grad if need_bias else None, *mm_grads(grad, mat1.array, mat2.array, need_1, need_2)


def addmm_array(b: Any, m1: np.ndarray, m2: np.ndarray) -> np.ndarray:
    """`b + m1 @ m2` in numpy."""
    return b + m1 @ m2


def _check_linear(x: Any, weight: Any, bias: Any) -> None:
    """PyTorch's errors for the two classic mistakes: wrong in_features, wrong dtype (in the
    words and order of the kernel it runs: mm without a bias, addmm with one)."""
    xs, ws = x.array.shape, weight.array.shape
    if not xs or not ws:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{len(xs)}D and {len(ws)}D")
    if bias is not None:  # (addmm checks the dtypes first)
        _check_linear_dtypes(x, weight, bias)
    if len(ws) != 2 or xs[-1] != ws[1]:
        rows, cols = math.prod(xs[:-1]), xs[-1] if xs else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and "
            f"{ws[-1] if ws else 1}x{ws[0] if ws else 1}) (linear: input of shape {tuple(xs)}, "
            f"weight of shape {tuple(ws)}; the input's last dim must be in_features="
            f"{ws[1] if len(ws) == 2 else '?'})")
    _same_dtype("mm", x, weight)


def _check_linear_dtypes(x: Any, weight: Any, bias: Any) -> None:
    if x.array.dtype != weight.array.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {TORCH_NAMES[x.array.dtype]} and "
            f"{TORCH_NAMES[weight.array.dtype]} (convert the input with .float() or the model "
            "with .double())")
    if unwrap(bias).dtype != x.array.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {TORCH_NAMES[unwrap(bias).dtype]} "
            f"and {TORCH_NAMES[weight.array.dtype]}")


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
        _check_linear(input, weight, bias)  # raises PyTorch's error
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
