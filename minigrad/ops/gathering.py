"""Indexing helpers: gather, scatter, scatter_add, index_select, index_add, take; the masked
ones (masked_fill, index_fill, masked_select, masked_scatter) from masking.py; nonzero and
argwhere (integer results, never recorded); and the in-place forms (scatter_, masked_fill_, ...)
at the end, through `inplace` (see in_place.py).

An index tensor names positions along one dim (`dim`) of the input: `gather` reads
`a[..., index[i, j], ...]`, `scatter` writes there. The positions become one numpy index key
(`along`), so each backward is indexing, or its undoing (`ScatterAdd`, IndexPutBackward0:
gradients of repeated positions add up).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant, is_tensor, normalize_dim, unwrap
from minigrad.ops.in_place import inplace
from minigrad.ops.index import ScatterAdd
from minigrad.ops.index_checks import check_in_range, check_index_shape, index_array
from minigrad.ops.masking import index_fill, masked_fill, masked_scatter, masked_select
from minigrad.ops.selection import where
from minigrad.ops.tangent_rules import linear
from minigrad.ops.views import reshape
from minigrad.surface import dtypes

# the public functions: minigrad.gather, ... (re-exported by ops/ and minigrad/)
__all__ = ["argwhere", "gather", "index_add", "index_fill", "index_select", "masked_fill",
           "masked_scatter", "masked_select", "nonzero", "scatter", "scatter_add", "take"]


def along(index: np.ndarray, dim: int) -> tuple:
    """The numpy key of `a[..., index[i, j, ...], ...]` (index at `dim`, its own position in
    the other dims): `a[along(index, dim)]` is `torch.gather(a, dim, index)`."""
    if not index.ndim:
        return (index,)
    key = list(np.indices(index.shape, sparse=True))
    key[dim] = index
    return tuple(key)


def _leading(array: np.ndarray, shape: tuple) -> np.ndarray:
    """The part of `array` of `shape` (at the start of each dim), as scatter reads its src."""
    return array[tuple(slice(0, n) for n in shape)]


class Gather(Function, numpy_forward=True):
    """out[i][j] = a[index[i][j]][j] (for dim 0): elements picked along dim"""

    node_name = "GatherBackward0"
    pytorch_keeps = {"self": 0}
    formula = r"gather: grad added back at the gathered positions (repeats add up)"
    source = "{0}.gather({dim}, index)"
    gradients = ()
    tangent = "{t0}.gather({dim}, index)"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.in_shape, ctx.key = a.array.shape, along(index, dim)
        return a.array[ctx.key]

    @staticmethod
    def backward(ctx, grad):
        return ScatterAdd.apply(grad, shape=ctx.in_shape, key=ctx.key)


def gather(input: Any, dim: int, index: Any, *, sparse_grad: bool = False) -> Any:
    if not input.array.ndim:
        normalize_dim(dim, 0)
        vector, positions = _vectors(input, index)
        return reshape(gather(vector, 0, positions), np.shape(unwrap(index)))
    dim, idx = _positions("gather", input, dim, index, "input")
    if np.ndim(unwrap(index)) == 0:  # one element out, shaped as the index
        return reshape(Gather.apply(input, dim=dim, index=idx), ())
    return Gather.apply(input, dim=dim, index=idx)


def _vectors(input: Any, index: Any) -> tuple:
    """A 0-d input and its index as vectors: PyTorch takes a 0-d tensor as one element along
    dim 0. (minigrad records the reshapes around the op as views; PyTorch records none.)"""
    return reshape(input, (1,)), constant(np.reshape(unwrap(index), -1))


def _positions(op: str, input: Any, dim: int, index: Any, word: str, src: Any = None) -> tuple:
    """gather's and scatter's dim and index array, checked: dtype, shape (against `src` too),
    range; and src's dtype."""
    dim = normalize_dim(dim, input.array.ndim)
    idx = index_array(index, f"{op}(): Expected dtype int32/int64 for index")
    check_index_shape(input, dim, idx, word, src)
    idx = idx.reshape(1) if idx.ndim == 0 else idx  # (PyTorch takes a 0-d index as one)
    check_in_range(idx, input.array.shape[dim] if input.array.ndim else 1, dim)
    if src is not None and src.array.dtype != input.array.dtype:
        raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype")
    return dim, idx


class Scatter(Function, numpy_forward=True):
    """a copy of a with src's elements written at the index positions along dim"""

    node_name = "ScatterBackward0"
    formula = r"scatter: grad to a where not overwritten; src gets grad gathered back"
    source = "{0}.scatter({dim}, index, {1})"
    gradients = ()
    tangent = "{t0}.scatter({dim}, index, {t1})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, src, dim, index):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.array.shape
        out = a.array.copy()
        out[along(index, dim)] = _leading(src.array, index.shape)
        return out

    @staticmethod
    def backward(ctx, grad):
        need_a, need_src = ctx.needs_input_grad
        index = constant(ctx.index)
        return (scatter(grad, ctx.dim, index, 0.0) if need_a else None,
                _src_grad(grad, ctx) if need_src else None)


def _src_grad(grad: Any, ctx: Any) -> Any:
    """What scatter's src receives: grad gathered at the index (zeros where src was not read;
    PyTorch 2.13 refuses a src larger than the index there)."""
    g = gather(grad, ctx.dim, constant(ctx.index))
    if g.array.shape == ctx.src_shape:
        return g
    key = tuple(slice(0, n) for n in g.array.shape)
    return ScatterAdd.apply(g, shape=ctx.src_shape, key=key)


class ScatterValue(Function, numpy_forward=True):
    """a copy of a with a number written at the index positions along dim"""

    node_name = "ScatterBackward1"
    formula = r"scatter(value): grad to a where not overwritten, else 0"
    source = "{0}.scatter({dim}, index, value)"
    gradients = ()
    tangent = "{t0}.scatter({dim}, index, 0)"

    @staticmethod
    def forward(ctx, a, dim, index, value):
        ctx.dim, ctx.index = dim, index
        out = a.array.copy()
        out[along(index, dim)] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        return scatter(grad, ctx.dim, constant(ctx.index), 0.0)

    @staticmethod
    def jvp(ctx, t):
        return ScatterValue.apply(t, dim=ctx.dim, index=ctx.index, value=0.0)


class ScatterReduce(Function, numpy_forward=True):
    """scatter with reduce='add' or 'multiply': PyTorch defines no derivative for it"""

    node_name = "NotImplemented"
    formula = r"scatter(reduce=...): not implemented (as in PyTorch)"
    jvp_refused = "Trying to use forward AD with aten::scatter that does not support it."
    source = "{0}.scatter({dim}, index, src, reduce={reduce})"
    gradients = ()

    @staticmethod
    def forward(ctx, a, src, dim, index, reduce):
        out = a.array.copy()
        values = src if isinstance(src, int | float) else _leading(unwrap(src), index.shape)
        (np.add if reduce == "add" else np.multiply).at(out, along(index, dim), values)
        return out

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("the derivative for 'scatter' with reduce is not implemented")


def scatter(input: Any, dim: int, index: Any, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Any:
    """`src`'s elements (or the number `value`) written into a copy of `input` at
    `index` along `dim`; with `reduce`, added or multiplied there instead."""
    src = value if src is None else src
    if not input.array.ndim:
        normalize_dim(dim, 0)
        vector, positions = _vectors(input, index)
        src = reshape(src, (-1,)) if is_tensor(src) else src
        return reshape(scatter(vector, 0, positions, src, reduce=reduce), ())
    dim, idx = _positions("scatter", input, dim, index, "self", src if is_tensor(src) else None)
    src = reshape(src, (1,)) if is_tensor(src) and not src.array.ndim else src
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        return ScatterReduce.apply(input, src, dim=dim, index=idx, reduce=reduce)
    if is_tensor(src):
        return Scatter.apply(input, src, dim=dim, index=idx)
    return ScatterValue.apply(input, dim=dim, index=idx, value=src)


class ScatterAddAlong(Function, numpy_forward=True):
    """a copy of a with src's elements added at the index positions along dim"""

    node_name = "ScatterAddBackward0"
    formula = r"scatter_add: grad to a as it is; src gets grad gathered back"
    source = "{0}.scatter_add({dim}, index, {1})"
    gradients = ("{g}", None)
    tangent = "{t0}.scatter_add({dim}, index, {t1})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, src, dim, index):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.array.shape
        out = a.array.copy()
        np.add.at(out, along(index, dim), _leading(src.array, index.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad, _src_grad(grad, ctx) if ctx.needs_input_grad[1] else None


def scatter_add(input: Any, dim: int, index: Any, src: Any) -> Any:
    dim, idx = _positions("scatter", input, dim, index, "self", src)
    src = reshape(src, (1,)) if not src.array.ndim else src
    return ScatterAddAlong.apply(input, src, dim=dim, index=idx)


class IndexSelect(Function, numpy_forward=True):
    """the slices a[..., i, ...] for each i of index, along dim"""

    node_name = "IndexSelectBackward0"
    formula = r"index_select: grad added back at the selected slices (repeats add up)"
    source = "{0}.index_select({dim}, index)"
    gradients = ()
    tangent = "{t0}.index_select({dim}, index)"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.in_shape, ctx.key = a.array.shape, (slice(None),) * dim + (index,)
        return a.array[ctx.key]

    @staticmethod
    def backward(ctx, grad):
        return ScatterAdd.apply(grad, shape=ctx.in_shape, key=ctx.key)


def _vector_index(input: Any, dim: int, index: Any, dtype_message: str) -> np.ndarray:
    """index_select's, index_add's and index_fill's index: a vector (or 0-d) of positions
    along `dim`, each in range."""
    idx = index_array(index, dtype_message)
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return idx.reshape(-1)


def index_select(input: Any, dim: int, index: Any) -> Any:
    if not input.array.ndim:
        normalize_dim(dim, 0)
        if np.size(unwrap(index)) != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{np.size(unwrap(index))} value(s)")
        vector, positions = _vectors(input, index)
        return reshape(index_select(vector, 0, positions), ())
    dim = normalize_dim(dim, input.array.ndim)
    idx = _vector_index(input, dim, index, "index_select(): Expected dtype int32 or int64 for "
                                           "index")
    if idx.size and (idx.min() < 0 or idx.max() >= input.array.shape[dim]):
        raise IndexError("index out of range in self")
    return IndexSelect.apply(input, dim=dim, index=idx)


class IndexAdd(Function, numpy_forward=True):
    """a copy of a with alpha * source's slices added at the index positions along dim"""

    node_name = "IndexAddBackward0"
    pytorch_keeps = {"source": 1}
    formula = r"index_add: grad to a as it is; source gets alpha * grad's selected slices"
    source = "{0}.index_add({dim}, index, {1})"
    gradients = ("{g}", None)
    tangent = "{t0}.index_add({dim}, index, {t1})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, source, dim, index, alpha):
        ctx.dim, ctx.index, ctx.alpha = dim, index, alpha
        out = a.array.copy()
        np.add.at(out, (slice(None),) * dim + (index,), source.array * alpha)
        return out

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:
            return grad, None
        picked = index_select(grad, ctx.dim, constant(ctx.index))
        return grad, picked if ctx.alpha == 1 else picked * ctx.alpha


def index_add(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:
    dim = normalize_dim(dim, input.array.ndim)
    idx = index_array(index, "index_add_(): Expected dtype int32/int64 for index but got: {T}")
    idx = idx.reshape(-1)
    n = source.array.shape[dim] if source.array.ndim else 1
    if idx.size != n:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({n}), for dim: {dim}")
    check_in_range(idx, input.array.shape[dim], dim)
    return IndexAdd.apply(input, source, dim=dim, index=idx, alpha=alpha)


class Take(Function, numpy_forward=True):
    """the elements of the flattened a at index (in index's shape)"""

    node_name = "TakeBackward0"
    pytorch_keeps = {"self": 0}
    formula = r"take: grad added back at the taken positions (repeats add up)"
    source = "{0}.take(index)"
    gradients = ()
    tangent = "{t0}.take(index)"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, index):
        ctx.in_shape, ctx.key = a.array.shape, (index % max(a.array.size, 1),)
        return a.array.reshape(-1)[ctx.key]

    @staticmethod
    def backward(ctx, grad):
        flat = ScatterAdd.apply(grad, shape=(int(np.prod(ctx.in_shape)),), key=ctx.key)
        return flat.reshape(ctx.in_shape)


def take(input: Any, index: Any) -> Any:
    idx = np.asanyarray(unwrap(index))
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{dtypes.TORCH_NAMES.get(idx.dtype, idx.dtype.name)}")
    n = input.array.size
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of "
                         f"{n} elements.")
    return Take.apply(input, index=idx)


# -- positions of nonzero elements (integer results, never recorded) -----------------------------
def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """The positions of the nonzero elements: an (n, ndim) int64 tensor, or with `as_tuple`
    one vector per dim (a 0-d input counts as a vector of one element)."""
    if as_tuple:
        return where(input)
    return constant(np.argwhere(unwrap(input)).astype(np.int64))


def argwhere(input: Any) -> Any:
    a = unwrap(input)
    if not a.ndim:  # (PyTorch's is (0, 0) or (1, 0))
        return constant(np.zeros((int(bool(a)), 0), np.int64))
    return nonzero(input)


# -- in place: the op's result written into the tensor (its graph rebased, as in PyTorch) ------
# (the tensor argument goes to `inplace` as its `arg`: whether it requires grad decides, with
# the target's, whether the change is recorded)
def masked_fill_(input: Any, mask: Any, value: Any) -> Any:
    return inplace(input, lambda t, v: masked_fill(t, mask, v), value)


def index_fill_(input: Any, dim: int, index: Any, value: Any) -> Any:
    return inplace(input, lambda t, v: index_fill(t, dim, index, v), value)


def scatter_(input: Any, dim: int, index: Any, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Any:
    src = value if src is None else src
    return inplace(input, lambda t, s: scatter(t, dim, index, s, reduce=reduce), src)


def scatter_add_(input: Any, dim: int, index: Any, src: Any) -> Any:
    return inplace(input, lambda t, s: scatter_add(t, dim, index, s), src)


def index_add_(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:
    return inplace(input, lambda t, s: index_add(t, dim, index, s, alpha=alpha), source)


def masked_scatter_(input: Any, mask: Any, source: Any) -> Any:
    return inplace(input, lambda t, s: masked_scatter(t, mask, s), source)
