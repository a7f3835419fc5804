"""Every op as a function with PyTorch's signature: `minigrad.mul(a, b)`, `minigrad.sum(x, 1)`.

The Tensor methods and operators call these; these call `Function.apply` of the op classes in
`elementwise`, `reduce`, `shape`, `linalg` and `nn_ops`.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minigrad import tensor as _tensor  # Tensor is looked up at call time (it imports us)
from minigrad.function import Function
from minigrad.grad_mode import no_grad, state
from minigrad.ops import elementwise as ew
from minigrad.ops import linalg, nn_ops
from minigrad.ops import reduce as red
from minigrad.ops import shape as sh
from minigrad.ops.base import as_operand, broadcast_message, constant, is_tensor, unwrap
from minigrad.ops.linalg import matmul
from minigrad.ops.reduce import ValuesIndices, reduce_dims

__all__ = ["matmul", "constant", "as_operand"]


# -- elementwise --------------------------------------------------------------------------
def _binary(fn: Any, name: str, a: Any, b: Any, **config: Any) -> Any:
    """Apply a two-input op; shapes that do not broadcast get an error naming both."""
    Tensor = _tensor.Tensor
    if not isinstance(a, Tensor):
        a = as_operand(a)
    if isinstance(b, float):
        if isinstance(a, Tensor) and a.data.dtype.kind in "iub":
            a = cast(a, np.float32)  # int tensor * 2.5 is float32 in PyTorch, not float64
    elif not isinstance(b, Tensor):
        b = as_operand(b)
    try:
        return fn.apply(a, b, **config)
    except ValueError as exc:
        sa, sb = np.shape(unwrap(a)), np.shape(unwrap(b))
        try:
            np.broadcast_shapes(sa, sb)
        except ValueError:
            raise RuntimeError(broadcast_message(name, sa, sb)) from None
        raise exc


def add(input: Any, other: Any, alpha: float = 1) -> Any:
    """input + alpha * other"""
    if alpha != 1:  # one AddBackward0 node, as in PyTorch
        return _binary(ew.AddScaled, "add", input, other, alpha=alpha)
    return _binary(ew.Add, "add", input, other)


def sub(input: Any, other: Any, alpha: float = 1) -> Any:
    """input - alpha * other"""
    if alpha != 1:  # one SubBackward0 node, as in PyTorch
        return _binary(ew.SubScaled, "sub", input, other, alpha=alpha)
    return _binary(ew.Sub, "sub", input, other)


subtract = sub


def rsub(input: Any, other: Any) -> Any:
    """other - input (`1 - x`)"""
    if is_tensor(other) or isinstance(other, np.ndarray):
        return sub(other, input)
    return ew.Rsub.apply(input, c=other)


def mul(input: Any, other: Any) -> Any:
    """input * other"""
    return _binary(ew.Mul, "mul", input, other)


multiply = mul


def div(input: Any, other: Any) -> Any:
    """input / other"""
    return _binary(ew.Div, "div", input, other)


divide = true_divide = div


def pow(input: Any, exponent: Any) -> Any:
    """input ** exponent (tensor ** number, tensor ** tensor, number ** tensor)"""
    if not is_tensor(input):
        return ew.RPow.apply(exponent, base=input)
    if is_tensor(exponent) or isinstance(exponent, np.ndarray):
        return _binary(ew.PowTensor, "pow", input, exponent)
    return ew.Pow.apply(input, p=exponent)


def neg(input: Any) -> Any:
    return ew.Neg.apply(input)


negative = neg


def reciprocal(input: Any) -> Any:
    return ew.Reciprocal.apply(input)


def square(input: Any) -> Any:
    return pow(input, 2)


def exp(input: Any) -> Any:
    return ew.Exp.apply(input)


def log(input: Any) -> Any:
    return ew.Log.apply(input)


def sqrt(input: Any) -> Any:
    return ew.Sqrt.apply(input)


def abs(input: Any) -> Any:
    return ew.Abs.apply(input)


def tanh(input: Any) -> Any:
    return ew.Tanh.apply(input)


def sigmoid(input: Any) -> Any:
    return ew.Sigmoid.apply(input)


def relu(input: Any) -> Any:
    return ew.Relu.apply(input)


def sin(input: Any) -> Any:
    return ew.Sin.apply(input)


def cos(input: Any) -> Any:
    return ew.Cos.apply(input)


def maximum(input: Any, other: Any) -> Any:
    return _binary(ew.Maximum, "maximum", input, other)


def minimum(input: Any, other: Any) -> Any:
    return _binary(ew.Minimum, "minimum", input, other)


def where(condition: Any, input: Any, other: Any) -> Any:
    """elementwise `input if condition else other`"""
    return ew.where(condition, as_operand(input), as_operand(other))


def clamp(input: Any, min: Any = None, max: Any = None) -> Any:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return ew.Clamp.apply(input, lo=min, hi=max)


clip = clamp


def compare(np_fn: Any, a: Any, b: Any) -> Any:
    """A comparison: a boolean tensor, never recorded."""
    return constant(np_fn(unwrap(a), unwrap(as_operand(b))))


# -- reductions ---------------------------------------------------------------------------
def sum(input: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """sum of all elements, or along `dim` (an int or a tuple of ints)"""
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return red.Sum.apply(input) if not keepdim else red.SumDim.apply(
            input, dims=reduce_dims(input, None), keepdim=True)
    return red.SumDim.apply(input, dims=reduce_dims(input, dim), keepdim=keepdim)


def mean(input: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """mean of all elements, or along `dim`"""
    if dtype is not None:
        input = input.to(dtype)
    if input.data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.data.dtype.name.capitalize()}")
    if dim is None and not keepdim:
        return red.Mean.apply(input)
    return red.MeanDim.apply(input, dims=reduce_dims(input, dim), keepdim=keepdim)


def max(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """max of all elements; with `dim`, (values, indices); with a tensor, `maximum`"""
    if is_tensor(dim):
        return maximum(input, dim)
    if dim is None:
        return red.MaxAll.apply(input)
    return ValuesIndices(*red.MaxDim.apply(
        input, dim=reduce_dims(input, dim)[0], keepdim=keepdim))


def min(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """min of all elements; with `dim`, (values, indices); with a tensor, `minimum`"""
    if is_tensor(dim):
        return minimum(input, dim)
    if dim is None:
        return red.MinAll.apply(input)
    return ValuesIndices(*red.MinDim.apply(
        input, dim=reduce_dims(input, dim)[0], keepdim=keepdim))


def amax(input: Any, dim: Any = (), keepdim: bool = False) -> Any:
    return red.Amax.apply(
        input, dims=reduce_dims(input, dim if dim != () else None), keepdim=keepdim)


def amin(input: Any, dim: Any = (), keepdim: bool = False) -> Any:
    return red.Amin.apply(
        input, dims=reduce_dims(input, dim if dim != () else None), keepdim=keepdim)


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Any:
    """the Euclidean (2-)norm of all elements, or along `dim`: `p.grad.norm()`"""
    if p not in ("fro", 2, 2.0):
        raise NotImplementedError(f"minigrad's norm computes the 2-norm only, not p={p!r}")
    return red.Norm.apply(input, dims=reduce_dims(input, dim), keepdim=keepdim)


def argmax(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return constant(np.argmax(unwrap(input), axis=dim, keepdims=keepdim))


def argmin(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return constant(np.argmin(unwrap(input), axis=dim, keepdims=keepdim))


def sum_to_size(input: Any, *size: Any) -> Any:
    """sum the broadcast dims away (as PyTorch: sum(dims, keepdim=True), then view if needed)"""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    if input.data.shape == shape:
        return input
    lead = input.data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and input.data.shape[lead + i] != 1)
    out = red.SumDim.apply(input, dims=dims, keepdim=True)
    return view(out, shape) if lead else out


# -- matrix products ------------------------------------------------------------------------
def mm(input: Any, mat2: Any) -> Any:
    return linalg.Mm.apply(input, mat2)


def mv(input: Any, vec: Any) -> Any:
    return linalg.Mv.apply(input, vec)


def dot(input: Any, other: Any) -> Any:
    return linalg.Dot.apply(input, other)


def bmm(input: Any, mat2: Any) -> Any:
    return linalg.Bmm.apply(input, mat2)


# -- shapes ----------------------------------------------------------------------------------
def _shape_arg(size: tuple) -> tuple:
    """`view(2, 3)` and `view((2, 3))` both mean the shape (2, 3)."""
    if len(size) == 1 and not isinstance(size[0], int | np.integer):
        return tuple(size[0])
    return tuple(size)


def _infer(shape: tuple, numel: int, given: tuple) -> tuple:
    if -1 in shape:
        known = int(np.prod([n for n in shape if n != -1]))
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(given)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if n == -1 else n for n in shape)
    if int(np.prod(shape)) != numel:
        raise RuntimeError(f"shape '{list(given)}' is invalid for input of size {numel}")
    return shape


def view(input: Any, *shape: Any) -> Any:
    shape = _shape_arg(shape)
    return sh.View.apply(input, shape=_infer(shape, input.data.size, shape))


def unsafe_view(input: Any, shape: tuple) -> Any:
    return sh.UnsafeView.apply(input, shape=_infer(tuple(shape), input.data.size, shape))


def reshape(input: Any, *shape: Any) -> Any:
    """view when the memory layout allows it, else clone then view (as PyTorch)"""
    shape = _infer(_shape_arg(shape), input.data.size, _shape_arg(shape))
    probe = input.data.view()
    try:
        probe.shape = shape
    except AttributeError:
        return unsafe_view(clone(input), shape)
    if not input.data.flags.c_contiguous:  # a view of strided memory: PyTorch's _reshape_alias
        return sh.ReshapeAlias.apply(input, shape=shape)
    return sh.View.apply(input, shape=shape)


def view_as(input: Any, other: Any) -> Any:
    return view(input, other.data.shape)


def reshape_as(input: Any, other: Any) -> Any:
    return reshape(input, other.data.shape)


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    shape = input.data.shape
    if not shape:
        return reshape(input, (1,))
    start, end = start_dim % len(shape), end_dim % len(shape)
    if start == end:
        return input
    middle = int(np.prod(shape[start:end + 1]))
    return reshape(input, shape[:start] + (middle,) + shape[end + 1:])


def t(input: Any) -> Any:
    if input.data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.data.ndim}D")
    return sh.T.apply(input)


def transpose(input: Any, dim0: int, dim1: int) -> Any:
    return sh.Transpose.apply(input, d0=dim0, d1=dim1)


swapaxes = transpose


def permute(input: Any, *dims: Any) -> Any:
    dims = _shape_arg(dims)
    if sorted(d % input.data.ndim for d in dims) != list(range(input.data.ndim)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.data.ndim} is not equal to len(dims) = "
                           f"{len(dims)}")
    return sh.Permute.apply(input, dims=tuple(d % input.data.ndim for d in dims))


def T_property(input: Any) -> Any:
    """`x.T`: all dims reversed (PermuteBackward0, as in PyTorch)"""
    return sh.Permute.apply(input, dims=tuple(reversed(range(input.data.ndim))))


def unsqueeze(input: Any, dim: int) -> Any:
    return sh.Unsqueeze.apply(input, dim=dim % (input.data.ndim + 1))


def squeeze(input: Any, dim: Any = None) -> Any:
    if dim is None:
        return sh.Squeeze.apply(input, dims=tuple(range(input.data.ndim)))
    if isinstance(dim, int):
        return sh.SqueezeDim.apply(input, dims=reduce_dims(input, dim))
    return squeeze_dims(input, dim)


def squeeze_dims(input: Any, dims: tuple) -> Any:
    return sh.SqueezeDims.apply(input, dims=reduce_dims(input, dims))


def expand(input: Any, *sizes: Any) -> Any:
    sizes = _shape_arg(sizes)
    shape = input.data.shape
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater "
                           f"or equal to the number of dimensions in the tensor ({len(shape)})")
    full = tuple(shape[i - lead] if n == -1 else n for i, n in enumerate(sizes))
    try:
        np.broadcast_shapes(shape, full)
    except ValueError:
        raise RuntimeError(f"expand: the shape {shape} cannot be expanded to {full}") from None
    return sh.Expand.apply(input, shape=full)


def expand_as(input: Any, other: Any) -> Any:
    return expand(input, other.data.shape)


def clone(input: Any) -> Any:
    return sh.Clone.apply(input)


def contiguous(input: Any) -> Any:
    return input if input.data.flags.c_contiguous else clone(input)


def _basic_key(k: Any) -> bool:
    return k is None or k is Ellipsis or isinstance(k, int | np.integer | slice) and not \
        isinstance(k, bool)


def getitem(input: Any, key: Any) -> Any:
    """`a[key]`: ints and slices become Select/Slice steps per dim, as PyTorch records them;
    integer arrays and boolean masks one Index step."""
    key = key if isinstance(key, tuple) else (key,)
    key = tuple(unwrap(k) for k in key)
    key = tuple(np.asarray(k) if isinstance(k, list) else k for k in key)
    if not builtins.all(_basic_key(k) for k in key):
        return sh.Index.apply(input, key=key[0] if len(key) == 1 else key)
    if Ellipsis in key:
        i = key.index(Ellipsis)
        fill = input.data.ndim - builtins.sum(1 for k in key if k is not None) + 1
        key = key[:i] + (slice(None),) * fill + key[i + 1:]
    out, dim = input, 0
    for k in key:
        if k is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(k, slice):
            if k != slice(None):
                out = sh.Slice.apply(out, key=(slice(None),) * dim + (k,))
            dim += 1
        else:
            size = out.data.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            out = sh.Select.apply(out, key=(slice(None),) * dim + (int(k),))
    return out if out is not input else sh.Slice.apply(input, key=(slice(None),))


def narrow(input: Any, dim: int, start: int, length: int) -> Any:
    return sh.Slice.apply(
        input, key=(slice(None),) * dim + (slice(start, start + length),))


def select(input: Any, dim: int, index: int) -> Any:
    return sh.Select.apply(input, key=(slice(None),) * dim + (index,))


def cat(tensors: Any, dim: int = 0) -> Any:
    tensors = [as_operand(x) for x in tensors]
    dim = dim % unwrap(tensors[0]).ndim
    try:
        return sh.Cat.apply(*tensors, dim=dim)
    except ValueError:
        shapes = ", ".join(str(tuple(unwrap(x).shape)) for x in tensors)
        raise RuntimeError(f"cat: sizes of tensors must match except in dimension {dim}; got "
                           f"{shapes}") from None


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0) -> Any:
    tensors = [as_operand(x) for x in tensors]
    dim = dim % (unwrap(tensors[0]).ndim + 1)
    try:
        return sh.Stack.apply(*tensors, dim=dim)
    except ValueError:
        shapes = ", ".join(str(tuple(unwrap(x).shape)) for x in tensors)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {shapes}"
                           ) from None


def softmax(input: Any, dim: int) -> Any:
    return nn_ops.Softmax.apply(input, dim=dim % builtins.max(input.data.ndim, 1))


def log_softmax(input: Any, dim: int) -> Any:
    return nn_ops.LogSoftmax.apply(input, dim=dim % builtins.max(input.data.ndim, 1))


# -- dtype and in-place ------------------------------------------------------------------------
def cast(input: Any, dtype: Any) -> Any:
    """a copy in another dtype (float32 <-> float64 keep the graph: ToCopyBackward0)"""
    return Cast.apply(input, dtype=np.dtype(dtype))


class Cast(Function):
    """a converted to another dtype"""

    node_name = "ToCopyBackward0"
    formula = r"d(to(a))/da = 1 (converted back to a's dtype)"

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.in_dtype = a.data.dtype
        return a.data.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        return cast(grad, ctx.in_dtype)


def zero(input: Any, _: Any = None) -> Any:
    return ew.Zero.apply(input, value=0)


def fill(input: Any, value: Any) -> Any:
    return ew.Fill.apply(input, value=unwrap(value))


def copy(input: Any, src: Any) -> Any:
    return ew.Copy.apply(input, as_operand(src))


def clamp_to(input: Any, bounds: tuple) -> Any:
    return clamp(input, *bounds)


def fill_random(input: Any, how: tuple) -> Any:
    from minigrad import factories

    kind, a, b = how
    shape, dtype = input.data.shape, input.data.dtype
    values = factories.generator().normal(a, b, shape) if kind == "normal" else \
        factories.generator().uniform(a, b, shape)
    return constant(values.astype(dtype))


LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked).")


def inplace(target: Any, op: Any, arg: Any) -> Any:
    """Run `op(target, arg)` and write the result into `target` (add_, mul_, zero_, ...).

    When recording, the op is recorded on a copy of the old value and `target` takes over
    the new node as its grad_fn, as PyTorch rebases an in-place result. The version counter
    goes up, so backward can tell when a value it saved was overwritten.
    """
    recording = state.grad_enabled and (
        target._requires_grad or (is_tensor(arg) and arg._requires_grad))
    if target._requires_grad and target.grad_fn is None and state.grad_enabled:
        raise RuntimeError(LEAF_INPLACE)
    base = target._base
    if state.grad_enabled and base is not None and base._requires_grad \
            and not target._requires_grad and target.grad_fn is None and base.grad_fn is not None:
        raise RuntimeError(NO_GRAD_VIEW_INPLACE)
    if recording and base is not None and base._requires_grad:
        raise RuntimeError(
            "minigrad does not record in-place operations on a view of a tensor that requires "
            "grad; use the out-of-place op (e.g. `y = y * 2` instead of `y.mul_(2)`).")
    if recording:
        from minigrad.tensor import Tensor

        old = Tensor._make(target.data.copy(), target.grad_fn, target._output_nr)
        old._requires_grad = target._requires_grad
        if target.grad_fn is None and target._requires_grad:
            old._grad_acc = target._accumulator()
        new = op(old, arg)
        _write(target, new.data)
        target.grad_fn, target._output_nr, target._requires_grad = new.grad_fn, 0, True
    elif op in _IN_PLACE_UFUNCS and (is_tensor(arg) or isinstance(arg, int | float)):
        # nothing to record: let numpy write straight into the tensor (an optimizer's update)
        value = unwrap(arg)
        _write_check(target, np.broadcast_shapes(target.data.shape, np.shape(value)))
        _IN_PLACE_UFUNCS[op](target.data, value, out=target.data, casting="same_kind")
    else:
        with no_grad():
            new = op(target, arg)
        _write(target, new.data)
    target._vc[0] += 1
    return target


_IN_PLACE_UFUNCS = {add: np.add, sub: np.subtract, mul: np.multiply, div: np.true_divide}


def _write(target: Any, values: np.ndarray) -> None:
    _write_check(target, values.shape)
    target.data[...] = values


def _write_check(target: Any, result_shape: tuple) -> None:
    """An in-place result must have the target's shape, and the target must be writable."""
    if tuple(result_shape) != target.data.shape:
        raise RuntimeError(f"output with shape {list(target.data.shape)} doesn't match the "
                           f"broadcast shape {list(result_shape)}")
    if not target.data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location (an expanded tensor). "
                           "Please clone() the tensor before performing the operation.")


def setitem_(target: Any, key: Any, value: Any) -> None:
    """`a[key] = value`, allowed where no gradient is recorded."""
    if target._requires_grad and state.grad_enabled:
        if target.grad_fn is None:
            raise RuntimeError(LEAF_INPLACE)
        raise RuntimeError(
            "minigrad does not record item assignment on a tensor that requires grad; build "
            "the tensor with where() or cat() instead, or assign under no_grad().")
    key = tuple(unwrap(k) for k in key) if isinstance(key, tuple) else unwrap(key)
    target.data[key] = unwrap(value)
    target._vc[0] += 1
