"""View ops, with their functions: the same elements seen with another shape or order (view,
reshape, t, transpose, permute, squeeze, unsqueeze, expand), and clone.

A view shares memory, and so the version counter, with its input, as in PyTorch
(`Function.is_view`); its backward puts the gradient back into the input's shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import normalize_dims, tensor_input
from minigrad.ops.tangent_rules import linear
from minigrad.ops.view_checks import expanded_shape, flatten_dims, infer, permute_axes, shape_arg
from minigrad.surface.layouts import check_memory_format

# the public functions: minigrad.clone, ... (re-exported by ops/ and minigrad/)
__all__ = ["clone", "expand", "flatten", "permute", "reshape", "squeeze", "swapaxes", "swapdims",
           "t", "transpose", "unsqueeze"]


class View(Function, numpy_forward=True):
    """the same elements seen with another shape (no copy)"""

    node_name = "ViewBackward0"
    is_view = True
    formula = r"view: grad reshaped back to the input's shape"
    source = "{0}.view({shape})"
    gradients = ()
    tangent = "{t0}.view({shape})"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a.array.shape
        return view_array(a.array, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)

    @staticmethod
    def jvp(ctx, t):
        return t.reshape(ctx.shape)  # (a view of t where t's layout allows, as the output is of a)


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
    """a reshape of a new result (PyTorch's _unsafe_view): as in PyTorch, not a view"""

    node_name = "UnsafeViewBackward0"
    is_view = False
    source = "{0}.reshape({shape})"


class ReshapeAlias(View):
    """a reshape that can view non-contiguous memory (PyTorch's _reshape_alias)"""

    node_name = "ReshapeAliasBackward0"
    source = None  # (read as ReshapeAliasBackward0(a))


class T(Function, numpy_forward=True):
    """transpose of a matrix (t())"""

    node_name = "TBackward0"
    is_view = True
    formula = r"d(a.t())/da: grad.t()"
    source = "{0}.t()"
    gradients = ()
    tangent = "{t0}.t()"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a):
        return a.array.T

    @staticmethod
    def backward(ctx, grad):
        return grad.t()

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradient as `backward`, in numpy alone (used when nothing is recorded):
        the transposed array, which the engine wraps without grad's version counter (it only
        reads it, and copies it into .grad if it is not contiguous)."""
        return grad.T


class Transpose(Function, numpy_forward=True):
    """swap two dims"""

    node_name = "TransposeBackward0"
    is_view = True
    formula = r"d(a.transpose(i, j))/da: grad.transpose(i, j)"
    source = "{0}.transpose({d0}, {d1})"
    gradients = ()
    tangent = "{t0}.transpose({d0}, {d1})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, d0, d1):
        ctx.d0, ctx.d1 = d0, d1
        return a.array.swapaxes(d0, d1) if a.array.ndim else a.array.view()  # (0-d: itself)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(ctx.d0, ctx.d1)


class Permute(Function, numpy_forward=True):
    """reorder the dims"""

    node_name = "PermuteBackward0"
    is_view = True
    formula = r"permute: grad permuted back"
    source = "{0}.permute{permutation}"
    gradients = ()
    tangent = "{t0}.permute{permutation}"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dims):
        ctx.inverse = tuple(np.argsort(dims))
        return np.transpose(a.array, dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(*ctx.inverse)


class Unsqueeze(Function, numpy_forward=True):
    """insert a dim of size 1"""

    node_name = "UnsqueezeBackward0"
    is_view = True
    formula = r"unsqueeze: grad squeezed back"
    source = "{0}.unsqueeze({dim})"
    gradients = ()
    tangent = "{t0}.unsqueeze({dim})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return unsqueeze_array(a.array, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim)


def unsqueeze_array(a: np.ndarray, dim: int) -> np.ndarray:
    """`np.expand_dims(a, dim)` for a dim in [0, a.ndim], without its argument checks (~3x
    faster): inserting a size-1 dim is always a view."""
    return a.reshape(a.shape[:dim] + (1,) + a.shape[dim:])


class Squeeze(Function, numpy_forward=True):
    """remove dims of size 1"""

    node_name = "SqueezeBackward0"
    is_view = True
    formula = r"squeeze: grad reshaped back"
    source = "{0}.squeeze()"
    gradients = ()
    tangent = "{t0}.squeeze()"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dims):
        ctx.in_shape = a.array.shape
        return squeeze_array(a.array, dims)

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

    node_name = "SqueezeBackward2"


class SqueezeFresh(Squeeze):
    """remove size-1 dims of a new result (in matmul), in place as PyTorch: not a view"""

    node_name = "SqueezeBackward4"  # PyTorch's squeeze_(dims)
    is_view = False


class Expand(Function, numpy_forward=True):
    """broadcast to a larger shape (no copy)"""

    node_name = "ExpandBackward0"
    is_view = True
    formula = r"expand: grad summed over the expanded dims"
    source = "{0}.expand({shape})"
    gradients = ()
    tangent = "{t0}.expand({shape})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, shape):
        return np.broadcast_to(a.array, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad  # the engine sums the expanded dims away (sum_to), as for broadcasting


class Clone(Function, numpy_forward=True):
    """a copy"""

    node_name = "CloneBackward0"
    formula = r"d(clone a)/da = 1"
    source = "{0}.clone()"
    gradients = ()
    tangent = "{t0}.clone()"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a):
        return a.array.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


def view(input: Any, *sizes: Any, size: Any = None) -> Any:
    shape = shape_arg(sizes, size, "view", "size")
    shape = infer(shape, input.array.size, shape)
    return View.apply(input, shape=shape)


def unsafe_view(input: Any, shape: tuple) -> Any:
    return UnsafeView.apply(input, shape=infer(tuple(shape), input.array.size, shape))


def reshape(input: Any, *sizes: Any, shape: Any = None) -> Any:
    """view when the memory layout allows it, else clone then view (as PyTorch)"""
    tensor_input("reshape", input)
    shape = shape_arg(sizes, shape, "reshape", "shape")
    shape = infer(shape, input.array.size, shape)
    probe = input.array.view()
    try:
        probe.shape = shape
    except AttributeError:
        return unsafe_view(clone(input), shape)
    if not input.array.flags.c_contiguous:  # a view of strided memory: PyTorch's _reshape_alias
        return ReshapeAlias.apply(input, shape=shape)
    return View.apply(input, shape=shape)


def view_as(input: Any, other: Any) -> Any:
    tensor_input("view_as", other, "other")  # (a method: self is not counted)
    return view(input, other.array.shape)


def reshape_as(input: Any, other: Any) -> Any:
    tensor_input("reshape_as", other, "other")  # (a method: self is not counted)
    return reshape(input, other.array.shape)


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    tensor_input("flatten", input)
    shape = input.array.shape
    start, end = flatten_dims(len(shape), start_dim, end_dim)
    if not shape:
        return reshape(input, (1,))
    if start == end:
        return input
    middle = int(np.prod(shape[start:end + 1]))
    return reshape(input, shape[:start] + (middle,) + shape[end + 1:])


def t(input: Any) -> Any:
    tensor_input("t", input)
    data = input.array
    if data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{data.ndim}D")
    return T.apply(input)


def transpose(input: Any, dim0: int, dim1: int) -> Any:
    tensor_input("transpose", input)
    for d in (dim0, dim1):  # (PyTorch's error for a dim out of range)
        normalize_dims(d, input.array.ndim)
    return Transpose.apply(input, d0=dim0, d1=dim1)


def swapaxes(input: Any, axis0: int, axis1: int) -> Any:
    """`transpose`, under numpy's names (PyTorch's `swapaxes(input, axis0, axis1)`)"""
    return transpose(input, axis0, axis1)


swapdims = transpose


def permute(input: Any, *order: Any, dims: Any = None) -> Any:
    tensor_input("permute", input)
    dims = shape_arg(order, dims, "permute", "dims")
    return Permute.apply(input, dims=permute_axes(dims, input.array.ndim))


def T_property(input: Any) -> Any:
    """`x.T`: all dims reversed (PermuteBackward0, as in PyTorch)"""
    return Permute.apply(input, dims=tuple(reversed(range(input.array.ndim))))


def unsqueeze(input: Any, dim: int) -> Any:
    tensor_input("unsqueeze", input)
    n = input.array.ndim + 1  # the new dim may go anywhere from before the first to after the last
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    dim %= n
    return Unsqueeze.apply(input, dim=dim)


def squeeze(input: Any, dim: Any = None) -> Any:
    tensor_input("squeeze", input)
    if dim is None:
        return _squeeze(Squeeze, input, tuple(range(input.array.ndim)))
    if isinstance(dim, int):
        return _squeeze(SqueezeDim, input, normalize_dims(dim, input.array.ndim))
    return squeeze_dims(input, dim)


def squeeze_dims(input: Any, dims: tuple) -> Any:
    return _squeeze(SqueezeDims, input, normalize_dims(dims, input.array.ndim))


def squeeze_fresh(input: Any, dims: tuple) -> Any:
    """`squeeze_dims` of a result made just now: not a view (see SqueezeFresh)."""
    return _squeeze(SqueezeFresh, input, normalize_dims(dims, input.array.ndim))


def _squeeze(op: Any, input: Any, dims: tuple) -> Any:
    return op.apply(input, dims=dims)


def expand(input: Any, *sizes: Any, size: Any = None, implicit: bool = False) -> Any:
    tensor_input("expand", input)
    sizes = shape_arg(sizes, size, "expand", "size")
    shape = input.array.shape
    full = expanded_shape(shape, sizes, input.array.dtype)
    return Expand.apply(input, shape=full)


def expand_as(input: Any, other: Any) -> Any:
    tensor_input("expand_as", other, "other")  # (a method: self is not counted)
    return expand(input, other.array.shape)


def clone(input: Any, *, memory_format: Any = None) -> Any:
    """a copy (CloneBackward0); `memory_format=` checked and kept (see surface/layouts.py)"""
    check_memory_format(memory_format, "clone", input.array.ndim)
    return Clone.apply(input)


def contiguous(input: Any, memory_format: Any = None) -> Any:
    check_memory_format(memory_format, "contiguous", input.array.ndim)
    return input if input.array.flags.c_contiguous else clone(input)
