"""Sorting and order statistics: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode;
and, never recorded (integer results, or values PyTorch gives no derivative): unique,
searchsorted, bincount, histc.

The ops along a dim return `(values, indices)` named tuples (minigrad.return_types) whose
values have one node (SortBackward0, TopkBackward0, ...), as in PyTorch: the gradient goes back
to the position each value came from (`indices`), zeros elsewhere. Ties are broken as PyTorch's
CPU kernels break them for sort, median and mode: by a stable sort (NaN counts as the largest
value). topk and kthvalue take the same stable order, where PyTorch's selection algorithm may
pick another of tied elements (it leaves that unspecified): the values agree, the index (and
so which of the tied elements gets the gradient) may not.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant, keepdims_alias, normalize_dim, unwrap
from minigrad.ops.extremes import _EvenReduction, _nonempty_dim
from minigrad.ops.gathering import along
from minigrad.ops.index import ScatterAdd
from minigrad.ops.tangent_rules import linear
from minigrad.ops.views import unsqueeze
from minigrad.surface import dtypes, meta, return_types

# the public functions: minigrad.sort, ... (re-exported by ops/ and minigrad/)
__all__ = ["argsort", "bincount", "histc", "kthvalue", "median", "mode", "msort", "nanmedian",
           "searchsorted", "sort", "topk", "unique"]


def order(a: np.ndarray, dim: int, descending: bool = False) -> np.ndarray:
    """The stable sort order of `a` along `dim` (NaN last, or first when descending)."""
    if not a.ndim:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    n = a.shape[dim]  # the reversed array sorted stably, then reversed: ties in their order
    return n - 1 - np.flip(np.argsort(np.flip(a, dim), axis=dim, kind="stable"), dim)


class _AlongDim(Function, numpy_forward=True):
    """values picked along dim, with their indices; the gradient goes back to those positions"""

    gradients = ()
    tangent = "{t0} at the positions the values came from"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim, picked, keepdim=True):
        """The values at `picked` (the indices, int64, in keepdim's shape) along `dim`. (The
        indices are no output of the node: as in PyTorch, they get no gradient.)"""
        x = a.array
        ctx.in_shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        ctx.key = along(picked, dim) if x.ndim else ()
        values = np.asanyarray(x[ctx.key])
        if not keepdim and x.ndim:
            values, picked = values.squeeze(dim), picked.squeeze(dim)
        ctx.keep_as_pytorch(indices=picked)  # (as PyTorch's node: `_saved_indices`)
        return values

    @staticmethod
    def backward(ctx, grad):
        if not ctx.keepdim and ctx.in_shape:
            grad = unsqueeze(grad, ctx.dim)
        return ScatterAdd.apply(grad, shape=ctx.in_shape, key=ctx.key)


class Sort(_AlongDim):
    """the elements along dim in order, and where each came from"""

    node_name = "SortBackward0"
    formula = r"sort: grad sent back to where each sorted element came from"
    source = "{0}.sort(dim={dim})"


class SortStable(Sort):
    """sort called with `stable=`: PyTorch records its sort.stable overload"""

    node_name = "SortBackward1"
    source = "{0}.sort(dim={dim}, stable=True)"


class Topk(_AlongDim):
    """the k largest (or smallest) along dim, and where they came from"""

    node_name = "TopkBackward0"
    formula = r"topk: grad sent back to the k chosen elements, zeros elsewhere"
    source = "{0}.topk(k, dim={dim})"


class Kthvalue(_AlongDim):
    """the k-th smallest along dim, and where it came from"""

    node_name = "KthvalueBackward0"
    formula = r"kthvalue: grad sent back to the chosen element, zeros elsewhere"
    source = "{0}.kthvalue(k, {dim})"


class MedianDim(_AlongDim):
    """the lower median along dim, and where it came from"""

    node_name = "MedianBackward1"
    formula = r"median(dim): grad sent back to the median element, zeros elsewhere"
    source = "{0}.median({dim})"


class NanmedianDim(MedianDim):
    """the lower median along dim of the values that are not NaN, and where it came from"""

    node_name = "NanmedianBackward1"
    source = "{0}.nanmedian({dim})"


class Mode(_AlongDim):
    """the most frequent value along dim (the smallest of a tie), and its last position"""

    node_name = "ModeBackward0"
    formula = r"mode: grad sent back to the chosen element, zeros elsewhere"
    source = "{0}.mode({dim})"


def _dim(input: Any, dim: int) -> int:
    return normalize_dim(dim, input.array.ndim)


def _take(op: type, result: type, input: Any, dim: int, picked: np.ndarray,
          keepdim: bool = True) -> Any:
    """`result(values, indices)`: the values at `picked` along dim (op's node), the indices."""
    picked = picked.astype(np.int64)
    values = op.apply(input, dim=dim, picked=picked, keepdim=keepdim)
    indices = picked.squeeze(dim) if not keepdim and picked.ndim else picked
    return result(values, constant(indices))


def sort(input: Any, dim: int = -1, descending: bool = False, stable: bool | None = None
         ) -> Any:
    """(values, indices) in ascending (or descending) order along dim; always stable. Given
    `stable` (True or False), the node is SortBackward1, as in PyTorch. (PyTorch then takes
    `dim` and `descending` by keyword only; minigrad takes them either way.)"""
    dim = _dim(input, dim)
    op = Sort if stable is None else SortStable
    return _take(op, return_types.sort, input, dim, order(input.array, dim, descending))


def argsort(input: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    return constant(order(unwrap(input), _dim(input, dim), descending).astype(np.int64))


def msort(input: Any) -> Any:
    return sort(input, 0).values


def topk(input: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """The k largest (smallest) along dim, in order (with sorted=False too)."""
    dim = _dim(input, dim)
    n = input.array.shape[dim] if input.array.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    picked = np.take(order(input.array, dim, largest), np.arange(k), axis=dim) \
        if input.array.ndim else order(input.array, dim)
    return _take(Topk, return_types.topk, input, dim, picked)


def _nth(a: np.ndarray, dim: int, position: np.ndarray) -> np.ndarray:
    """The index of the element at sorted `position` (keepdim's shape) along dim."""
    if not a.ndim:
        return np.zeros((), np.int64)
    return np.take_along_axis(order(a, dim), position, axis=dim)


def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    dim = _nonempty_dim(input, _dim(input, dim), "kthvalue")
    n = input.array.shape[dim] if input.array.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    position = np.full(_kept(input.array.shape, dim), k - 1)
    return _take(Kthvalue, return_types.kthvalue, input, dim,
                 _nth(input.array, dim, position), keepdim)


def _kept(shape: tuple, dim: int) -> tuple:
    return shape[:dim] + (1,) + shape[dim + 1:] if shape else ()


def _median_position(a: np.ndarray, dim: int, skip_nan: bool) -> np.ndarray:
    """The sorted position of the lower median along dim: a NaN's (the first) where there is
    one, unless `skip_nan`, then of the values that are not NaN."""
    valid = (~np.isnan(a)).sum(axis=dim, keepdims=True) if a.dtype.kind == "f" else \
        np.full(_kept(a.shape, dim), a.shape[dim])
    if skip_nan:
        return np.maximum(valid - 1, 0) // 2
    return np.where(valid < a.shape[dim], valid, (a.shape[dim] - 1) // 2)


def _lower_median(a: np.ndarray, skip_nan: bool = False) -> np.ndarray:
    """The lower median of all elements (NaN if there is one, unless `skip_nan`)."""
    flat = a.reshape(-1)
    if not flat.size:
        return np.asanyarray(np.nan, a.dtype)
    return flat[order(flat, 0)[_median_position(flat, 0, skip_nan)[0]]]


class MedianAll(_EvenReduction):
    """the lower median of all elements"""

    node_name = "MedianBackward0"
    formula = r"d(median a)/da_i = 1 for the median element (shared on ties), else 0"
    source = "{0}.median()"
    gradients = ()
    np_fn = staticmethod(_lower_median)
    tangent = "{t0} at the median element (shared on ties)"

    @staticmethod
    def backward(ctx, grad):
        """Shared evenly by the elements equal to the median (by the NaNs, when it is NaN)."""
        (a,) = ctx.unpack_saved()
        hits = a.array == ctx.result
        if np.isnan(ctx.result):
            hits = np.isnan(a.array)
        return grad * constant((hits / hits.sum()).astype(a.array.dtype))


class NanmedianAll(MedianAll):
    """the lower median of the elements that are not NaN"""

    node_name = "NanmedianBackward0"
    formula = r"d(nanmedian a)/da_i = 1 for the median element (shared on ties), else 0"
    source = "{0}.nanmedian()"
    gradients = ()
    np_fn = staticmethod(lambda a: _lower_median(a, skip_nan=True))
    tangent = "{t0} at the median element (shared on ties)"


def _median(ops: tuple, result: type, name: str, input: Any, dim: Any, keepdim: bool) -> Any:
    whole, along_dim = ops
    if dim is None:
        return whole.apply(input)
    dim = _nonempty_dim(input, _dim(input, dim), name)
    a = input.array
    position = _median_position(a, dim, along_dim is NanmedianDim) if a.ndim else None
    return _take(along_dim, result, input, dim, _nth(a, dim, position), keepdim)


@keepdims_alias
def median(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median (of n values, the ((n - 1) // 2)-th smallest): of all elements, or
    (values, indices) along dim. A NaN makes the median NaN."""
    return _median((MedianAll, MedianDim), return_types.median, "median", input, dim, keepdim)


@keepdims_alias
def nanmedian(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """`median` of the values that are not NaN."""
    return _median((NanmedianAll, NanmedianDim), return_types.nanmedian, "nanmedian", input,
                   dim, keepdim)


def _mode_index(row: np.ndarray) -> int:
    """The last position of the most frequent value of `row` (the smallest, on a tie)."""
    values, counts = np.unique(row, return_counts=True)
    best = values[np.argmax(counts)]  # (np.unique sorts: the first of the most is the smallest)
    return int(np.flatnonzero(row == best)[-1])


@keepdims_alias
def mode(input: Any, dim: int = -1, keepdim: bool = False) -> Any:
    dim = _nonempty_dim(input, _dim(input, dim), "mode")
    a = input.array
    if not a.ndim:
        return _take(Mode, return_types.mode, input, dim, np.zeros((), np.int64), keepdim)
    rows = np.moveaxis(a, dim, -1).reshape(-1, a.shape[dim])
    picked = np.zeros(len(rows), np.int64) if meta.is_meta(a) else \
        np.array([_mode_index(r) for r in rows], np.int64)  # (a meta row has no values)
    picked = np.moveaxis(picked.reshape(np.moveaxis(a, dim, -1).shape[:-1] + (1,)), -1, dim)
    return _take(Mode, return_types.mode, input, dim, picked, keepdim)


# -- never recorded ------------------------------------------------------------------------------
def unique(input: Any, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct values (always sorted, as PyTorch's CPU kernel gives them), and where each
    element went (`return_inverse`) and how many there were (`return_counts`), int64.
    (PyTorch records a node whose backward raises for an input that requires grad; minigrad
    records none.)"""
    a = unwrap(input)
    axis = None if dim is None else normalize_dim(dim, a.ndim)
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=axis)
    out = [constant(values)]
    if return_inverse:
        out.append(constant(inverse.reshape(a.shape if axis is None else -1).astype(np.int64)))
    if return_counts:
        out.append(constant(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def searchsorted(sorted_sequence: Any, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Any:
    """Where each value of `input` would go in the (last dim of) `sorted_sequence` to keep it
    sorted: before equal values, or after them with right=True (side="right")."""
    seq, values = unwrap(sorted_sequence), np.asanyarray(unwrap(input))
    how = side or ("right" if right else "left")
    if sorter is not None:
        seq = np.take_along_axis(seq, unwrap(sorter), axis=-1)
    if seq.ndim <= 1:
        found = np.searchsorted(seq, values, side=how)
    elif not values.ndim:
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when "
                           f"boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({seq.ndim}) and input value's dim(0) numel(1)")
    elif seq.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor {list(seq.shape)} "
                           f"and input value tensor {list(values.shape)}")
    else:
        rows, flat = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        found = np.stack([np.searchsorted(r, v, side=how) for r, v in zip(rows, flat)])
        found = found.reshape(values.shape)
    return constant(np.asanyarray(found, np.int32 if out_int32 else np.int64))


def bincount(input: Any, weights: Any = None, minlength: int = 0) -> Any:
    """How often each of 0, 1, ..., max(input) occurs (int64), or the sum of their weights."""
    a = np.asanyarray(unwrap(input))
    if a.dtype.kind not in "iub":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{dtypes.TORCH_NAMES[a.dtype]}'")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return constant(np.bincount(a, minlength=minlength).astype(np.int64))
    w = np.asanyarray(unwrap(weights))
    if w.ndim != 1 or w.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = w.dtype if w.dtype.kind == "f" else np.float64
    return constant(np.bincount(a, w.astype(np.float64), minlength).astype(dtype))


def histc(input: Any, bins: int = 100, min: float = 0, max: float = 0) -> Any:
    """The counts of `bins` equal bins over [min, max] (the data's range when both are 0,
    widened by 1 each side when it is one value); values outside are left out."""
    a = np.asanyarray(unwrap(input))
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{dtypes.TORCH_NAMES[a.dtype]}'")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = (float(a.min()), float(a.max())) if lo == hi == 0 else (lo, hi)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(a, bins=builtins.int(bins), range=(lo, hi))
    return constant(counts.astype(a.dtype))
