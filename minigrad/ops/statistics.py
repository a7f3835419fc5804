"""Statistics over dims: prod, var, std, var_mean, std_mean, logsumexp (and norm, dist from
`norms.py`).

Each takes `dim` as PyTorch does (an int, a tuple where PyTorch takes one, None for all) and
`axis=` as its alias; each backward gives the reduced dims back (`restore_dims`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd.forward_ad import LEVELS
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import state
from minigrad.ops.base import cast, constant, keepdims_alias, no_dim_given
from minigrad.ops.norms import dist, norm
from minigrad.ops.reduce import _restore_dims as restore_dims
from minigrad.ops.reduce import dim_or_axis, mean_array, reduce_dims, restored, summed
from minigrad.ops.selection import choose
from minigrad.ops.unary import exp
from minigrad.surface.summation import add_reduce

# the public functions: minigrad.prod, ... (re-exported by ops/ and minigrad/)
__all__ = ["dist", "logsumexp", "norm", "prod", "std", "std_mean", "var", "var_mean"]


def _others_product(a: np.ndarray, axis: int) -> np.ndarray:
    """For each element, the product of the others along `axis` (exact with zeros): the
    product of those before it times the product of those after it."""
    ones = np.ones_like(np.take(a, [0], axis=axis))
    before = np.cumprod(np.concatenate([ones, np.delete(a, -1, axis=axis)], axis), axis)
    flipped = np.flip(a, axis)
    after = np.cumprod(np.concatenate([ones, np.delete(flipped, -1, axis=axis)], axis), axis)
    return before * np.flip(after, axis)


class _Product(Function, numpy_forward=True):
    """Shared by prod and prod(dim): without zeros the gradient is out / a; with zeros, the
    product of the other elements (computed in numpy: its own derivative is not recorded)."""

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        grad = restore_dims(grad, ctx).expand(ctx.in_shape)
        if not ctx.has_zero:
            return grad * restore_dims(ctx.output, ctx) / a
        if state.grad_enabled or LEVELS.visible:  # (forward mode: forward-over-reverse)
            raise NotImplementedError("minigrad: the second derivative of prod through a zero "
                                      "element is not implemented")
        x = a.array if ctx.dims != () else a.array.reshape(-1)
        others = _others_product(x, ctx.dims[0] if ctx.dims != () else 0)
        return grad * constant(others.reshape(ctx.in_shape))

    @staticmethod
    def jvp(ctx, t):
        a, dims, keepdim = ctx.inputs[0], ctx.settings.get("dims", ()), ctx.settings.get("keepdim")
        x = a.array
        if not np.any(x == 0):
            scale = restored(ctx.output, x.shape, dims, bool(keepdim)) / a
        else:  # the product of the other elements, exact with zeros
            flat = x if dims else x.reshape(-1)
            scale = constant(_others_product(flat, dims[0] if dims else 0).reshape(x.shape))
        return summed(t * scale, dims, bool(keepdim))


class Prod(_Product):
    """product of all elements"""

    node_name = "ProdBackward0"
    formula = r"d(prod a)/da_i = product of the other elements"
    saves_output = True
    source = "{0}.prod()"
    gradients = ("{g} * {out} / {0}",)
    tangent = "sum({t0} * {out} / {0})"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, (), True
        ctx.has_zero = bool(np.any(a.array == 0))
        return np.asanyarray(np.prod(a.array))


class ProdDim(_Product):
    """product along `dim`"""

    node_name = "ProdBackward1"
    formula = r"d(prod_dim a)/da_i = product of the other elements along dim"
    saves_output = True
    source = "{0}.prod(...)"
    gradients = ("{g} * {out} / {0}",)
    tangent = "sum({t0} * {out} / {0}) along dim"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, dims, keepdim
        ctx.has_zero = bool(np.any(a.array == 0))
        return np.prod(a.array, axis=dims, keepdims=keepdim)


def _count(ctx: Any) -> int:
    """How many elements each output element reduces (a 0-d input: one)."""
    return math.prod(ctx.in_shape[d] for d in ctx.dims) if ctx.in_shape else 1


def _centred(ctx: Any) -> tuple:
    """a - mean(a) along the dims, and 2 / (n - correction) (inf where n <= correction: the
    gradient is then NaN, as PyTorch's; std's backward uses half of it)."""
    (a,) = ctx.unpack_saved()
    n = max(_count(ctx) - ctx.correction, 0)
    return a - a.mean(ctx.dims, keepdim=True), 2 / n if n else math.inf


def _keep(ctx: Any, a: Any, dims: tuple, correction: float, keepdim: bool) -> None:
    """What the backward of var, std, var_mean and std_mean reads."""
    ctx.save_for_backward(a)
    ctx.in_shape, ctx.dims, ctx.keepdim, ctx.correction = a.array.shape, dims, keepdim, \
        correction


def _var_array(a: np.ndarray, dims: tuple, correction: float, keepdim: bool) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        n = math.prod(a.shape[d] for d in dims) if a.ndim else 1
        centred = a - mean_array(a, dims, True)
        return np.asanyarray(add_reduce(centred * centred, dims, keepdim)
                          / a.dtype.type(max(n - correction, 0)))


class Var(Function, numpy_forward=True):
    """variance along dims: sum((a - mean)^2) / (n - correction)"""

    node_name = "VarBackward0"
    formula = r"d var(a)/da_i = 2*(a_i - mean(a)) / (n - correction)"
    source = "{0}.var(...)"
    gradients = ("{g} * 2 * ({0} - mean({0})) / (n - correction)",)
    tangent = "sum({t0} * 2 * ({0} - mean({0}))) / (n - correction)"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        _keep(ctx, a, dims, correction, keepdim)
        return _var_array(a.array, dims, correction, keepdim)

    @staticmethod
    def backward(ctx, grad):
        centred, two_over_n = _centred(ctx)
        return restore_dims(grad, ctx) * centred * two_over_n

    @staticmethod
    def jvp(ctx, t):
        return _var_jvp(ctx, t)


class Std(Function, numpy_forward=True):
    """standard deviation along dims: sqrt(var)"""

    node_name = "StdBackward0"
    formula = r"d std(a)/da_i = (a_i - mean(a)) / ((n - correction) * std(a))"
    saves_output = True
    source = "{0}.std(...)"
    gradients = ("{g} * ({0} - mean({0})) / ((n - correction) * {out})",)
    tangent = "sum({t0} * ({0} - mean({0}))) / ((n - correction) * {out})"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        _keep(ctx, a, dims, correction, keepdim)
        return np.sqrt(_var_array(a.array, dims, correction, keepdim))

    @staticmethod
    def backward(ctx, grad):
        return _std_backward(ctx, grad, ctx.output)

    @staticmethod
    def jvp(ctx, t):
        return _std_jvp(ctx, t, ctx.output)


def _std_backward(ctx: Any, grad: Any, out: Any) -> Any:
    """grad * (a - mean) / ((n - c) * std), 0 where std is 0 (as PyTorch)"""
    centred, two_over_n = _centred(ctx)
    out = restore_dims(out, ctx)
    zero = out.array == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = restore_dims(grad, ctx) * (two_over_n / 2) / out
    if zero.any():
        scale = choose(zero, 0.0, scale)
    return scale * centred


class VarMean(Function, numpy_forward=True):
    """(variance, mean) along dims, one node for both"""

    node_name = "VarMeanBackward0"
    formula = r"d var/da_i = 2*(a_i - mean)/(n - correction) ;  d mean/da_i = 1/n"
    source = "var_mean({0}, ...)"
    gradients = (None,)  # (a sum of two: read as a value)
    tangent = "(var's tangent, mean of {t0})"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        _keep(ctx, a, dims, correction, keepdim)
        mean = mean_array(a.array, dims, keepdim)
        return _var_array(a.array, dims, correction, keepdim), mean

    @staticmethod
    def backward(ctx, grad_var, grad_mean):
        centred, two_over_n = _centred(ctx)
        return _plus_mean(ctx, restore_dims(grad_var, ctx) * centred * two_over_n, grad_var,
                          grad_mean)

    @staticmethod
    def jvp(ctx, t):
        return _var_jvp(ctx, t), summed(t, ctx.dims, ctx.keepdim) / _count_of(ctx)


class StdMean(Function, numpy_forward=True):
    """(standard deviation, mean) along dims, one node for both"""

    node_name = "StdMeanBackward0"
    formula = r"d std/da_i = (a_i - mean)/((n - correction)*std) ;  d mean/da_i = 1/n"
    saves_output = True  # (the std: output 0)
    source = "std_mean({0}, ...)"
    gradients = (None,)  # (a sum of two: read as a value)
    tangent = "(std's tangent, mean of {t0})"

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        _keep(ctx, a, dims, correction, keepdim)
        mean = a.array.mean(axis=dims, keepdims=keepdim, dtype=a.array.dtype)
        return np.sqrt(_var_array(a.array, dims, correction, keepdim)), np.asanyarray(mean)

    @staticmethod
    def backward(ctx, grad_std, grad_mean):
        return _plus_mean(ctx, _std_backward(ctx, grad_std, ctx.output), grad_std, grad_mean)

    @staticmethod
    def jvp(ctx, t):
        return _std_jvp(ctx, t, ctx.output[0]), summed(t, ctx.dims, ctx.keepdim) / _count_of(ctx)


def _count_of(ctx: Any) -> int:
    """`_count` for a JVP rule's ctx (which has the input, not its shape)."""
    shape = ctx.inputs[0].array.shape
    return math.prod(shape[d] for d in ctx.dims) if shape else 1


def _var_jvp(ctx: Any, t: Any) -> Any:
    """var's tangent: sum(t * 2 (a - mean)) / (n - correction) along the dims."""
    a, dims = ctx.inputs[0], ctx.dims
    n = max(_count_of(ctx) - ctx.correction, 0)
    centred = a - a.mean(dims, keepdim=True) if dims else a * 0
    return summed(t * centred, dims, ctx.keepdim) * (2 / n if n else math.inf)


def _std_jvp(ctx: Any, t: Any, out: Any) -> Any:
    """std's tangent: var's / (2 std), 0 where std is 0 (as PyTorch)."""
    zero = out.array == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = _var_jvp(ctx, t) / (out * 2)
    return choose(zero, 0.0, scaled) if zero.any() else scaled


def _plus_mean(ctx: Any, spread: Any, grad_spread: Any, grad_mean: Any) -> Any:
    """var_mean/std_mean: the spread's gradient plus the mean's. Where n <= correction the
    spread's gradient is NaN; when no gradient came for it (zeros), it is left out, as
    PyTorch sends none."""
    mean = (restore_dims(grad_mean, ctx) / _count(ctx)).expand(ctx.in_shape)
    if _count(ctx) <= ctx.correction and not grad_spread.array.any():
        return mean
    return spread + mean


class Logsumexp(Function, numpy_forward=True):
    """log(sum(exp(a))) along dims, computed without overflow"""

    node_name = "LogsumexpBackward0"
    formula = r"d logsumexp(a)/da_i = exp(a_i - logsumexp(a)) (softmax)"
    saves_output = True
    source = "{0}.logsumexp(...)"
    gradients = ("{g} * exp({0} - {out})",)
    tangent = "sum({t0} * exp({0} - {out}))"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.in_shape, ctx.dims, ctx.keepdim = a.array.shape, dims, keepdim
        x = a.array
        m = np.max(x, axis=dims, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):
            out = np.log(np.sum(np.exp(x - m), axis=dims, keepdims=True)) + m
        return out if keepdim else np.squeeze(out, axis=dims)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.unpack_saved()
        return restore_dims(grad, ctx) * exp(a - restore_dims(ctx.output, ctx))

    @staticmethod
    def jvp(ctx, t):
        a, dims, keepdim = ctx.inputs[0], ctx.dims, ctx.keepdim
        softmax = exp(a - restored(ctx.output, a.array.shape, dims, keepdim))
        return summed(t * softmax, dims, keepdim)


def _float_only(name: str, input: Any) -> None:
    if input.array.dtype.kind != "f":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")


@keepdims_alias
def prod(input: Any, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None,
         axis: int | None = None) -> Any:
    """product of all elements, or along one `dim` (integers and bools give int64)"""
    dim = dim_or_axis("prod", dim, axis)
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
        raise TypeError(f"prod() received an invalid combination of arguments - got (dim="
                        f"{type(dim).__name__}, ), but expected one of:\n * (*, torch.dtype dtype"
                        " = None)\n * (int dim, bool keepdim = False, *, torch.dtype dtype = "
                        "None)\n")
    if dtype is not None:
        input = input.to(dtype)
    if input.array.dtype.kind != "f":
        values = input.array.astype(np.int64)
        out = np.prod(values) if dim is None else np.prod(
            values, axis=reduce_dims(values, dim), keepdims=keepdim)
        return constant(np.asanyarray(out, np.int64))
    if dim is None:
        return Prod.apply(input)
    return ProdDim.apply(input, dims=reduce_dims(input, dim), keepdim=keepdim)


def _spread(name: str, op: type, input: Any, dim: Any, unbiased: Any, keepdim: bool,
            correction: Any, axis: Any) -> Any:
    """var, std, var_mean, std_mean: PyTorch's arguments, to (dims, correction)."""
    dim = dim_or_axis(name, dim, axis)
    if isinstance(dim, bool):  # var(True): the old `unbiased` as the first argument
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"(correction=int, unbiased=bool, )")
    _float_only("std and var" if name in ("std", "var") else name, input)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    out = op.apply(input, dims=reduce_dims(input, dim), correction=correction, keepdim=keepdim)
    return no_dim_given(out) if dim is None else out


@keepdims_alias
def var(input: Any, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, axis: Any = None) -> Any:
    """variance along `dim` (all by default), divided by n - correction (1 by default)"""
    return _spread("var", Var, input, dim, unbiased, keepdim, correction, axis)


@keepdims_alias
def std(input: Any, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, axis: Any = None) -> Any:
    """standard deviation along `dim`: the square root of `var`"""
    return _spread("std", Std, input, dim, unbiased, keepdim, correction, axis)


@keepdims_alias
def var_mean(input: Any, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False,
             *, correction: float | None = None, axis: Any = None) -> tuple:
    """(var, mean) along `dim`, a plain tuple (as PyTorch)"""
    return _spread("var_mean", VarMean, input, dim, unbiased, keepdim, correction, axis)


@keepdims_alias
def std_mean(input: Any, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False,
             *, correction: float | None = None, axis: Any = None) -> tuple:
    """(std, mean) along `dim`, a plain tuple (as PyTorch)"""
    return _spread("std_mean", StdMean, input, dim, unbiased, keepdim, correction, axis)


@keepdims_alias
def logsumexp(input: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None) -> Any:
    """log(sum(exp(input))) along `dim` (an int or a tuple; required, as in PyTorch)"""
    dim = dim_or_axis("logsumexp", dim, axis)
    if dim is None:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if input.array.dtype.kind != "f":
        input = cast(input, np.float32)
    return Logsumexp.apply(input, dims=reduce_dims(input, dim), keepdim=keepdim)
