"""Shaping: split, chunk, unbind, tensor_split, narrow_copy, flip, roll, repeat,
repeat_interleave, tile, movedim, unflatten; hstack/vstack/dstack are in stacking.py, and the
diagonal family (diagonal, diag, diag_embed, tril, triu, unfold) in ops/diagonals.py.

split, chunk and unbind return views of the input that share one node (`output_nr` 0, 1, ...),
as PyTorch's do; their backward joins the pieces' gradients back (zeros for unused pieces).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant, normalize_dim
from minigrad.ops.diagonals import diag, diag_embed, diagonal, tril, triu
from minigrad.ops.gathering import index_select
from minigrad.ops.index import ScatterAdd, Slice, cat, stack
from minigrad.ops.tangent_rules import linear
from minigrad.ops.view_checks import shape_arg
from minigrad.ops.views import clone, permute, reshape, unsqueeze, view
from minigrad.surface import dtypes, meta

# the public functions: minigrad.split, ... (re-exported by ops/ and minigrad/)
__all__ = ["chunk", "diag", "diag_embed", "diagonal", "flip", "fliplr", "flipud",
           "moveaxis", "movedim", "narrow_copy", "repeat_interleave", "roll", "split",
           "tensor_split", "tile", "tril", "triu", "unbind", "unflatten", "unsafe_chunk"]


class Split(Function, numpy_forward=True):
    """pieces of one size along dim (the last may be smaller): views of the input"""

    node_name = "SplitBackward0"
    is_view = True
    formula = r"split: the pieces' grads joined back along dim"
    source = "{0}.split({split_size}, {dim})"
    gradients = ()
    tangent = "{t0}.split({split_size}, {dim})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, sizes, dim, split_size=None, split_sizes=None):
        """(split_size or split_sizes: what the call said, for the narration)"""
        ctx.dim = dim
        return tuple(np.split(a.array, np.cumsum(sizes)[:-1], axis=dim))

    @staticmethod
    def backward(ctx, *grads):
        return cat(list(grads), dim=ctx.dim)


class SplitWithSizes(Split):
    """pieces of the given sizes along dim: views of the input"""

    node_name = "SplitWithSizesBackward0"
    source = "{0}.split({split_sizes}, {dim})"


class UnsafeSplit(Split):
    """split of an input made just now (PyTorch's unsafe_split, in its RNN cells): no views"""

    node_name = "UnsafeSplitBackward0"
    is_view = False
    source = "{0}.unsafe_split({split_size}, {dim})"


class Unbind(Function, numpy_forward=True):
    """every slice along dim, the dim removed: views of the input"""

    node_name = "UnbindBackward0"
    is_view = True
    formula = r"unbind: the slices' grads stacked back along dim"
    source = "{0}.unbind({dim})"
    gradients = ()
    tangent = "{t0}.unbind({dim})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        lead = (slice(None),) * dim
        return tuple(a.array[lead + (i,)] for i in range(a.array.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(list(grads), dim=ctx.dim)


def split(tensor: Any, split_size_or_sections: Any, dim: int = 0, *, _op: type = Split
          ) -> tuple:
    """Pieces of `split_size` along `dim` (the last smaller if it must), or of each size of
    a list."""
    shape = tensor.array.shape
    dim = normalize_dim(dim, len(shape))
    n = shape[dim] if shape else 1
    if isinstance(split_size_or_sections, int | np.integer):
        size = int(split_size_or_sections)
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={size}")
        if size == 0 and n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
        return _op.apply(tensor, sizes=sizes, dim=dim, split_size=size)
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return SplitWithSizes.apply(tensor, sizes=sizes, dim=dim, split_sizes=sizes)


def chunk(input: Any, chunks: int, dim: int = 0, *, _op: type = Split) -> tuple:
    """`chunks` pieces (fewer if dim is too short) of equal size, the last maybe smaller:
    `split` with size ceil(n / chunks), SplitBackward0 as in PyTorch."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = normalize_dim(dim, input.array.ndim)
    return split(input, max(math.ceil(input.array.shape[dim] / chunks), 1), dim, _op=_op)


def unsafe_chunk(input: Any, chunks: int, dim: int = 0) -> tuple:
    """`chunk` whose pieces are not views (UnsafeSplitBackward0, as in PyTorch's RNN cells)"""
    return chunk(input, chunks, dim, _op=UnsafeSplit)


def unbind(input: Any, dim: int = 0) -> tuple:
    if not input.array.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = normalize_dim(dim, input.array.ndim)
    if not input.array.shape[dim]:
        return ()  # (no slices: nothing to record)
    return Unbind.apply(input, dim=dim)


def tensor_split(input: Any, indices_or_sections: Any = None, dim: int = 0, *,
                 sections: Any = None, indices: Any = None,
                 tensor_indices_or_sections: Any = None) -> tuple:
    """`sections` pieces as equal as can be (the first ones one longer), or the pieces between
    the given indices: each its own slice (SliceBackward0), as in PyTorch (whose keywords are
    `sections=`, `indices=` and `tensor_indices_or_sections=`)."""
    dim = normalize_dim(dim, input.array.ndim)
    n = input.array.shape[dim]
    given = [c for c in (indices_or_sections, sections, indices, tensor_indices_or_sections)
             if c is not None]
    if len(given) != 1:
        raise TypeError("tensor_split() takes one of sections, indices or "
                        "tensor_indices_or_sections")
    meta.refuse_values("tensor_split() at a tensor's indices", given[0])
    cuts = given[0].array if hasattr(given[0], "array") else given[0]
    if np.ndim(cuts) > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                           f"zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{np.ndim(cuts)} dims")
    if np.ndim(cuts) == 0:
        sections = int(cuts)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size, extra = divmod(n, sections)
        cuts = np.cumsum([size + 1] * extra + [size] * (sections - extra))[:-1]
    bounds = [0, *[int(c) for c in cuts], n]
    lead = (slice(None),) * dim
    return tuple(Slice.apply(input, key=lead + (slice(a or None, max(a, b)),))
                 for a, b in zip(bounds, bounds[1:]))


class NarrowCopy(Function, numpy_forward=True):
    """a copy of `length` elements from `start` along dim"""

    node_name = "NarrowCopyBackward0"
    formula = r"narrow_copy: grad placed in the slice, zeros elsewhere"
    source = "{0}.narrow_copy({dim}, {start}, {length})"
    gradients = ()
    tangent = "{t0}.narrow_copy({dim}, {start}, {length})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dim, start, length):
        ctx.in_shape, ctx.key = a.array.shape, (slice(None),) * dim + (slice(start, start +
                                                                              length),)
        return a.array[ctx.key].copy()

    @staticmethod
    def backward(ctx, grad):
        return ScatterAdd.apply(grad, shape=ctx.in_shape, key=ctx.key)


def narrow_copy(input: Any, dim: int, start: int, length: int) -> Any:
    dim = normalize_dim(dim, input.array.ndim)
    n = input.array.shape[dim]
    start = start + n if start < 0 else start
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return NarrowCopy.apply(input, dim=dim, start=start, length=length)


class Flip(Function, numpy_forward=True):
    """the order of elements reversed along dims (a copy)"""

    node_name = "FlipBackward0"
    formula = r"flip: grad flipped back along the same dims"
    source = "{0}.flip({axes})"
    gradients = ("{g}.flip({axes})",)
    tangent = "{t0}.flip({axes})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, axes):
        ctx.axes = axes
        return np.flip(a.array, axes).copy()

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, axes=ctx.axes)


def flip(input: Any, *order: Any, dims: Any = None) -> Any:
    dims = shape_arg(order, dims, "flip", "dims")
    axes = [normalize_dim(d, input.array.ndim) for d in dims]
    for d in axes:
        if axes.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return Flip.apply(input, axes=tuple(axes) if input.array.ndim else ())


def fliplr(input: Any) -> Any:
    if input.array.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Any) -> Any:
    if input.array.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Roll(Function, numpy_forward=True):
    """elements shifted along dims, those pushed off the end coming back at the start"""

    node_name = "RollBackward0"
    formula = r"roll: grad rolled back by the opposite shifts"
    source = "{0}.roll({shifts}, {axes})"
    gradients = ()
    tangent = "{t0}.roll({shifts}, {axes})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, shifts, axes):
        ctx.shifts, ctx.axes = shifts, axes
        return np.roll(a.array, shifts, axis=axes or None)

    @staticmethod
    def backward(ctx, grad):
        return Roll.apply(grad, shifts=tuple(-s for s in ctx.shifts), axes=ctx.axes)


def roll(input: Any, shifts: Any, dims: Any = None) -> Any:
    """Shift along `dims` (an int or a tuple, one shift each); without dims, the flattened
    tensor is shifted and given its shape back."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    axes = tuple(normalize_dim(d, input.array.ndim) for d in dims)
    return Roll.apply(input, shifts=shifts, axes=axes)


class Repeat(Function, numpy_forward=True):
    """the tensor tiled `repeats` times along each dim (a copy)"""

    node_name = "RepeatBackward0"
    formula = r"repeat: grad summed over the copies"
    source = "{0}.repeat({repeats})"
    gradients = ()
    tangent = "{t0}.repeat({repeats})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, repeats):
        ctx.in_shape, ctx.repeats = a.array.shape, repeats
        padded = (1,) * (len(repeats) - a.array.ndim) + a.array.shape
        return np.tile(a.array.reshape(padded), repeats)

    @staticmethod
    def backward(ctx, grad):
        padded = (1,) * (len(ctx.repeats) - len(ctx.in_shape)) + ctx.in_shape
        split = tuple(n for pair in zip(ctx.repeats, padded) for n in pair)
        copies = tuple(range(0, 2 * len(padded), 2))
        return grad.reshape(split).sum(copies).reshape(ctx.in_shape)


def repeat(input: Any, *sizes: Any, repeats: Any = None) -> Any:
    repeats = shape_arg(sizes, repeats, "repeat", "repeats")
    if len(repeats) < input.array.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - input.array.ndim) + input.array.shape
    shape = [r * n for r, n in zip(repeats, padded)]
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {shape}")
    return Repeat.apply(input, repeats=tuple(int(r) for r in repeats))


def tile(input: Any, dims: Any) -> Any:
    """`repeat`, with `dims` padded with 1s in front when shorter than the tensor's dims"""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return repeat(input, (1,) * (input.array.ndim - len(dims)) + dims)


def repeat_interleave(input: Any, repeats: Any, dim: int | None = None, *,
                      output_size: int | None = None) -> Any:
    """Each element (each slice along `dim`; of the flattened tensor without `dim`) repeated
    `repeats` times, or `repeats[i]` times for slice i. As PyTorch records it: a number is an
    unsqueeze, expand, clone and view; a tensor of repeats an index_select."""
    if dim is None:  # (a vector as it is: PyTorch flattens only other shapes)
        input, dim = input if input.array.ndim == 1 else reshape(input, -1), 0
    dim = normalize_dim(dim, input.array.ndim)
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        shape = input.array.shape
        wide = unsqueeze(input, dim + 1).expand(shape[:dim + 1] + (repeats,) + shape[dim + 1:])
        return view(clone(wide), shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1:])
    counts = repeats.array if hasattr(repeats, "array") else np.asanyarray(repeats)
    if counts.dtype.kind not in "iu":
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{dtypes.TORCH_NAMES[counts.dtype]}'")
    n = input.array.shape[dim]
    counts = np.broadcast_to(counts.reshape(-1), (n,)) if counts.size == 1 else counts
    if counts.ndim != 1 or counts.shape[0] != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.reshape(-1).shape[0]} and input.size("
                           f"{dim}) = {n}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return index_select(input, dim, constant(np.repeat(np.arange(n), counts)))


def movedim(input: Any, source: Any, destination: Any) -> Any:
    """The dims `source` moved to the positions `destination`, the others in their order: a
    permute (PermuteBackward0, as in PyTorch)."""
    ndim = input.array.ndim
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError(f"movedim() received an invalid combination of arguments - got "
                        f"({type(source).__name__}, {type(destination).__name__}), but expected "
                        f"one of:\n * (int source, int destination)\n * (tuple of ints source, "
                        f"tuple of ints destination)")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    src_n = [normalize_dim(d, ndim) for d in src]
    dst_n = [normalize_dim(d, ndim) for d in dst]
    for name, given, dims in (("source", src, src_n), ("destination", dst, dst_n)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    order = [d for d in range(ndim) if d not in src_n]
    for d, s in sorted(zip(dst_n, src_n)):
        order.insert(d, s)
    return permute(input, order)


moveaxis = movedim


def unflatten(input: Any, dim: int, sizes: Any) -> Any:
    """Dim `dim` seen as several dims of `sizes` (one may be -1): a view."""
    shape = input.array.shape
    dim = normalize_dim(dim, len(shape))
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n, known = shape[dim], math.prod(s for s in sizes if s != -1)
    if -1 in sizes and known and n % known == 0:
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    if math.prod(sizes) != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({n}) in the input tensor")
    return view(input, shape[:dim] + sizes + shape[dim + 1:])
