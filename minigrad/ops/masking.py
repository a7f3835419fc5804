"""The masked indexing helpers: masked_fill and index_fill (a number, or a 0-d tensor that may
require grad), masked_select, masked_scatter. Re-exported by gathering.py.

A mask and the input broadcast together, as in PyTorch; the engine sums each gradient back to
its input's shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant, is_tensor, normalize_dim, pytorch_keeps_on, unwrap
from minigrad.ops.index import ScatterAdd
from minigrad.ops.index_checks import check_bool_mask, check_in_range
from minigrad.ops.tangent_rules import linear
from minigrad.surface import meta
from minigrad.surface.dtypes import TORCH_NAMES

__all__ = ["index_fill", "masked_fill", "masked_scatter", "masked_select"]


class MaskedFill(Function, numpy_forward=True):
    """a with `value` where mask is True"""

    node_name = "MaskedFillBackward0"
    formula = r"d masked_fill(a)/da = 1 where mask is False, else 0"
    source = "{0}.masked_fill(mask, value)"
    gradients = ()
    tangent = "{t0}.masked_fill(mask, 0)"

    @staticmethod
    def forward(ctx, a, mask, value, dim=None):  # (dim: index_fill's, for the narration)
        ctx.mask = mask
        return np.where(mask, np.asanyarray(value).astype(a.array.dtype), a.array)

    @staticmethod
    def backward(ctx, grad):
        return MaskedFill.apply(grad, mask=ctx.mask, value=0)

    @staticmethod
    def jvp(ctx, t):
        return ctx.function.apply(t, **{**ctx.settings, "value": 0})  # (index_fill: same, by class)


class MaskedFillTensor(Function, numpy_forward=True):
    """a with the 0-d tensor v where mask is True"""

    node_name = "MaskedFillBackward1"
    formula = r"d masked_fill(a, v)/da = 1 where mask is False ;  /dv = sum of grad where mask"
    source = "{0}.masked_fill(mask, {1})"
    gradients = ()
    tangent = "{t0}.masked_fill(mask, {t1})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, v, mask, dim=None):
        ctx.mask = mask
        return np.where(mask, v.array.astype(a.array.dtype), a.array)

    @staticmethod
    def backward(ctx, grad):
        need_a, need_v = ctx.needs_input_grad
        return (MaskedFill.apply(grad, mask=ctx.mask, value=0) if need_a else None,
                masked_select(grad, constant(ctx.mask)).sum() if need_v else None)


class IndexFill(MaskedFill):
    """a with `value` in the slices at index along dim"""

    node_name = "IndexFillBackward0"
    formula = r"d index_fill(a)/da = 1 outside the filled slices, else 0"
    source = "{0}.index_fill({dim}, index, value)"
    tangent = "{t0}.index_fill({dim}, index, 0)"


class IndexFillTensor(MaskedFillTensor):
    """a with the 0-d tensor v in the slices at index along dim"""

    node_name = "IndexFillBackward1"
    formula = r"d index_fill(a, v)/da = 1 outside the filled slices ;  /dv = their grad summed"
    source = "{0}.index_fill({dim}, index, {1})"
    tangent = "{t0}.index_fill({dim}, index, {t1})"


def _fill(ops: tuple, input: Any, mask: np.ndarray, value: Any, name: str, **settings) -> Any:
    number, tensor = ops
    if not is_tensor(value):
        return number.apply(input, mask=mask, value=value, **settings)
    if value.array.ndim:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.array.ndim} dimension(s).")
    return tensor.apply(input, value, mask=mask, **settings)


def masked_fill(input: Any, mask: Any, value: Any) -> Any:
    m = check_bool_mask(mask, "masked_fill_ only supports boolean masks, but got mask with "
                              "dtype {c}", input.array.shape, "masked_fill")
    return _fill((MaskedFill, MaskedFillTensor), input, m, value, "masked_fill_")


def index_fill(input: Any, dim: int, index: Any, value: Any) -> Any:
    dim = normalize_dim(dim, input.array.ndim)
    idx = unwrap(index)
    if np.asanyarray(idx).dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    idx = np.asanyarray(idx).reshape(-1)
    check_in_range(idx, input.array.shape[dim] if input.array.ndim else 1, dim, IndexError)
    mask = np.zeros(input.array.shape, np.bool_)
    marks = mask if mask.ndim else mask.reshape(1)  # (a 0-d tensor: its one element)
    marks[(slice(None),) * dim + (idx,)] = True
    out = _fill((IndexFill, IndexFillTensor), input, mask, value, "index_fill_", dim=dim)
    return pytorch_keeps_on(out, index=index)


class MaskedSelect(Function, numpy_forward=True):
    """the elements of a where mask is True, as a vector (both broadcast)"""

    node_name = "MaskedSelectBackward0"
    pytorch_keeps = {"self": 0}
    formula = r"masked_select: grad placed back where mask is True, zeros elsewhere"
    source = "{0}.masked_select(mask)"
    gradients = ()
    tangent = "{t0}.masked_select(mask)"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, mask):
        shape = np.broadcast_shapes(a.array.shape, mask.shape)
        ctx.shape, ctx.mask = shape, np.broadcast_to(mask, shape)
        return np.broadcast_to(a.array, shape)[ctx.mask]

    @staticmethod
    def backward(ctx, grad):
        return ScatterAdd.apply(grad, shape=ctx.shape, key=ctx.mask)


def masked_select(input: Any, mask: Any) -> Any:
    meta.refuse_values("masked_select()", input, mask)
    m = check_bool_mask(mask, "masked_select: expected BoolTensor for mask", input.array.shape,
                        "masked_select")
    return MaskedSelect.apply(input, mask=m)


class MaskedScatter(Function, numpy_forward=True):
    """a copy of a with source's first elements written, in order, where mask is True"""

    node_name = "MaskedScatterBackward0"
    formula = r"masked_scatter: grad to a where mask is False; source gets the rest in order"
    source = "{0}.masked_scatter(mask, {1})"
    gradients = ()
    tangent = "{t0}.masked_scatter(mask, {t1})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, source, mask):
        shape = np.broadcast_shapes(a.array.shape, mask.shape)
        ctx.mask, ctx.source_shape = np.broadcast_to(mask, shape), source.array.shape
        out = np.broadcast_to(a.array, shape).copy()
        out[ctx.mask] = source.array.reshape(-1)[:int(ctx.mask.sum())]
        return out

    @staticmethod
    def backward(ctx, grad):
        need_a, need_source = ctx.needs_input_grad
        to_source = None
        if need_source:
            picked = masked_select(grad, constant(ctx.mask))
            size = int(np.prod(ctx.source_shape))
            to_source = ScatterAdd.apply(picked, shape=(size,), key=(slice(0, picked.shape[0]),)
                                         ).reshape(ctx.source_shape)
        return MaskedFill.apply(grad, mask=ctx.mask, value=0) if need_a else None, to_source


def masked_scatter(input: Any, mask: Any, source: Any) -> Any:
    if source.array.dtype != input.array.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{TORCH_NAMES[input.array.dtype]} and "
                           f"{TORCH_NAMES[source.array.dtype]}")
    m = check_bool_mask(mask, "masked_scatter_ only supports boolean masks, but got mask with "
                              "dtype {T}", input.array.shape, "masked_scatter")
    if np.broadcast_to(m, np.broadcast_shapes(input.array.shape, m.shape)).sum() > \
            source.array.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return MaskedScatter.apply(input, source, mask=m)
