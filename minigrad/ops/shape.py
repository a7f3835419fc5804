"""Ops that move elements without changing them: views, transposes, indexing, cat, stack.

Their backward puts the gradient back where each element came from. Views share memory
(and the version counter) with their input, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from minigrad import tensor as _tensor  # resolved at call time (tensor.py imports the ops)
from minigrad.function import Function
from minigrad.grad_mode import state
from minigrad.ops.base import unwrap


class View(Function):
    """the same elements seen with another shape (no copy)"""

    node_name = "ViewBackward0"
    is_view = True
    formula = r"view: grad reshaped back to the input's shape"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a.data.shape
        return view_array(a.data, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)


def view_array(a: np.ndarray, shape: tuple) -> np.ndarray:
    """`a` seen with `shape`: never a copy (numpy's reshape copies when it must, view refuses)."""
    out = a.view()
    try:
        out.shape = shape
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    return out


class UnsafeView(View):
    """a reshape after a copy (PyTorch's _unsafe_view)"""

    node_name = "UnsafeViewBackward0"


class ReshapeAlias(View):
    """a reshape that can view non-contiguous memory (PyTorch's _reshape_alias)"""

    node_name = "ReshapeAliasBackward0"


class T(Function):
    """transpose of a matrix (t())"""

    node_name = "TBackward0"
    is_view = True
    formula = r"t: grad transposed back"

    @staticmethod
    def forward(ctx, a):
        return a.data.T

    @staticmethod
    def backward(ctx, grad):
        if not state.grad_enabled:
            # nothing to record: the engine only reads the transposed array (and copies it
            # into .grad if it is not contiguous), so it need not be a view of grad, with
            # grad's version counter, as grad.t() makes it
            return _tensor.make(grad.data.T, None, 0)
        return grad.t()


class Transpose(Function):
    """swap two dims"""

    node_name = "TransposeBackward0"
    is_view = True
    formula = r"transpose: grad transposed back"

    @staticmethod
    def forward(ctx, a, d0, d1):
        ctx.d0, ctx.d1 = d0, d1
        return a.data.swapaxes(d0, d1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(ctx.d0, ctx.d1)


class Permute(Function):
    """reorder the dims"""

    node_name = "PermuteBackward0"
    is_view = True
    formula = r"permute: grad permuted back"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.inverse = tuple(np.argsort(dims))
        return np.transpose(a.data, dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(*ctx.inverse)


class Unsqueeze(Function):
    """insert a dim of size 1"""

    node_name = "UnsqueezeBackward0"
    is_view = True
    formula = r"unsqueeze: grad squeezed back"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return unsqueeze_array(a.data, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim)


def unsqueeze_array(a: np.ndarray, dim: int) -> np.ndarray:
    """`np.expand_dims(a, dim)` for a dim in [0, a.ndim], without its argument checks (~3x
    faster): inserting a size-1 dim is always a view."""
    return a.reshape(a.shape[:dim] + (1,) + a.shape[dim:])


class Squeeze(Function):
    """remove dims of size 1"""

    node_name = "SqueezeBackward0"
    is_view = True
    formula = r"squeeze: grad reshaped back"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.in_shape = a.data.shape
        return squeeze_array(a.data, dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)


def squeeze_array(a: np.ndarray, dims: tuple) -> np.ndarray:
    """`a` without those of `dims` that have size 1 (PyTorch leaves the others alone)."""
    shape = a.shape
    if not shape:  # a 0-d tensor: dim 0 (or -1) names it, and there is nothing to remove
        return a.view()
    if len(dims) == 1:  # one dim (no loop to run): squeeze(dim), and matmul's squeeze
        return a.squeeze(dims) if shape[dims[0]] == 1 else a.view()
    return a.squeeze(axis=tuple([d for d in dims if shape[d] == 1]))


class SqueezeDim(Squeeze):
    """remove one dim of size 1"""

    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    """remove the given dims of size 1"""

    node_name = "SqueezeBackward4"  # the name PyTorch 2.13 gives squeeze(dims) in matmul


class Expand(Function):
    """broadcast to a larger shape (no copy)"""

    node_name = "ExpandBackward0"
    is_view = True
    formula = r"expand: grad summed over the expanded dims"

    @staticmethod
    def forward(ctx, a, shape):
        return np.broadcast_to(a.data, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad  # the engine sums the expanded dims away (sum_to), as for broadcasting


class Clone(Function):
    """a copy"""

    node_name = "CloneBackward0"
    formula = r"d(clone a)/da = 1"

    @staticmethod
    def forward(ctx, a):
        return a.data.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class _Indexing(Function):
    """a[key]: the gradient is scattered back into zeros of a's shape."""

    @staticmethod
    def forward(ctx, a, key):
        ctx.in_shape, ctx.key = a.data.shape, key
        return a.data[key]

    @staticmethod
    def backward(ctx, grad):
        return ScatterAdd.apply(grad, shape=ctx.in_shape, key=ctx.key)


class Select(_Indexing):
    """a[..., i, ...]: one index along one dim"""

    is_view = True
    node_name = "SelectBackward0"
    formula = r"select: grad placed at the selected index, zeros elsewhere"


class Slice(_Indexing):
    """a[..., i:j, ...]: a range along one dim"""

    is_view = True
    node_name = "SliceBackward0"
    formula = r"slice: grad placed in the slice, zeros elsewhere"


class Index(_Indexing):
    """a[indices] or a[mask]: picked elements (a copy)"""

    node_name = "IndexBackward0"
    formula = r"index: grad added at each picked position (repeats add up)"


class ScatterAdd(Function):
    """zeros of `shape` with g added at `key` (the backward of indexing)"""

    node_name = "IndexPutBackward0"
    formula = r"d(scatter g)/dg = the same positions picked again"

    @staticmethod
    def forward(ctx, g, shape, key):
        ctx.key = key
        out = np.zeros(shape, dtype=g.data.dtype)
        np.add.at(out, key, g.data)
        return out

    @staticmethod
    def backward(ctx, grad, *_):
        return grad[ctx.key]


class Cat(Function):
    """join tensors along an existing dim"""

    node_name = "CatBackward0"
    formula = r"cat: grad split back into the pieces"

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        ctx.dim = dim
        ctx.sizes = [unwrap(t).shape[dim] for t in tensors]
        return np.concatenate([unwrap(t) for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for size, needed in zip(ctx.sizes, ctx.needs_input_grad):
            grads.append(grad.narrow(ctx.dim, start, size) if needed else None)
            start += size
        return tuple(grads)


class Stack(Function):
    """join tensors along a new dim"""

    node_name = "StackBackward0"
    formula = r"stack: grad unstacked into the pieces"

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        ctx.dim = dim
        return np.stack([unwrap(t) for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad.select(ctx.dim, i) if needed else None
                     for i, needed in enumerate(ctx.needs_input_grad))
