"""Tensor's methods and operators that are ops, as tables: `x * y`, `x.mul(y)` and
`minigrad.mul(x, y)` are one function (see minigrad/ops), and so are the in-place forms,
dtype and device spellings. `Tensor` (tensor.py) inherits them; this class holds no data.
"""

from __future__ import annotations

import builtins
import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.surface import devices, dtypes, meta
from minigrad.surface.layouts import check_memory_format, check_options, keywords
from minigrad.surface.size import sizes

NEW_TENSOR_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "tensor.new_tensor(sourceTensor).")


NEW = ("dtype", "device", "requires_grad", "layout", "pin_memory")  # (the new_* methods')


def _to(dtype: Any) -> Callable:
    """`x.float()`, `x.long()`, ...: `x.to(dtype)` (`memory_format=` as surface/layouts.py)."""
    def convert(self: Any, memory_format: Any = None) -> Any:
        check_memory_format(memory_format, dtypes.TORCH_NAMES[np.dtype(dtype)].lower(),
                            self.array.ndim)
        return self.to(dtype)
    return convert


def _reflected(op: Callable) -> Callable:
    """`2 ** x` is `pow(2, x)`: the number comes first."""
    return lambda self, other: op(other, self)


def _in_place(op: Callable) -> Callable:
    """`x.mul_(y)`, `x *= y`: the op's result written into x (see ops.in_place)."""
    return lambda self, other: ops.inplace(self, op, other)


def _comparison(ufunc: Callable) -> Callable:
    return lambda self, other: ops.compare(ufunc, self, other)


class TensorMethods:
    """The op methods of Tensor (see the module docstring)."""

    # -- dtype and device spellings from PyTorch code ----------------------------------------
    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        """`x.type()` is `'minigrad.FloatTensor'`; `x.type(minigrad.float64)` (or the string
        `'minigrad.DoubleTensor'`, `'torch.DoubleTensor'`) converts."""
        if dtype is None:
            return f"minigrad.{dtypes.TORCH_NAMES.get(self.array.dtype, 'Undefined')}Tensor"
        if isinstance(dtype, str):
            dtype = dtypes.from_type_name(dtype)
        return self.to(dtype)

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """`to(dtype)`, `to("cpu")`, `to(device, dtype)`, `to(other)`, `non_blocking=`, `copy=`
        as in PyTorch: itself when nothing changes (unless copy=True). Any device but the CPU
        fails as on a CPU-only PyTorch (minigrad computes on the CPU with numpy)."""
        dtype, copy, to_meta = dtypes.to_arguments(args, kwargs)
        on_meta = type(self.array) is meta.MetaArray
        if to_meta is False and on_meta:  # (the CPU, from the meta device)
            raise NotImplementedError(meta.NO_DATA)
        if to_meta and not on_meta:
            return ops.cast(self, dtype or self.array.dtype, to_meta=True)
        if (dtype is None or dtype == self.array.dtype) and not copy:
            return self
        return ops.cast(self, dtype or self.array.dtype)  # (a copy: ToCopyBackward0, as torch)

    def cpu(self, memory_format: Any = None) -> Any:
        if type(self.array) is meta.MetaArray:
            raise NotImplementedError(meta.NO_DATA)
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False, memory_format: Any = None
             ) -> Any:
        """Fails as on a CPU-only PyTorch, saying what to change."""
        if isinstance(device, int) and not isinstance(device, builtins.bool):
            raise RuntimeError(devices.NO_ACCELERATOR)
        raise AssertionError(devices.NO_CUDA)

    def pin_memory(self, device: Any = None) -> Any:
        """Fails as on a CPU-only PyTorch (pinned memory is for copies to a GPU)."""
        raise RuntimeError(devices.NO_ACCELERATOR)

    def is_pinned(self, device: Any = None) -> builtins.bool:
        return False

    def get_device(self) -> builtins.int:
        return -1  # PyTorch's answer for a CPU tensor

    float, double, half = _to(dtypes.float32), _to(dtypes.float64), _to(dtypes.float16)
    long, int, short = _to(dtypes.int64), _to(dtypes.int32), _to(dtypes.int16)
    char, byte, bool = _to(dtypes.int8), _to(dtypes.uint8), _to(dtypes.bool)

    def new_tensor(self, data: Any, dtype: Any = None, device: Any = None,
                   requires_grad: builtins.bool = False) -> Any:
        """A new leaf holding a copy of `data`, of this tensor's dtype unless told."""
        if hasattr(data, "array") and isinstance(data.array, np.ndarray):
            warnings.warn(NEW_TENSOR_WARNING, UserWarning, stacklevel=2)
            to_meta = self.is_meta if device is None else devices.wants_meta(device)
            if type(data.array) is meta.MetaArray and not to_meta:
                raise NotImplementedError(meta.NO_DATA)
            data = data.array
        np_dtype = dtypes.numpy_dtype(dtype) or self.array.dtype
        return self._new_leaf(np.array(data, dtype=np_dtype), device, requires_grad)

    @keywords("size", *NEW)
    def new_zeros(self, *lengths: Any, **kw: Any) -> Any:
        return self._new_filled("new_zeros", lengths, 0, **kw)

    @keywords("size", *NEW)
    def new_ones(self, *lengths: Any, **kw: Any) -> Any:
        return self._new_filled("new_ones", lengths, 1, **kw)

    @keywords("size", *NEW)
    def new_empty(self, *lengths: Any, **kw: Any) -> Any:
        """Zeros, where PyTorch leaves the memory uninitialised."""
        return self._new_filled("new_empty", lengths, 0, **kw)

    @keywords(*NEW)
    def new_full(self, size: Any, fill_value: Any, **kw: Any) -> Any:
        return self._new_filled("new_full", (size,), fill_value, **kw)

    def _new_filled(self, op: str, lengths: tuple, value: Any, dtype: Any = None,
                    device: Any = None, requires_grad: builtins.bool = False, layout: Any = None,
                    pin_memory: builtins.bool = False, **kw: Any) -> Any:
        shape = sizes(op, lengths, kw.pop("size", None))
        if kw:
            raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kw))}'")
        np_dtype = dtypes.numpy_dtype(dtype) or self.array.dtype
        check_options(op, None, layout, pin_memory)
        return self._new_leaf(np.full(shape, value, np_dtype), device, requires_grad)

    def _new_leaf(self, array: np.ndarray, device: Any, requires_grad: builtins.bool) -> Any:
        """A new leaf on `device` (this tensor's by default: the CPU or meta)."""
        if devices.wants_meta(device) or device is None and self.is_meta:
            array = meta.like(array)
        t = self._make(array, None, 0)
        if requires_grad:
            t._leaf_requires_grad()
        return t

    # -- arithmetic: every operator and method is the op function of the same name --------
    __add__ = __radd__ = add = ops.add
    __sub__ = sub = subtract = ops.sub
    __rsub__ = ops.rsub
    __mul__ = __rmul__ = mul = multiply = ops.mul
    __truediv__ = div = divide = true_divide = ops.div
    __floordiv__ = floor_divide = ops.floor_divide
    __mod__ = remainder = ops.remainder
    __pow__ = pow = ops.pow
    __matmul__ = matmul = ops.matmul
    __neg__ = neg = negative = ops.neg
    __abs__ = abs = ops.abs

    def __rtruediv__(self, other: Any) -> Any:
        return ops.mul(ops.reciprocal(self), other)  # 1 / x is recorded as x.reciprocal() * 1

    __rfloordiv__, __rmod__ = _reflected(ops.floor_divide), _reflected(ops.remainder)
    __rpow__, __rmatmul__ = _reflected(ops.pow), _reflected(ops.matmul)

    def __pos__(self) -> Any:
        return self

    reciprocal, square, exp, log, sqrt = ops.reciprocal, ops.square, ops.exp, ops.log, ops.sqrt
    tanh, sigmoid, relu, sin, cos, tan = (ops.tanh, ops.sigmoid, ops.relu, ops.sin, ops.cos,
                                          ops.tan)
    maximum, minimum, clamp, clip = ops.maximum, ops.minimum, ops.clamp, ops.clip
    clamp_min, clamp_max, vdot = ops.clamp_min, ops.clamp_max, ops.vdot
    sum, mean, max, min, norm = ops.sum, ops.mean, ops.max, ops.min, ops.norm
    amax, amin, argmax, argmin = ops.amax, ops.amin, ops.argmax, ops.argmin
    sum_to_size = ops.sum_to_size
    mm, mv, dot, bmm, matrix_exp = ops.mm, ops.mv, ops.dot, ops.bmm, ops.matrix_exp
    view, reshape, view_as, reshape_as = ops.view, ops.reshape, ops.view_as, ops.reshape_as
    flatten, t, transpose, swapaxes, permute = (ops.flatten, ops.t, ops.transpose,
                                                ops.swapaxes, ops.permute)
    swapdims = ops.swapdims
    unsqueeze, squeeze, expand, expand_as = ops.unsqueeze, ops.squeeze, ops.expand, ops.expand_as
    clone, contiguous, narrow, select = ops.clone, ops.contiguous, ops.narrow, ops.select
    softmax, log_softmax = ops.softmax, ops.log_softmax

    # -- more float math, reductions, statistics, cumulative ops (ops/elementwise, statistics,
    # cumulative)
    floor, ceil, trunc, fix, frac = ops.floor, ops.ceil, ops.trunc, ops.fix, ops.frac
    round, sign, sgn, nan_to_num = ops.round, ops.sign, ops.sgn, ops.nan_to_num
    erf, erfc, erfinv, log1p, expm1 = ops.erf, ops.erfc, ops.erfinv, ops.log1p, ops.expm1
    log2, log10, exp2, rsqrt = ops.log2, ops.log10, ops.exp2, ops.rsqrt
    asin, acos, atan, arcsin, arccos, arctan = (ops.asin, ops.acos, ops.atan, ops.asin,
                                                ops.acos, ops.atan)
    sinh, cosh, asinh, acosh, atanh = ops.sinh, ops.cosh, ops.asinh, ops.acosh, ops.atanh
    arcsinh, arccosh, arctanh = ops.asinh, ops.acosh, ops.atanh
    atan2, arctan2, hypot, lerp, xlogy = ops.atan2, ops.atan2, ops.hypot, ops.lerp, ops.xlogy
    prod, var, std, logsumexp, dist = ops.prod, ops.var, ops.std, ops.logsumexp, ops.dist
    cumsum, cumprod, cummax, cummin = ops.cumsum, ops.cumprod, ops.cummax, ops.cummin
    logcumsumexp = ops.logcumsumexp
    floor_, ceil_, trunc_, frac_ = (ops.elementwise.in_place(f) for f in (
        ops.floor, ops.ceil, ops.trunc, ops.frac))
    round_, sign_, abs_, erf_ = (ops.elementwise.in_place(f) for f in (
        ops.round, ops.sign, ops.abs, ops.erf))
    exp_, log_, sqrt_, log1p_, expm1_ = (ops.elementwise.in_place(f) for f in (
        ops.exp, ops.log, ops.sqrt, ops.log1p, ops.expm1))

    # -- tests and logic, never recorded (ops/logical)
    any, all, count_nonzero = ops.any, ops.all, ops.count_nonzero
    isnan, isinf, isfinite = ops.isnan, ops.isinf, ops.isfinite
    isposinf, isneginf = ops.isposinf, ops.isneginf
    isclose, allclose, equal = ops.isclose, ops.allclose, ops.equal
    logical_and, logical_or = ops.logical_and, ops.logical_or
    logical_xor, logical_not = ops.logical_xor, ops.logical_not
    __and__ = __rand__ = bitwise_and = ops.bitwise_and
    __or__ = __ror__ = bitwise_or = ops.bitwise_or
    __xor__ = __rxor__ = bitwise_xor = ops.bitwise_xor
    __invert__, bitwise_not = ops.logical.invert, ops.bitwise_not
    eq, ne, not_equal = ops.eq, ops.ne, ops.ne
    lt, le, gt, ge = ops.lt, ops.le, ops.gt, ops.ge
    less, less_equal, greater, greater_equal = ops.lt, ops.le, ops.gt, ops.ge

    # -- shaping (ops/shaping)
    chunk, unbind, unsafe_chunk = ops.chunk, ops.unbind, ops.unsafe_chunk

    def split(self, split_size: Any, dim: builtins.int = 0) -> tuple:
        """`torch.split(self, split_size, dim)` (the method's keyword is `split_size`)"""
        return ops.split(self, split_size, dim)

    tensor_split, narrow_copy = ops.tensor_split, ops.narrow_copy
    flip, fliplr, flipud, roll = ops.flip, ops.fliplr, ops.flipud, ops.roll
    repeat, repeat_interleave, tile = ops.shaping.repeat, ops.repeat_interleave, ops.tile
    movedim, moveaxis, unflatten = ops.movedim, ops.moveaxis, ops.unflatten
    diagonal, diag, diag_embed, tril, triu = (ops.diagonal, ops.diag, ops.diag_embed, ops.tril,
                                              ops.triu)
    unfold = ops.diagonals.unfold

    # -- indexing helpers (ops/gathering)
    gather, scatter, scatter_add, take = ops.gather, ops.scatter, ops.scatter_add, ops.take
    index_select, index_add, index_fill = ops.index_select, ops.index_add, ops.index_fill
    masked_fill, masked_select, masked_scatter = (ops.masked_fill, ops.masked_select,
                                                  ops.masked_scatter)
    nonzero, argwhere = ops.nonzero, ops.argwhere
    masked_fill_, masked_scatter_ = ops.gathering.masked_fill_, ops.gathering.masked_scatter_
    scatter_, scatter_add_ = ops.gathering.scatter_, ops.gathering.scatter_add_
    index_fill_, index_add_ = ops.gathering.index_fill_, ops.gathering.index_add_

    # -- sorting and order statistics (ops/sorting)
    sort, argsort, msort, topk, kthvalue = (ops.sort, ops.argsort, ops.msort, ops.topk,
                                            ops.kthvalue)
    median, nanmedian, mode = ops.median, ops.nanmedian, ops.mode
    unique, bincount, histc = ops.unique, ops.bincount, ops.histc

    # `p -= lr * p.grad` (an optimizer's update) is `p.sub_(lr * p.grad)`
    __iadd__, __isub__ = _in_place(ops.add), _in_place(ops.sub)
    __imul__ = mul_ = _in_place(ops.mul)
    __itruediv__ = _in_place(ops.div)

    def div_(self, other: Any, *, rounding_mode: str | None = None) -> Any:
        div = functools.partial(ops.div, rounding_mode=rounding_mode)
        return ops.inplace(self, div if rounding_mode else ops.div, other)

    # comparisons give boolean tensors and are never recorded
    __eq__, __ne__ = _comparison(np.equal), _comparison(np.not_equal)  # type: ignore[assignment]
    __lt__, __le__ = _comparison(np.less), _comparison(np.less_equal)
    __gt__, __ge__ = _comparison(np.greater), _comparison(np.greater_equal)

    def __getitem__(self, key: Any) -> Any:
        return ops.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        ops.setitem_(self, key, value)

    # -- in-place -------------------------------------------------------------------------
    def add_(self, other: Any, alpha: float = 1) -> Any:
        add = ops.add if alpha == 1 else functools.partial(ops.add, alpha=alpha)
        return ops.inplace(self, add, other)  # one AddBackward0 node, as in PyTorch

    def sub_(self, other: Any, alpha: float = 1) -> Any:
        sub = ops.sub if alpha == 1 else functools.partial(ops.sub, alpha=alpha)
        return ops.inplace(self, sub, other)

    def zero_(self) -> Any:
        return ops.inplace(self, ops.zero, None)

    def fill_(self, value: Any) -> Any:
        return ops.inplace(self, ops.fill, value)

    def copy_(self, other: Any, non_blocking: builtins.bool = False) -> Any:
        """`other`'s values written into this tensor (PyTorch's keyword is `other`, its
        documentation's `src`); non_blocking means nothing on the CPU"""
        return ops.inplace(self, ops.copy, other)

    def clamp_(self, min: Any = None, max: Any = None) -> Any:
        return ops.inplace(self, ops.clamp_to, (min, max))

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
        return ops.inplace(self, ops.fill_random, ("normal", mean, std, generator))

    def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Any:
        return ops.inplace(self, ops.fill_random, ("uniform", from_, to, generator))

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Any:
        return ops.inplace(self, ops.fill_bernoulli, (p, generator))

    bernoulli, multinomial = ops.bernoulli, ops.multinomial
