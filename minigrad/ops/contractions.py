"""einsum and tensordot: sums of products over named dims, built from permute, unsqueeze,
diagonal, sum, mul, bmm/mm and view, the very steps PyTorch 2.13 takes (aten's Linear.cpp),
so the graph has PyTorch's nodes and each backward step is one of theirs.

einsum('ij,jk->ik', A, B) in three moves:
1. each operand's dims are lined up on one list of labels: output labels first, then the
   summed ones (a repeated label takes a diagonal; a missing one is an unsqueezed dim of 1);
2. operands are multiplied pairwise, left to right: dims no later operand needs are summed
   away, and the rest is one batched matrix product (`sumproduct_pair`: permute, reshape,
   bmm, view, permute);
3. the summed dims, now of size 1, are viewed away.
Its backward is the backward of those nodes: bmm's sends `grad @ B^T` and `A^T @ grad`, the
views and permutes put each gradient back in its operand's layout.
"""

from __future__ import annotations

import math
import string
from typing import Any

from minigrad.ops.arithmetic import mul
from minigrad.ops.calls import calling
from minigrad.ops.diagonals import diagonal
from minigrad.ops.out import check_out, write_out
from minigrad.ops.products import bmm, mm
from minigrad.ops.reduce import sum as _sum
from minigrad.ops.shaping import movedim
from minigrad.ops.views import permute, reshape, unsqueeze, view
from minigrad.surface.dtypes import TORCH_NAMES

# the public functions: minigrad.einsum, minigrad.tensordot (re-exported by ops/ and minigrad/)
__all__ = ["einsum", "tensordot"]

ELLIPSIS = 52  # labels: A-Z are 0-25, a-z 26-51, "..." this


def einsum(*args: Any) -> Any:
    """`einsum(equation, *operands)`, `einsum(equation, [operands])`, or the sublist form
    `einsum(a, [0, 1], b, [1, 2], [0, 2])`, as PyTorch's."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if hasattr(args[0], "array"):  # the sublist form: operand, subscripts, operand, ...
        equation = ",".join("".join(_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    with calling("einsum", repr(equation), operands):
        return _einsum(equation, list(operands))


def _subscript(n: Any) -> str:
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _label(c: str) -> int:
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + 26


def _letter(s: int) -> str:
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _parse_inputs(lhs: str, n_ops: int) -> list[list[int]]:
    """Each operand's labels (ELLIPSIS for "..."), with PyTorch's errors."""
    labels: list[list[int]] = [[] for _ in range(n_ops)]
    op, ellipsis, i = 0, False, 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if ellipsis:
                raise RuntimeError(f"einsum(): found '.' for operand {op} for which an ellipsis "
                                   "was already found")
            if lhs[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {op} that is not part of "
                                   "any ellipsis")
            labels[op].append(ELLIPSIS)
            ellipsis, i = True, i + 2
        elif c == ",":
            op += 1
            if op >= n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            ellipsis = False
        elif c != " ":
            if c not in string.ascii_letters:
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            labels[op].append(_label(c))
        i += 1
    if op != n_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return labels


def _einsum(equation: str, operands: list) -> Any:
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    lhs, arrow, rhs = equation.partition("->")
    labels = _parse_inputs(lhs, len(operands))
    count, ell_dims = [0] * 52, 0
    for i, (a, ls) in enumerate(zip(operands, labels)):
        n, has_ell = len([s for s in ls if s != ELLIPSIS]), ELLIPSIS in ls
        ndim = a.array.ndim
        for s in ls:
            if s != ELLIPSIS:
                count[s] += 1
        if has_ell:
            ell_dims = max(ell_dims, ndim - n)
        if (n > ndim) if has_ell else (n != ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({n}) "
                + ("is more than the number of dimensions (" if has_ell else
                   "does not match the number of dimensions (")
                + f"{ndim}) for operand {i}" + ("" if has_ell else " and no ellipsis was given"))
    index, ell_index, ell_out, out_dims = _output_order(arrow, rhs, lhs, count, ell_dims)
    perm_index = out_dims
    if not ell_out:
        ell_index, perm_index = perm_index, perm_index + ell_dims
    for s in range(52):  # the contraction labels, after the output's
        if count[s] and index[s] == -1:
            index[s], perm_index = perm_index, perm_index + 1
    ops, dim_counts = _align(operands, labels, index, ell_index, ell_dims, perm_index)
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_dims, perm_index):
            sa, sb = a.array.shape[d] != 1, b.array.shape[d] != 1
            if sa and sb:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if sa:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif sb:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = _sum(a, a_sum, True)
        if b_sum:
            b = _sum(b, b_sum, True)
        ops.insert(0, sumproduct_pair(a, b, sum_dims))
    if perm_index > out_dims:
        if len(operands) > 1:
            return view(ops[0], ops[0].array.shape[:out_dims])
        return _sum(ops[0], list(range(out_dims, perm_index)))
    return ops[0]


def _output_order(arrow: str, rhs: str, lhs: str, count: list, ell_dims: int) -> tuple:
    """Where each label goes in the lined-up dims: (index per label, the ellipsis' start,
    whether the output keeps it, how many output dims)."""
    index, perm, ell_index = [-1] * 52, 0, 0
    if not arrow:  # implicit: the ellipsis, then the labels seen once, in A-Za-z order
        perm = ell_dims
        for s in range(52):
            if count[s] == 1:
                index[s], perm = perm, perm + 1
        return index, ell_index, True, perm
    ell_out, i = False, 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if ell_out:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if rhs[i:i + 3] != "...":
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            ell_index, perm, ell_out, i = perm, perm + ell_dims, True, i + 2
        elif c != " ":
            if c not in string.ascii_letters:
                raise RuntimeError(f"einsum(): invalid subscript given at index "
                                   f"{len(lhs) + 2 + i} in the equation string, subscripts "
                                   "must be in [a-zA-Z]")
            s = _label(c)
            if not (count[s] > 0 and index[s] == -1):
                raise RuntimeError(f"einsum(): output subscript {c}" + (
                    " appears more than once in the output" if index[s] > -1 else
                    " does not appear in the equation for any input operand"))
            index[s], perm = perm, perm + 1
        i += 1
    return index, ell_index, ell_out, perm


def _align(operands: list, labels: list, index: list, ell_index: int, ell_dims: int,
           n_dims: int) -> tuple[list, list]:
    """Each operand with its dims in the lined-up order (diagonals for repeated labels,
    unsqueezed 1s for missing ones), and how many operands have each dim bigger than 1."""
    label_size, ell_sizes = [1] * 52, [1] * ell_dims
    dim_counts, ops = [0] * n_dims, []
    for i, (op, ls) in enumerate(zip(operands, labels)):
        perm, dim = [-1] * n_dims, 0
        for s in ls:
            if s == ELLIPSIS:
                covered = op.array.ndim - (len(ls) - 1)
                for j in range(ell_dims - covered, ell_dims):
                    size = op.array.shape[dim]
                    _note(ell_sizes, j, size, dim_counts, ell_index + j, (
                        f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                        f"{size} which does not broadcast with previously seen ellipsis with "
                        "size {prev} for the respective dimension"))
                    perm[ell_index + j], dim = dim, dim + 1
            elif perm[index[s]] == -1:
                size = op.array.shape[dim]
                _note(label_size, s, size, dim_counts, index[s], (
                    f"einsum(): subscript {_letter(s)} has size {size} for operand {i} which "
                    "does not broadcast with previously seen size {prev}"))
                perm[index[s]], dim = dim, dim + 1
            else:  # a repeated label: its diagonal, moved to where the label first was
                prev = perm[index[s]]
                if op.array.shape[dim] != op.array.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_letter(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op.array.shape[dim]} != {op.array.shape[prev]}")
                op = movedim(diagonal(op, 0, prev, dim), -1, prev)
        for k, value in enumerate(perm):
            if value == -1:
                op = unsqueeze(op, dim)
                perm[k], dim = dim, dim + 1
        ops.append(permute(op, perm))
    return ops, dim_counts


def _note(sizes: list, k: int, size: int, counts: list, slot: int, error: str) -> None:
    """Label (or ellipsis dim) `k` has `size` in this operand: sizes other than 1 must agree
    (else `error`, the size seen before as {prev}); count the operands in which it is not 1
    (a dim is summed as soon as only one operand holds it)."""
    if size != 1:
        if sizes[k] not in (1, size):
            raise RuntimeError(error.format(prev=sizes[k]))
        sizes[k] = size
        counts[slot] += 1


def sumproduct_pair(left: Any, right: Any, sum_dims: list[int]) -> Any:
    """`(left * right).sum(sum_dims, keepdim=True)` as one bmm: the dims in both (batch), in
    left only, summed, in right only, each group flattened, then viewed and permuted back."""
    if not sum_dims:
        return mul(left, right)
    if left.array.dtype != right.array.dtype:  # (bmm's words: it does not promote)
        raise RuntimeError(f"expected scalar type {TORCH_NAMES[left.array.dtype]} but found "
                           f"{TORCH_NAMES[right.array.dtype]}")
    lro, lo, ro = [], [], []
    ls, rs = left.array.shape, right.array.shape
    for i in range(len(ls)):
        if i in sum_dims:
            continue
        if ls[i] != 1 and rs[i] != 1:
            lro.append(i)
        elif ls[i] != 1:
            lo.append(i)
        else:
            ro.append(i)
    size = {name: math.prod(shape[d] for d in dims) for name, shape, dims in
            (("lro", ls, lro), ("lo", ls, lo), ("ro", rs, ro), ("sum", ls, sum_dims))}
    out_size = ([ls[d] for d in lro] + [ls[d] for d in lo] + [1] * len(sum_dims)
                + [rs[d] for d in ro])
    order = lro + lo + sum_dims + ro
    back = [order.index(d) for d in range(len(order))]
    left = reshape(permute(left, lro + lo + sum_dims + ro),
                   (size["lro"], size["lo"], size["sum"]))
    right = reshape(permute(right, lro + sum_dims + ro + lo),
                    (size["lro"], size["sum"], size["ro"]))
    return permute(view(bmm(left, right), out_size), back)


def tensordot(a: Any, b: Any, dims: Any = 2, out: Any = None) -> Any:
    """Sum of products over `dims` dims: the last `dims` of a with the first of b, or the two
    lists `([dims of a], [dims of b])`; a permute, reshape, mm, reshape (PyTorch's graph)."""
    if out is not None:
        check_out(out, "tensordot", a, b)
    with calling("tensordot", "", (a, b)):
        return write_out(_tensordot(a, b, dims), out, "tensordot")


def _tensordot(a: Any, b: Any, dims: Any) -> Any:
    if isinstance(dims, bool) or not isinstance(dims, int | list | tuple) and \
            not hasattr(dims, "array"):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if hasattr(dims, "array"):
        dims = dims.array.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.array.ndim, b.array.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.array.dtype != b.array.dtype:
        raise RuntimeError("both inputs should have same dtype")
    dims_a = [d % a.array.ndim for d in dims_a]
    dims_b = [d % b.array.ndim for d in dims_b]
    csize = 1
    for da, db in zip(dims_a, dims_b):
        s1, s2 = a.array.shape[da], b.array.shape[db]
        if s2 == 1:
            a = _sum(a, da, True)
        elif s1 == 1:
            b = _sum(b, db, True)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                               f"in dim {da} and second has size {s2} in dim {db}")
        else:
            csize *= s1
    free_a = [d for d in range(a.array.ndim) if d not in dims_a]
    free_b = [d for d in range(b.array.ndim) if d not in dims_b]
    sizes = [a.array.shape[d] for d in free_a] + [b.array.shape[d] for d in free_b]
    left = reshape(permute(a, free_a + dims_a), (math.prod(sizes[:len(free_a)]), csize))
    right = reshape(permute(b, dims_b + free_b), (csize, math.prod(sizes[len(free_a):])))
    return reshape(mm(left, right), sizes)
