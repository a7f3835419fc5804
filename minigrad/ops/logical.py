"""Tests and logic, never recorded: any, all, isnan ... isneginf, isclose, allclose, equal,
logical_and/or/xor/not, bitwise_and/or/xor/not (the operators & | ^ ~), the comparisons
eq ne lt le gt ge as functions, and count_nonzero.

Their results are bool tensors (count_nonzero: int64; allclose, equal: a Python bool), which
carry no gradient, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import broadcast
from minigrad.ops.base import (
    as_operand,
    constant,
    is_tensor,
    keepdims_alias,
    normalize_dims,
    promote,
    unwrap,
)
from minigrad.ops.reduce import dim_or_axis
from minigrad.surface import meta
from minigrad.surface.dtypes import TORCH_NAMES

# the public functions: minigrad.isnan, ... (re-exported by ops/ and minigrad/)
__all__ = ["all", "allclose", "any", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
           "count_nonzero", "eq", "equal", "ge", "greater", "greater_equal", "gt", "isclose",
           "isfinite", "isinf", "isnan", "isneginf", "isposinf", "le", "less", "less_equal",
           "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "ne", "not_equal"]


def _elementwise(name: str, ufunc: np.ufunc, a: Any, b: Any) -> Any:
    """`ufunc(a, b)` on numpy operands, with PyTorch's error for shapes that do not broadcast."""
    x, y = unwrap(as_operand(a)), unwrap(as_operand(b))
    try:
        return ufunc(x, y)
    except ValueError:
        raise RuntimeError(broadcast.broadcast_message(name, np.shape(x), np.shape(y))) from None


# -- reductions to a truth value -------------------------------------------------------------
def _truth(np_fn: Any, name: str, input: Any, dim: Any, keepdim: bool, axis: Any) -> Any:
    """any/all: bool (uint8 for a uint8 input, as PyTorch), over `dim` (int or tuple)."""
    dim = dim_or_axis(name, dim, axis)
    x = input.array
    dims = normalize_dims(dim, x.ndim)
    out = np.asanyarray(np_fn(x != 0, axis=dims if x.ndim else None, keepdims=keepdim))
    return constant(out.astype(np.uint8) if x.dtype == np.uint8 else out)


@keepdims_alias
def any(input: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None) -> Any:
    """whether any element is nonzero (True), over all or along `dim`"""
    return _truth(np.any, "any", input, dim, keepdim, axis)


@keepdims_alias
def all(input: Any, dim: Any = None, keepdim: bool = False, *, axis: Any = None) -> Any:
    """whether every element is nonzero (True), over all or along `dim`"""
    return _truth(np.all, "all", input, dim, keepdim, axis)


def count_nonzero(input: Any, dim: Any = None) -> Any:
    """how many elements are nonzero, over all or along `dim` (int or tuple): int64"""
    x = input.array
    dims = normalize_dims(dim, x.ndim)
    return constant(np.asanyarray(np.count_nonzero(x, axis=dims if x.ndim else None), np.int64))


# -- tests of each element -------------------------------------------------------------------
def _test(np_fn: Any, name: str) -> Any:
    def function(input: Any) -> Any:
        x = input.array
        if x.dtype.kind != "f":  # integers and bools are finite numbers
            return constant(np.full(x.shape, name == "isfinite"))
        return constant(np_fn(x))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"elementwise {name}: a bool tensor"
    return function


isnan, isinf, isfinite = _test(np.isnan, "isnan"), _test(np.isinf, "isinf"), _test(
    np.isfinite, "isfinite")
isposinf, isneginf = _test(np.isposinf, "isposinf"), _test(np.isneginf, "isneginf")


def _same_dtype(name: str, input: Any, other: Any) -> tuple:
    """isclose/allclose: PyTorch wants one dtype ("Long did not match Float")."""
    if not is_tensor(other):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    x, y = input.array, other.array
    if x.dtype != y.dtype:
        raise RuntimeError(f"{TORCH_NAMES[x.dtype]} did not match {TORCH_NAMES[y.dtype]}")
    return x, y


def compare(np_fn: Any, a: Any, b: Any) -> Any:
    """A comparison (`a < b`, ...): a boolean tensor, never recorded."""
    b = as_operand(b)
    if meta.in_use:  # (a meta tensor next to a CPU one: PyTorch's error)
        meta.check_inputs((a, b))
    x, y = unwrap(a), unwrap(b)
    try:
        return constant(np_fn(x, y))
    except ValueError:  # (shapes that do not broadcast: PyTorch's words)
        raise RuntimeError(broadcast.size_mismatch(np.shape(x), np.shape(y)) or "no broadcast"
                           ) from None


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Any:
    """|input - other| <= atol + rtol * |other| elementwise (equal infinities are close)"""
    x, y = _same_dtype("isclose", input, other)
    return constant(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """whether every element is `isclose`: a Python bool"""
    if meta.in_use and (meta.is_meta(unwrap(input)) or meta.is_meta(unwrap(other))):
        raise RuntimeError(meta.ITEM)  # (as PyTorch's, which reads its answer with item())
    x, y = _same_dtype("allclose", input, other)
    return bool(np.all(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def equal(input: Any, other: Any) -> bool:
    """whether both have the same shape and elements: a Python bool"""
    meta.refuse_values("equal()", input, other)
    x, y = input.array, other.array
    return x.shape == y.shape and bool(np.all(x == y))


# -- logic -----------------------------------------------------------------------------------
def _logical(ufunc: np.ufunc, name: str) -> Any:
    """logical_and/or/xor of two tensors (nonzero is True): a bool tensor."""

    def function(input: Any, other: Any) -> Any:
        if not is_tensor(other):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        return constant(_elementwise(name, ufunc, input, other))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"elementwise {name} (nonzero is True): a bool tensor"
    return function


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


def logical_not(input: Any) -> Any:
    return constant(np.logical_not(input.array))


def _bitwise(ufunc: np.ufunc, name: str) -> Any:
    """bitwise_and/or/xor on bool and integer tensors (and numbers), PyTorch's result dtype;
    floats get PyTorch's error."""

    def function(input: Any, other: Any) -> Any:
        x, y = promote(unwrap(as_operand(input)), unwrap(as_operand(other)))
        dtype = np.result_type(x, y)
        if dtype.kind == "f":
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{TORCH_NAMES[dtype]}'")
        return constant(_elementwise(name, ufunc, x, y))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"elementwise {name} of bool or integer tensors"
    return function


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")


def bitwise_not(input: Any) -> Any:
    """~input: not for bools, the bits inverted for integers"""
    x = input.array
    if x.dtype.kind == "f":
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for '
                                  f"'{TORCH_NAMES[x.dtype]}'")
    return constant(np.invert(x))


def invert(input: Any) -> Any:
    """the operator `~`: PyTorch's TypeError for a float tensor"""
    if input.array.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(input)


# -- comparisons as functions ----------------------------------------------------------------
def _comparison(ufunc: np.ufunc, name: str) -> Any:
    def function(input: Any, other: Any) -> Any:
        return constant(np.asanyarray(_elementwise(name, ufunc, input, other)))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"elementwise {name} (broadcast): a bool tensor"
    return function


eq, ne = _comparison(np.equal, "eq"), _comparison(np.not_equal, "ne")
lt, le = _comparison(np.less, "lt"), _comparison(np.less_equal, "le")
gt, ge = _comparison(np.greater, "gt"), _comparison(np.greater_equal, "ge")
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge

