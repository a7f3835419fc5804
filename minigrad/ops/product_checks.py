"""The one place that checks the operands of the matrix products (products.py) with
PyTorch's errors, in the words and order of the kernel each runs: shapes that cannot be
multiplied, two dtypes (PyTorch does not promote in a product), bools, linear's classic
mistakes (wrong in_features, an input or bias of another dtype than the weight)."""

from __future__ import annotations

import math
from typing import Any

from minigrad.ops.base import shape_of, unwrap
from minigrad.surface.dtypes import C_NAMES, TORCH_NAMES, kernel_error


def same_dtype(kind: str, a: Any, b: Any) -> None:
    """PyTorch's refusal of a product of two dtypes (it does not promote), and of bools; in
    the words of the kernel that `kind` (dot, mm, mv, bmm) runs."""
    da, db = unwrap(a).dtype, unwrap(b).dtype
    if (da is db or da == db) and da.kind != "b":  # (an array from a pickle has its own
        return  # dtype object, equal to numpy's)
    if da.kind == "b" and db.kind == "b":
        raise kernel_error(_KERNELS[kind], da)
    ta, tb = TORCH_NAMES[da], TORCH_NAMES[db]
    raise RuntimeError({
        "dot": f"dot : expected both vectors to have same dtype, but found {ta} and {tb}",
        "mm": f"expected m1 and m2 to have the same dtype, but got: {C_NAMES[da]} != "
              f"{C_NAMES[db]}",
        "mv": f"addmv input tensors must have the same dtype, but got {tb}, {ta}, and {tb}",
        "bmm": f"expected scalar type {ta} but found {tb}"}[kind])


_KERNELS = {"dot": "dot", "mm": "addmm_impl_cpu_", "mv": "addmv_impl_cpu", "bmm": "bmm"}


def check_product(op: str, a: Any, b: Any, ok: bool) -> None:
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


def check_linear(x: Any, weight: Any, bias: Any) -> None:
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
    same_dtype("mm", x, weight)


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
