"""In-place ops: `add_`, `mul_`, `zero_`, `fill_`, `copy_`, `clamp_`, `normal_`, `a[key] = v`.

`inplace` runs the out-of-place op and writes its result into the target. When a gradient is
recorded the target takes over the new node as its grad_fn (PyTorch's rebase) and its version
counter goes up, so backward can tell when a value it saved was overwritten. The ops that exist
only in place (Fill, Zero, Copy) are defined here too.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from minigrad.autograd import broadcast, events
from minigrad.autograd import (
    tensor as _tensor,  # (resolved at call time: tensor.py imports the ops)
)
from minigrad.autograd.forward_ad import LEVELS, copied, top_level, write_tangent
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import INFERENCE, no_grad, state
from minigrad.ops import view_rebase
from minigrad.ops.arithmetic import add, div, mul, sub
from minigrad.ops.base import as_operand, constant, promote, unwrap
from minigrad.ops.reduce import sum_to_size
from minigrad.ops.selection import clamp
from minigrad.ops.tangent_rules import linear
from minigrad.ops.views import expand
from minigrad.surface import dtypes, meta


class Fill(Function, numpy_forward=True):
    """every element set to a number (fill_)"""

    node_name = "FillBackward2"  # PyTorch's name for fill_(number)
    formula = r"d fill(a)/da = 0"
    source = None  # (read as FillBackward2(a))
    gradients = ()
    tangent = "0"

    @staticmethod
    def forward(ctx, a, value):
        return np.full_like(a.array, value)

    @staticmethod
    def backward(ctx, grad):
        return constant(np.zeros_like(grad.array))

    @staticmethod
    def jvp(ctx, t):
        return constant(np.zeros_like(t.array))


class Zero(Fill):
    """every element set to 0 (zero_)"""

    node_name = "ZeroBackward0"
    formula = r"d zero(a)/da = 0"


class Copy(Function, numpy_forward=True):
    """a's elements replaced by src's (copy_)"""

    node_name = "CopyBackwards"
    formula = r"d copy(a, src)/da = 0 ;  /dsrc = 1"
    source = None  # (read as CopyBackwards(a, src))
    gradients = ()
    tangent = "{t1}"

    @staticmethod
    def forward(ctx, a, src):
        return np.broadcast_to(unwrap(src), a.array.shape).astype(a.array.dtype)

    @staticmethod
    def backward(ctx, grad):
        return constant(np.zeros_like(grad.array)), grad

    @staticmethod
    def jvp(ctx, t, tsrc):
        return (t * 0 + tsrc).to(ctx.inputs[0].array.dtype)


class CopySlices(Function, numpy_forward=True):
    """`a[key] = v` recorded: the elements at key come from v, the others from a"""

    node_name = "CopySlices"  # (PyTorch: torch::autograd::CopySlices, a C++ node)
    formula = r"d (a[key] = v)/da = 1 outside key, 0 at key ;  /dv = 1 at key"
    source = None  # (read as CopySlices(a, v))
    gradients = ("{g} with 0 at the written elements", "{g} at the written elements")
    tangent = "{t0} with {t1} at key"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, value, key):
        out = a.array.copy()
        out[key] = unwrap(value)
        ctx.key, ctx.value_shape = key, np.shape(unwrap(value))
        return out

    @staticmethod
    def backward(ctx, grad):
        kept = np.ones(grad.array.shape, dtype=grad.array.dtype)
        kept[ctx.key] = 0
        return grad * constant(kept), sum_to_size(grad[ctx.key], ctx.value_shape)


class IndexPut(CopySlices):
    """`a[index] = v` with an index tensor or list: v's elements at index, a's elsewhere"""

    node_name = "IndexPutBackward0"


def _advanced(key: Any) -> bool:
    return any(isinstance(k, np.ndarray | list) for k in (key if isinstance(key, tuple) else
                                                          (key,)))


def copy_slices(input: Any, value: Any, key: Any) -> Any:
    """`input[key] = value` as a new tensor, recorded as PyTorch records it: IndexPutBackward0
    for an index tensor or list, CopyBackwards when key is the whole tensor (`a[:] = v`),
    CopySlices otherwise."""
    if _advanced(key):
        return IndexPut.apply(input, as_operand(value), key=key)
    view = input.array[key]
    if isinstance(value, _tensor.Tensor) and value.array.shape != view.shape:
        value = expand(value, *view.shape)  # (PyTorch expands the value first)
    if view.shape == input.array.shape and view.strides == input.array.strides and \
            view.__array_interface__["data"] == input.array.__array_interface__["data"]:
        return copy(input, value)
    return CopySlices.apply(input, as_operand(value), key=key)


def _check_index_put(target: Any, key: Any, value: Any) -> None:
    """PyTorch's index_put_ takes no value of another dtype (slices cast it, silently)."""
    if _advanced(key) and isinstance(value, _tensor.Tensor) and \
            value.array.dtype != target.array.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{dtypes.TORCH_NAMES[target.array.dtype]} for the destination and "
            f"{dtypes.TORCH_NAMES[value.array.dtype]} for the source.")


def zero(input: Any, _: Any = None) -> Any:
    return Zero.apply(input, value=0)


def fill(input: Any, value: Any) -> Any:
    return Fill.apply(input, value=unwrap(value))


def copy(input: Any, src: Any) -> Any:
    src = as_operand(src)
    shape, other = input.array.shape, np.shape(unwrap(src))
    if other != shape:
        mismatch = broadcast.size_mismatch(shape, other)
        if mismatch:
            raise RuntimeError(mismatch)
        _write_check(input, np.broadcast_shapes(shape, other))
    return Copy.apply(input, src)


def clamp_to(input: Any, bounds: tuple) -> Any:
    return clamp(input, *bounds)


def fill_random(input: Any, how: tuple) -> Any:
    from minigrad.surface import random

    kind, a, b, generator = how
    shape, dtype = input.array.shape, input.array.dtype
    rng = random.numpy_rng(generator, f"{kind}_")
    values = rng.normal(a, b, shape) if kind == "normal" else rng.uniform(a, b, shape)
    return constant(values.astype(dtype))


LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked).")


INFERENCE_IN_PLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


def _across_devices(target: Any, op: Any, arg: Any) -> Any:
    """`arg` for an in-place op between the meta device and the CPU: a CPU tensor copied onto
    a meta one goes there first, as in PyTorch; a meta tensor has no values for a CPU one."""
    if not meta.is_meta(target.array):
        raise NotImplementedError(meta.NO_DATA)
    copies = getattr(op, "func", op) in (copy, copy_slices)  # (a[key] = v: a partial)
    return arg.to("meta") if copies else arg  # (other ops: PyTorch's error, Function.apply's)


def inplace(target: Any, op: Any, arg: Any) -> Any:
    """Run `op(target, arg)` and write the result into `target` (add_, mul_, zero_, ...).

    When recording, the op is recorded on a copy of the old value and `target` takes over
    the new node as its grad_fn, as PyTorch rebases an in-place result. The version counter
    goes up, so backward can tell when a value it saved was overwritten.
    """
    recording, tensor_arg = False, isinstance(arg, _tensor.Tensor)
    if meta.in_use and tensor_arg and meta.is_meta(target.array) != meta.is_meta(arg.array):
        arg = _across_devices(target, op, arg)
    if target._inference:
        _check_inference(target)
    if state.grad_enabled:  # (under no_grad, an optimizer's update, there is nothing to check)
        recording = target._requires_grad or (tensor_arg and arg._requires_grad)
        _check_may_write(target, recording)
    dual = LEVELS.visible and top_level((target, arg)) >= 0  # forward mode: tangents move too
    ufunc = None if recording or dual else _IN_PLACE_UFUNCS.get(op)
    if events.listening():  # (a trace copies what it shows of target before it changes)
        events.emit(events.InPlaceChange(target))
    if recording and target._base is not None:  # a view: its base is rebased
        target._shared_version()
        _write_check(target, target.array.shape)  # (an expanded view: not writable)
        if not view_rebase.rebase_view(target, op, arg):
            raise RuntimeError(UNPLACED_VIEW)
    elif recording:
        target._shared_version()  # (before it takes over the new node: its node may have saved it)
        old = _tensor.make(target.array.copy(), target.grad_fn, target._output_nr)
        old._requires_grad = target._requires_grad
        old._tangents = copied(target)  # (target's own are written over)
        if target.grad_fn is None and target._requires_grad:
            old._grad_acc = target._accumulator()
        new = op(old, arg)
        _write(target, new.array, op, arg)
        view_rebase.take_over(target, new)
        view_rebase.follow_base(target)  # its views read from the new node too
    elif ufunc is not None and (tensor_arg or isinstance(arg, (int, float))):
        # nothing to record: let numpy write straight into the tensor (an optimizer's update)
        value, data = arg.array if tensor_arg else arg, target.array
        if data.dtype.kind != "f" or tensor_arg and value.dtype is not data.dtype:
            # PyTorch's promotion, then its rule for writing the result back: within or up a
            # category only (`uint8.add_(int8)` wraps; `int.add_(float)` is refused)
            x, value = promote(data, value, op.__name__)
            dtypes.check_cast(x.dtype, data.dtype)
        try:  # (out positionally; the result dtype is checked above)
            ufunc(data, value, data, casting="unsafe")
        except ValueError:  # another shape, or a read-only target: numpy refuses before
            # writing anything; say it in PyTorch's words
            shape, other = data.shape, np.shape(value)
            try:
                result_shape = np.broadcast_shapes(shape, other)
            except ValueError:
                raise RuntimeError(broadcast.broadcast_message(op.__name__, shape, other)) from None
            _write_check(target, result_shape)
            raise
    else:
        with no_grad():
            new = op(target, arg)
        _write(target, new.array, op, arg)
        if dual:
            write_tangent(target, new)
    target._bump_version()
    return target


def check_writable(target: Any) -> None:
    """PyTorch's error for a tensor that no in-place change may write (an expanded or
    read-only array, an inference tensor outside inference mode): what an optimizer step or
    a clipping checks of every tensor before it changes the first."""
    if target._inference:
        _check_inference(target)
    _write_check(target, target.array.shape)


def _check_inference(target: Any) -> None:
    if not INFERENCE.get():
        raise RuntimeError(INFERENCE_IN_PLACE)


def _check_may_write(target: Any, recording: bool) -> None:
    """PyTorch's refusals of an in-place change while grad mode is on."""
    if target._requires_grad and target.grad_fn is None:
        raise RuntimeError(LEAF_INPLACE)
    base = target._base
    if base is not None and base._requires_grad and not target._requires_grad \
            and target.grad_fn is None and base.grad_fn is not None:
        raise RuntimeError(NO_GRAD_VIEW_INPLACE)
    if recording and base is not None:
        view_rebase.check_view_write(target)


UNPLACED_VIEW = ("minigrad cannot record this in-place operation on a view: the tensor it is a "
                 "view of is not laid out in order (not C-contiguous). Use the out-of-place op "
                 "(e.g. `y = y * 2` instead of `y.mul_(2)`).")


# add/sub/mul/div and the numpy ufuncs that write their result straight into an array
_IN_PLACE_UFUNCS = {add: np.add, sub: np.subtract, mul: np.multiply, div: np.true_divide}


def _write(target: Any, values: np.ndarray, op: Any = None, arg: Any = None) -> None:
    _write_check(target, values.shape)
    dtypes.check_cast(values.dtype, target.array.dtype, c_name=op is clamp_to and not any(
        isinstance(b, _tensor.Tensor) for b in arg))
    target.array[...] = values


def _write_check(target: Any, result_shape: tuple) -> None:
    """An in-place result must have the target's shape, and the target must be writable."""
    if tuple(result_shape) != target.array.shape:
        raise RuntimeError(f"output with shape {list(target.array.shape)} doesn't match the "
                           f"broadcast shape {list(result_shape)}")
    if not target.array.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. "
                           "Please clone() the tensor before performing the operation.")


def _a_view(key: Any) -> bool:
    """Whether `a[key]` is a view of part of `a` (ints and slices), not all of it or a copy."""
    parts = _keys(key)
    basic = all(k is None or k is Ellipsis or isinstance(k, int | np.integer | slice)
                and not isinstance(k, bool) for k in parts)
    return basic and any(k is not Ellipsis and k != slice(None) for k in parts)


def _keys(key: Any) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def setitem_(target: Any, key: Any, value: Any) -> None:
    """`a[key] = value`. Where a gradient is recorded (a or value requires grad) it is an
    in-place op like the others: a takes over a CopySlices node (IndexPutBackward0 for an
    index tensor), whose backward sends the gradient at key to value and the rest to a."""
    if meta.in_use and not meta.is_meta(target.array) and any(
            meta.is_meta(getattr(t, "array", None)) for t in (value, *_keys(key))):
        raise NotImplementedError(meta.NO_DATA)  # (a meta value or index has no values)
    key = tuple(unwrap(k) for k in key) if isinstance(key, tuple) else unwrap(key)
    _check_index_put(target, key, value)
    if state.grad_enabled and target._requires_grad and target.grad_fn is None and \
            _a_view(key):  # (PyTorch writes through the view `a[key]`: it names that)
        raise RuntimeError("a view of " + LEAF_INPLACE)
    if target._inference:
        _check_inference(target)
    value_needs_grad = isinstance(value, _tensor.Tensor) and value._requires_grad
    if state.grad_enabled and (target._requires_grad or value_needs_grad) or (
            LEVELS.visible and top_level((target, value)) >= 0):
        inplace(target, functools.partial(copy_slices, key=key), value)
        return
    if events.listening():
        events.emit(events.InPlaceChange(target))
    target.array[key] = unwrap(value)
    target._bump_version()
