"""Tensor's methods and operators that are ops, as tables: `x * y`, `x.mul(y)` and
`minigrad.mul(x, y)` are one function (see minigrad/ops), and so are the in-place forms,
dtype and device spellings. `Tensor` (tensor.py) inherits them; this class holds no data.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import dtypes, ops


def _to(dtype: Any) -> Callable:
    """`x.float()`, `x.long()`, ...: `x.to(dtype)`."""
    return lambda self: self.to(dtype)


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
    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return f"minigrad.{self.array.dtype.name.capitalize()}Tensor"
        return self.to(dtype)

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """`to(dtype)`, `to("cpu")`; any other device raises (minigrad computes on the CPU)."""
        dtype = dtypes.parse_to(args, kwargs)
        if dtype is None or np.dtype(dtype) == self.array.dtype:
            return self
        return ops.cast(self, np.dtype(dtype))

    def cpu(self) -> Any:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Any:
        dtypes.check_device("cuda")
        return self

    float, double = _to(np.float32), _to(np.float64)
    long, int, bool = _to(np.int64), _to(np.int32), _to(np.bool_)

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
    sum, mean, max, min, norm = ops.sum, ops.mean, ops.max, ops.min, ops.norm
    amax, amin, argmax, argmin = ops.amax, ops.amin, ops.argmax, ops.argmin
    sum_to_size = ops.sum_to_size
    mm, mv, dot, bmm = ops.mm, ops.mv, ops.dot, ops.bmm
    view, reshape, view_as, reshape_as = ops.view, ops.reshape, ops.view_as, ops.reshape_as
    flatten, t, transpose, swapaxes, permute = (ops.flatten, ops.t, ops.transpose,
                                                ops.transpose, ops.permute)
    unsqueeze, squeeze, expand, expand_as = ops.unsqueeze, ops.squeeze, ops.expand, ops.expand_as
    clone, contiguous, narrow, select = ops.clone, ops.contiguous, ops.narrow, ops.select
    softmax, log_softmax = ops.softmax, ops.log_softmax

    # -- more float math, reductions, statistics, cumulative ops (ops/elementwise, statistics,
    # cumulative)

    # -- tests and logic, never recorded (ops/logical)

    # -- shaping (ops/shaping)
    split, chunk, unbind = ops.split, ops.chunk, ops.unbind
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
    __imul__, __itruediv__ = mul_, div_ = _in_place(ops.mul), _in_place(ops.div)

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

    def copy_(self, src: Any) -> Any:
        return ops.inplace(self, ops.copy, src)

    def clamp_(self, min: Any = None, max: Any = None) -> Any:
        return ops.inplace(self, ops.clamp_to, (min, max))

    def normal_(self, mean: float = 0.0, std: float = 1.0) -> Any:
        return ops.inplace(self, ops.fill_random, ("normal", mean, std))

    def uniform_(self, a: float = 0.0, b: float = 1.0) -> Any:
        return ops.inplace(self, ops.fill_random, ("uniform", a, b))
