"""In-place ops on views, recorded as PyTorch records them: the base is rebased, every view
of it follows.

A view shares its base's memory, so changing one in place changes the other. PyTorch keeps
both graphs right:

- An in-place op on a view gives the base a `CopySlices` node: the view's region of the base
  now comes from the op, the rest from the old base.
- Every view of that base then reads as `AsStridedBackward0` of the new base: its window into
  the base's memory, by position.

Without this step a view made before the change would keep its old grad_fn, and its gradient
would silently skip the op: `y = x * 2; v = y[0]; y.mul_(3); v.backward()` gives x.grad 2, not 6.

The window is a numpy array of flat positions in the base (`positions`), so any view works:
slices, transposes, diagonals, expands.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import hooks
from minigrad.autograd import (
    tensor as _tensor,  # (resolved at call time: tensor.py imports the ops)
)
from minigrad.autograd.forward_ad import copied, write_tangent
from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.tangent_rules import linear

MULTI_VIEW = ("Output {nr} of {op} is a view and is being modified inplace. This view is the "
              "output of a function that returns multiple views. Such functions do not allow "
              "the output views to be modified inplace. You should replace the inplace "
              "operation by an out-of-place one.")
LEAF_VIEW = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def positions(view: np.ndarray, base: np.ndarray) -> np.ndarray | None:
    """For each element of `view`, the flat position (in C order, as `base.reshape(-1)` reads
    it) of the element of `base` whose memory it shares. None when base's memory is not one
    block (neither C- nor Fortran-contiguous: `x.t() * 2` is Fortran-ordered)."""
    if not (base.flags.c_contiguous or base.flags.f_contiguous):
        return None
    item = base.itemsize
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if offset % item or any(s % item for s in view.strides):
        return None
    logical = np.empty_like(base, dtype=np.int64)  # (laid out in memory as base is)
    logical[...] = np.arange(base.size).reshape(base.shape)
    memory = np.lib.stride_tricks.as_strided(logical, (base.size,), (logical.itemsize,))
    strides = tuple(s // item * logical.itemsize for s in view.strides)
    return np.lib.stride_tricks.as_strided(memory[offset // item:], view.shape, strides).copy()


class _AsStrided(Function):
    """a view's window into its base's memory, by flat position (as_strided)"""

    node_name = "AsStridedBackward0"
    formula = r"d (a.flat[p])/da = 1 at the positions p, 0 elsewhere (summed where p repeats)"
    source = None  # (read as AsStridedBackward0(a))
    gradients = ("{g} put back at the view's positions",)
    tangent = "{t0} at the view's positions"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, base, where):
        ctx.where, ctx.base_shape = where, base.array.shape
        return base.array.reshape(-1)[where]

    @staticmethod
    def backward(ctx, grad):
        return _PutBack.apply(grad, where=ctx.where, shape=ctx.base_shape)


class _PutBack(Function):
    """a view's gradient summed into a zero base at its positions (AsStrided's backward)"""

    node_name = "AsStridedScatterBackward0"
    formula = r"d (zeros.flat[p] += g)/dg = 1 at p"
    source = None
    gradients = ("{g} read at the view's positions",)
    tangent = "{t0} put back at the view's positions"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, grad, where, shape):
        ctx.where = where
        out = np.zeros(int(np.prod(shape)), grad.array.dtype)
        np.add.at(out, where.reshape(-1), grad.array.reshape(-1))
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return _AsStrided.apply(grad, where=ctx.where)


class _CopyIntoView(Function):
    """an in-place op's result written into the view's window of the base"""

    node_name = "CopySlices"  # (PyTorch: torch::autograd::CopySlices, a C++ node)
    formula = r"d (a.flat[p] = v)/da = 1 outside p, 0 at p ;  /dv = 1 at p"
    source = None  # (read as CopySlices(a, v))
    gradients = ("{g} with 0 at the view's positions", "{g} at the view's positions")
    tangent = "{t0} with {t1} at the view's positions"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, base, value, where):
        ctx.where = where
        out = base.array.copy()
        out.reshape(-1)[where] = value.array
        return out

    @staticmethod
    def backward(ctx, grad):
        kept = np.ones(grad.array.size, grad.array.dtype)
        kept[ctx.where.reshape(-1)] = 0
        return (grad * constant(kept.reshape(grad.array.shape)),
                _AsStrided.apply(grad, where=ctx.where))


def check_view_write(target: Any) -> None:
    """PyTorch's refusals of a recorded in-place op on a view."""
    base, fn = target._base, target.grad_fn
    if base._requires_grad and base.grad_fn is None:
        raise RuntimeError(LEAF_VIEW)
    if fn is not None and fn._num_outputs > 1:
        raise RuntimeError(MULTI_VIEW.format(nr=target._output_nr,
                                             op=fn.name().removesuffix("Backward0")))


def rebase_view(target: Any, op: Any, arg: Any) -> bool:
    """`op(target, arg)` for a view `target`, recorded on its base as PyTorch does; False
    when the view cannot be placed in its base (the caller refuses it)."""
    base = target._base
    where = positions(target.array, base.array)
    if where is None:
        return False
    old = _tensor.make(base.array.copy(), base.grad_fn, base._output_nr)
    old._requires_grad = base._requires_grad
    old._tangents = copied(base)  # (forward mode: base's own are written over)
    new_view = op(_AsStrided.apply(old, where=where), arg)
    if new_view.array.shape != target.array.shape:
        raise RuntimeError(f"output with shape {list(target.array.shape)} doesn't match the "
                           f"broadcast shape {list(new_view.array.shape)}")
    new_base = _CopyIntoView.apply(old, new_view, where=where)
    base.array[...] = new_base.array
    take_over(base, new_base)
    follow_base(base, also=target)
    return True


def take_over(tensor: Any, new: Any) -> None:
    """`tensor` now reads as `new`'s node (a rebase), its retained gradient moved along."""
    old_fn, old_nr = tensor.grad_fn, tensor._output_nr
    tensor.grad_fn, tensor._output_nr, tensor._requires_grad = new.grad_fn, 0, True
    if new._tangents is not None:  # forward mode: the tangent is new's too
        write_tangent(tensor, new)
    if tensor._retains_grad:  # .grad is the new value's gradient now, as in PyTorch
        hooks.move_retained(tensor, old_fn, old_nr)


def follow_base(base: Any, also: Any = None) -> None:
    """Every live recorded view of `base` (and `also`) reads as AsStridedBackward0 of
    base's new node, as PyTorch regenerates a view's grad_fn after its base changed."""
    views = set(base.__dict__.get("_views") or ())
    if also is not None:
        views.add(also)
    for view in views:
        where = positions(view.array, base.array)
        if where is not None and view.array.dtype.kind == "f":
            take_over(view, _AsStrided.apply(base, where=where))
