"""Every op as a function with PyTorch's signature: `minigrad.mul(a, b)`, `minigrad.sum(x, 1)`.

The Tensor methods and operators call these; these call `Function.apply` of the op classes in
`elementwise`, `reduce`, `shape`, `linalg` and `nn_ops`. The shape and indexing functions
(`view`, `permute`, `x[key]`, `cat`, ...) are in `shaping`, the in-place machinery (`add_`,
`zero_`, `a[key] = v`) in `in_place`; both are re-exported here.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
from numpy import ndarray  # (np.ndarray is a slow lookup: numpy's module has __getattr__)

from minigrad import tensor as _tensor  # Tensor is looked up at call time (it imports us)
from minigrad.dtypes import result_type
from minigrad.function import Function
from minigrad.grad_mode import state
from minigrad.ops import elementwise as ew
from minigrad.ops import linalg, nn_ops
from minigrad.ops import reduce as red
from minigrad.ops import selection as sel
from minigrad.ops.base import (
    as_operand,
    broadcast_message,
    constant,
    is_tensor,
    operands,
    plain,
    promote_tensors,
    unwrap,
)
from minigrad.ops.in_place import (
    LEAF_INPLACE,
    NO_GRAD_VIEW_INPLACE,
    clamp_to,
    copy,
    fill,
    fill_random,
    inplace,
    setitem_,
    zero,
)
from minigrad.ops.linalg import matmul
from minigrad.ops.reduce import ValuesIndices, reduce_dims
from minigrad.ops.shaping import (
    T_property,
    cat,
    clone,
    concat,
    concatenate,
    contiguous,
    expand,
    expand_as,
    flatten,
    getitem,
    narrow,
    permute,
    reshape,
    reshape_as,
    select,
    squeeze,
    squeeze_dims,
    stack,
    swapaxes,
    t,
    transpose,
    unsafe_view,
    unsqueeze,
    view,
    view_as,
)

__all__ = ["matmul", "constant", "as_operand"]


# -- elementwise --------------------------------------------------------------------------
def _binary(fn: Any, name: str, a: Any, b: Any, config: dict | None = None) -> Any:
    """Apply a two-input op (`config`: its settings, e.g. alpha); shapes that do not broadcast
    get an error naming both."""
    Tensor = _tensor.Tensor
    if not isinstance(a, Tensor):
        a = as_operand(a)
    ufunc = fn.ufunc
    if not isinstance(b, float) and not isinstance(b, Tensor):
        b = as_operand(b)
    if ufunc is None:  # PyTorch's result dtype (+ - * / have it from `operands`)
        a, b = promote_tensors(a, b, name)
    try:
        if ufunc is not None and not (state.grad_enabled and (
                isinstance(a, Tensor) and a._requires_grad
                or isinstance(b, Tensor) and b._requires_grad)):
            # no node would be recorded (no_grad, inside backward, constants): plain numpy
            out = ufunc(*operands(a, b, name))
            return _tensor.make(out if type(out) is ndarray else np.asarray(out), None, 0)
        return fn.apply(a, b) if config is None else fn.apply(a, b, **config)
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
        return _binary(ew.AddScaled, "add", input, other, {"alpha": alpha})
    return _binary(ew.Add, "add", input, other)


def sub(input: Any, other: Any, alpha: float = 1) -> Any:
    """input - alpha * other"""
    if alpha != 1:  # one SubBackward0 node, as in PyTorch
        return _binary(ew.SubScaled, "sub", input, other, {"alpha": alpha})
    return _binary(ew.Sub, "sub", input, other)


subtract = sub


def rsub(input: Any, other: Any) -> Any:
    """other - input (`1 - x`)"""
    if is_tensor(other) or isinstance(other, np.ndarray):
        return sub(other, input)
    if type(other) is bool or input.data.dtype.kind != "f":  # PyTorch's dtype or error
        other, input = promote_tensors(other, input, "sub")
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
        if exponent.data.dtype.kind != "f":  # `2.0 ** int_tensor` is float32
            input, exponent = promote_tensors(input, exponent, "pow")
        return ew.RPow.apply(exponent, base=input)
    if is_tensor(exponent) or isinstance(exponent, np.ndarray):
        if input.data.dtype.kind == "b" and unwrap(exponent).dtype.kind == "b":
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        return _binary(ew.PowTensor, "pow", input, exponent)
    if input.data.dtype.kind != "f":  # `int_tensor ** 0.5` is float32, `bool_tensor ** 2` int64
        input, exponent = promote_tensors(input, exponent, "pow")
        kind = input.data.dtype.kind
        if kind == "b":  # x ** True is x, x ** False all True
            return constant(input.data | (not exponent))
        if kind in "iu" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return ew.Pow.apply(input, p=exponent)


def neg(input: Any) -> Any:
    return ew.Neg.apply(input)


negative = neg


def square(input: Any) -> Any:
    return pow(input, 2)


def abs(input: Any) -> Any:
    return ew.Abs.apply(input)


def relu(input: Any) -> Any:
    return ew.Relu.apply(input)


def floor_divide(input: Any, other: Any) -> Any:
    """floor(input / other) (`a // b`); integers stay integers"""
    return _with_number("floor_divide", input, other, ew.FloorDivide, ew.FloorDivideScalar,
                        ew.NumberFloorDivide)


def remainder(input: Any, other: Any) -> Any:
    """input mod other, with the sign of other (`a % b`)"""
    # (`7.5 % x` has no derivative, as in PyTorch: NumberRemainder)
    return _with_number("remainder", input, other, ew.Remainder, ew.RemainderScalar,
                        ew.NumberRemainder)


def _with_number(name: str, input: Any, other: Any, both: Any, number_second: Any,
                 number_first: Any) -> Any:
    """A two-input op whose number operand is a setting of the node, not an input (PyTorch
    gives it no edge): `number_second` for `t op c`, `number_first` for `c op t` (each applied
    to the tensor, with c=), `both` for two tensors."""
    if _is_number(other) and is_tensor(input):
        t, c = promote_tensors(input, other, name)
        return number_second.apply(t, c=c)
    if _is_number(input) and is_tensor(other):
        c, t = promote_tensors(input, other, name)
        return number_first.apply(t, c=c)
    return _binary(both, name, input, other)


def _is_number(x: Any) -> bool:
    """A Python (or numpy) number: not a tensor, not an array."""
    return not is_tensor(x) and not isinstance(x, np.ndarray)


def _in_float(op: Any, name: str) -> Any:
    """The function of a one-input op that computes in float, as PyTorch's exp, tanh, ...:
    an int or bool tensor is computed in float32 (numpy would give float64, or float16)."""

    def function(input: Any) -> Any:
        if input.data.dtype.kind != "f":
            input = cast(input, np.float32)
        return op.apply(input)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = op.__doc__
    return function


reciprocal = _in_float(ew.Reciprocal, "reciprocal")
exp = _in_float(ew.Exp, "exp")
log = _in_float(ew.Log, "log")
sqrt = _in_float(ew.Sqrt, "sqrt")
tanh = _in_float(ew.Tanh, "tanh")
sigmoid = _in_float(ew.Sigmoid, "sigmoid")
sin = _in_float(ew.Sin, "sin")
cos = _in_float(ew.Cos, "cos")


def maximum(input: Any, other: Any) -> Any:
    return _binary(sel.Maximum, "maximum", input, other)


def minimum(input: Any, other: Any) -> Any:
    return _binary(sel.Minimum, "minimum", input, other)


def where(condition: Any, input: Any, other: Any) -> Any:
    """elementwise `input if condition else other`"""
    return sel.where(condition, *promote_tensors(as_operand(input), as_operand(other)))


def clamp(input: Any, min: Any = None, max: Any = None) -> Any:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if input.data.dtype.kind != "f":  # `int_tensor.clamp(0.5)` is float32
        dtype = result_type(input.data, unwrap(min), unwrap(max))
        if dtype != input.data.dtype:
            input = cast(input, dtype)
    return sel.Clamp.apply(input, lo=min, hi=max)


clip = clamp


def compare(np_fn: Any, a: Any, b: Any) -> Any:
    """A comparison: a boolean tensor, never recorded."""
    return constant(np_fn(unwrap(a), unwrap(as_operand(b))))


# -- reductions ---------------------------------------------------------------------------
def sum(input: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """sum of all elements, or along `dim` (an int or a tuple of ints)"""
    if dtype is not None:
        input = input.to(dtype)
    return _reduce(input, dim, keepdim, red.sum_array, red.Sum, red.SumDim)


def mean(input: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """mean of all elements, or along `dim`"""
    if dtype is not None:
        input = input.to(dtype)
    if input.data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.data.dtype.name.capitalize()}")
    return _reduce(input, dim, keepdim, red.mean_array, red.Mean, red.MeanDim)


def _reduce(input: Any, dim: Any, keepdim: bool, array_fn: Any, whole: Any, along: Any) -> Any:
    """sum and mean: numpy alone when nothing is recorded; else the node over all elements
    (`whole`, e.g. SumBackward0) or the one along `dim` (`along`, SumBackward1)."""
    dims = None if dim is None and not keepdim else reduce_dims(input, dim)
    if not (state.grad_enabled and input._requires_grad):  # nothing to record: numpy alone
        return plain(array_fn(input.data, dims, keepdim))
    if dims is None:
        return whole.apply(input)
    return along.apply(input, dims=dims, keepdim=keepdim)


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
    out = sum(input, red.sum_to_dims(input.data.shape, shape), keepdim=True)
    return view(out, shape) if input.data.ndim != len(shape) else out


# -- matrix products ------------------------------------------------------------------------
def mm(input: Any, mat2: Any) -> Any:
    if not (state.grad_enabled and (input._requires_grad or mat2._requires_grad)):
        return plain(linalg.mm_array(input, mat2))  # nothing to record: numpy alone
    return linalg.Mm.apply(input, mat2)


def mv(input: Any, vec: Any) -> Any:
    return linalg.Mv.apply(input, vec)


def dot(input: Any, other: Any) -> Any:
    return linalg.Dot.apply(input, other)


def bmm(input: Any, mat2: Any) -> Any:
    return linalg.Bmm.apply(input, mat2)


# -- softmax ---------------------------------------------------------------------------------
def softmax(input: Any, dim: int) -> Any:
    dim %= builtins.max(input.data.ndim, 1)
    if not (state.grad_enabled and input._requires_grad):  # nothing to record: numpy alone
        return plain(nn_ops.softmax_array(input.data, dim))
    return nn_ops.Softmax.apply(input, dim=dim)


def log_softmax(input: Any, dim: int) -> Any:
    dim %= builtins.max(input.data.ndim, 1)
    if not (state.grad_enabled and input._requires_grad):  # nothing to record: numpy alone
        return plain(nn_ops.log_softmax_array(input.data, dim))
    return nn_ops.LogSoftmax.apply(input, dim=dim)


# -- dtype -----------------------------------------------------------------------------------
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


