"""The diagonal family of shaping ops: diagonal (a view), diag (vector to matrix and back),
diag_embed, tril/triu, and Tensor.unfold (sliding windows, a view). Re-exported by shaping.py.

A view's backward puts the gradient back where each element came from, into zeros of the
input's shape: the positions are an index key for the op that undoes indexing
(`ScatterAdd`, IndexPutBackward0), so that windows that overlap add up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import normalize_dim
from minigrad.ops.index import ScatterAdd
from minigrad.ops.tangent_rules import linear
from minigrad.ops.views import permute

__all__ = ["diag", "diag_embed", "diagonal", "tril", "triu"]


def _moved_last(grad: Any, to: int) -> Any:
    """`grad` with its last dim moved to position `to` (no node when it is already there)."""
    ndim = grad.array.ndim
    if to == ndim - 1:
        return grad
    order = list(range(ndim - 1))
    order.insert(to, ndim - 1)
    return permute(grad, order)


def diagonal_view(a: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """numpy's diagonal view, writable when `a` is (numpy marks it read-only)."""
    d = np.diagonal(a, offset, dim1, dim2)
    if a.flags.writeable:
        d.flags.writeable = True
    return d


def diagonal_key(shape: tuple, offset: int, dim1: int, dim2: int) -> tuple[tuple, int]:
    """The index key of the diagonal's elements in an array of `shape`, and where indexing
    with it puts the diagonal's dim (numpy's diagonal puts it last)."""
    length = np.diagonal(np.empty(shape, np.bool_), offset, dim1, dim2).shape[-1]
    i = np.arange(length)
    key: list = [slice(None)] * len(shape)
    key[dim1], key[dim2] = i + max(-offset, 0), i + max(offset, 0)
    return tuple(key), min(dim1, dim2) if abs(dim1 - dim2) == 1 else 0


class Diagonal(Function):
    """the elements a[..., i, ..., i + offset, ...] of dims dim1, dim2, as a last dim (a view)"""

    node_name = "DiagonalBackward0"
    is_view = True
    formula = r"diagonal: grad placed on the diagonal, zeros elsewhere"
    source = "{0}.diagonal({offset}, {dim1}, {dim2})"
    gradients = ()
    tangent = "{t0}.diagonal({offset}, {dim1}, {dim2})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        ctx.in_shape, ctx.args = a.array.shape, (offset, dim1, dim2)
        return diagonal_view(a.array, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        key, at = diagonal_key(ctx.in_shape, *ctx.args)
        return ScatterAdd.apply(_moved_last(grad, at), shape=ctx.in_shape, key=key)


class DiagonalCopy(Diagonal):
    """diag(matrix): the diagonal as a new vector. (PyTorch 2.13 names its node
    `DiagonalBackward0_copy`; minigrad records the node of diagonal(), DiagonalBackward0.)"""

    node_name = "DiagonalBackward0"
    is_view = False
    source = "{0}.diag({offset})"

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        ctx.in_shape, ctx.args = a.array.shape, (offset, dim1, dim2)
        return np.diagonal(a.array, offset, dim1, dim2).copy()


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    ndim = input.array.ndim
    d1, d2 = normalize_dim(dim1, ndim), normalize_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, offset=offset, dim1=d1, dim2=d2)


class DiagEmbed(Function):
    """a new tensor whose diagonals (of dims dim1, dim2) are the input's last dim"""

    node_name = "DiagEmbedBackward0"
    formula = r"diag_embed: grad's diagonal taken back"
    source = "{0}.diag_embed({offset}, {dim1}, {dim2})"
    gradients = ()
    tangent = "{t0}.diag_embed({offset}, {dim1}, {dim2})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        ctx.args = (offset, dim1, dim2)
        x = a.array
        n = x.shape[-1] + abs(offset) if x.ndim else 1 + abs(offset)
        rest = list(x.shape[:-1])
        for d in sorted((dim1, dim2)):
            rest.insert(d, n)
        out = np.zeros(rest, x.dtype)
        diagonal_view(out, offset, dim1, dim2)[...] = x
        return out

    @staticmethod
    def backward(ctx, grad):
        return diagonal(grad, *ctx.args)


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    ndim = input.array.ndim + 1
    d1, d2 = normalize_dim(dim1, ndim), normalize_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, offset=offset, dim1=d1, dim2=d2)


def diag(input: Any, diagonal: int = 0) -> Any:
    """A vector as the `diagonal`-th diagonal of a square matrix (DiagEmbedBackward0), or a
    matrix's `diagonal`-th diagonal as a new vector (see DiagonalCopy)."""
    ndim = input.array.ndim
    if ndim == 1:
        return DiagEmbed.apply(input, offset=diagonal, dim1=0, dim2=1)
    if ndim == 2:
        return DiagonalCopy.apply(input, offset=diagonal, dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


class _Triangle(Function):
    """one triangle of the last two dims (the `diagonal`-th diagonal in it), zeros elsewhere"""

    np_fn: Any = None
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @classmethod
    def forward(cls, ctx, a, diagonal):
        ctx.diagonal = diagonal
        return cls.np_fn(a.array, diagonal)

    @classmethod
    def backward(cls, ctx, grad):
        return cls.apply(grad, diagonal=ctx.diagonal)


class Tril(_Triangle):
    """the lower triangle of the last two dims (below and on the `diagonal`-th), zeros above"""

    node_name = "TrilBackward0"
    formula = r"tril: grad's lower triangle, zeros above"
    source = "{0}.tril({diagonal})"
    gradients = ("{g}.tril({diagonal})",)
    np_fn = staticmethod(np.tril)
    tangent = "{t0}.tril({diagonal})"


class Triu(_Triangle):
    """the upper triangle of the last two dims (above and on the `diagonal`-th), zeros below"""

    node_name = "TriuBackward0"
    formula = r"triu: grad's upper triangle, zeros below"
    source = "{0}.triu({diagonal})"
    gradients = ("{g}.triu({diagonal})",)
    np_fn = staticmethod(np.triu)
    tangent = "{t0}.triu({diagonal})"


def _triangle(op: type, name: str, input: Any, diagonal: int) -> Any:
    if input.array.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return op.apply(input, diagonal=int(diagonal))


def tril(input: Any, diagonal: int = 0) -> Any:
    return _triangle(Tril, "tril", input, diagonal)


def triu(input: Any, diagonal: int = 0) -> Any:
    return _triangle(Triu, "triu", input, diagonal)


class Unfold(Function):
    """windows of `size` every `step` along `dimension`, as a new last dim (a view)"""

    node_name = "UnfoldBackward0"
    is_view = True
    formula = r"unfold: each window's grad added back where the window was"
    source = "{0}.unfold({dimension}, {size}, {step})"
    gradients = ()
    tangent = "{t0}.unfold({dimension}, {size}, {step})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dimension, size, step):
        x = a.array
        ctx.in_shape, ctx.args = x.shape, (dimension, size, step)
        if not x.ndim:  # a 0-d tensor is one window of one element
            return x.reshape(1)
        shape, strides = list(x.shape), list(x.strides)
        shape[dimension] = (x.shape[dimension] - size) // step + 1
        strides[dimension] *= step
        return np.lib.stride_tricks.as_strided(
            x, tuple(shape) + (size,), tuple(strides) + (x.strides[dimension],),
            writeable=x.flags.writeable and step >= size)  # (overlapping windows: read-only)

    @staticmethod
    def backward(ctx, grad):
        dim, size, step = ctx.args
        if not ctx.in_shape:
            return grad.reshape(())
        starts = np.arange(grad.array.shape[dim]) * step
        key: list = [slice(None)] * len(ctx.in_shape)
        key[dim] = starts[:, None] + np.arange(size)
        return ScatterAdd.apply(_moved_last(grad, dim + 1), shape=ctx.in_shape, key=tuple(key))


def unfold(input: Any, dimension: int, size: int, step: int) -> Any:
    """`Tensor.unfold(dimension, size, step)`: every window of `size` elements, `step` apart."""
    shape = input.array.shape
    dim = normalize_dim(dimension, len(shape))
    n = shape[dim] if shape else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {n} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(input, dimension=dim, size=size, step=step)
