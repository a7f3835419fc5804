"""How `torch.tensor()` reads a list or tuple of Python data, so that minigrad reads it alike.

numpy alone reads such data otherwise: `[one-element tensor] * 2` as a (2, 1) array where
PyTorch makes a (2,) tensor, float64 arrays in a list as float32, `[float16 scalar, 1]` as
float32, and it words its refusals its own way. PyTorch reads the data in three passes
(torch/csrc/utils/tensor_new.cpp), each with its own errors, and so does this module:
1. the sizes, read down the first items (a str there has "too many dimensions");
2. the dtype, promoted over every item in order (a str is an "invalid data type", None or
   any other object "Could not infer dtype");
3. each item checked against the sizes: a sequence where a number goes, a number where a
   sequence goes, a sequence of another length, a tensor or array of more than one element.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

_PLAIN = frozenset((builtins.float, builtins.int, builtins.bool))
_MAX_DIMS = 64  # (PyTorch's limit on the sizes it reads)
_NUMBERS = _PLAIN | {builtins.complex}


def read(data: Any, inferred: Callable[[list], np.dtype],
         dtype: np.dtype | None = None) -> np.ndarray:
    """`data` as an array of PyTorch's shape and dtype: `dtype`, else `inferred(found)`, the
    dtype PyTorch infers from the Python types and dtypes of the items (dtypes.py knows the
    default ones; the order they are promoted in does not change the result); or PyTorch's
    error."""
    if type(data) is list or type(data) is tuple:
        kinds = set(map(type, data))
        if kinds <= _PLAIN:  # (a row of Python numbers: the usual case, read at once)
            return _array(data, dtype or inferred(list(kinds)))
    if isinstance(data, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    sizes = _sizes(data)
    found: list = []
    if dtype is None:
        _infer(data, found)
        dtype = inferred(found)
    if found and set(found) <= _NUMBERS:  # (Python numbers in lists: numpy refuses what
        try:  # PyTorch refuses, so each item is checked only then, for PyTorch's words)
            return _array(data, dtype).reshape(sizes)
        except ValueError:
            _store(data, sizes, 0, dtype.kind)
            raise
    if _store(data, sizes, 0, dtype.kind):  # (a tensor of one element counts as its number,
        data = _numbers(data)  # as in PyTorch)
    return _array(data, dtype).reshape(sizes)


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "grad_fn") and hasattr(x, "array")


def _is_sequence(x: Any) -> bool:
    return isinstance(x, list | tuple | range | str | bytes | np.ndarray)


def _sizes(data: Any) -> list:
    sizes, seq = [], data
    while _is_sequence(seq):
        sizes.append(len(seq))  # (a 0-d array: Python's "len() of unsized object", as PyTorch)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if not sizes[-1]:
            break
        seq = seq[0]
    return sizes


def _infer(x: Any, found: list) -> None:
    """Collect the dtype of each item of `x` (Python types for numbers) in PyTorch's order,
    raising its error at the first item it cannot read."""
    if isinstance(x, list | tuple | range):
        kinds = set(map(type, x))
        if kinds <= _PLAIN:  # (a row of plain numbers: no need to look at each)
            found.extend(kinds)
            return
        for item in x:
            _infer(item, found)
    elif type(x) in _PLAIN or isinstance(x, builtins.complex):
        found.append(builtins.complex if isinstance(x, builtins.complex) else type(x))
    elif isinstance(x, np.ndarray | np.generic) and x.dtype.kind in "biufc":
        found.append(x.dtype)
    elif _is_tensor(x):
        found.append(x.array.dtype)
    elif isinstance(x, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    else:
        raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _store(x: Any, sizes: list, dim: int, kind: str) -> bool:
    """Check each item against `sizes` in PyTorch's words, for a dtype of `kind` (numpy's
    letter); whether a tensor was met."""
    if dim == len(sizes):
        return _scalar(x, kind)
    if not _is_sequence(x) or isinstance(x, str | bytes):
        raise TypeError("not a sequence")
    if len(x) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                         f"(got {len(x)})")
    if dim == len(sizes) - 1 and isinstance(x, list | tuple) and set(map(type, x)) <= _PLAIN:
        return False
    tensors = False
    for item in x:
        tensors = _store(item, sizes, dim + 1, kind) or tensors
    return tensors


def _scalar(x: Any, kind: str) -> bool:
    """A number where PyTorch stores one, into a dtype of `kind`; whether `x` is a tensor.

    Into an integer or bool dtype PyTorch reads a number as an index (`__index__`): Python
    floats pass, numpy's other floats and integer tensors do not; into a float dtype, as a
    float: a Python complex does not. Each has its wording, as has a sequence there, or a
    tensor or an array of more than one element."""
    index = kind not in "fc"
    if _is_tensor(x):
        if x.array.size != 1 or index and x.array.dtype.kind in "fc":
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index") if index else ValueError(
                "only one element tensors can be converted to Python scalars")
        return True
    if isinstance(x, np.ndarray) and x.ndim:
        raise TypeError("only integer scalar arrays can be converted to a scalar index" if index
                        else "only 0-dimensional arrays can be converted to Python scalars")
    number = isinstance(x, builtins.int | builtins.float | builtins.complex | np.number
                        | np.bool_)
    if kind == "c" and number or kind == "f" and number and type(x) is not builtins.complex:
        return False
    if isinstance(x, builtins.int | builtins.float | np.integer) or kind == "b" and isinstance(
            x, builtins.complex | np.bool_):
        return False
    if type(x) is np.ndarray:  # (0-d: numpy's own error when read as a number)
        return False
    name = type(x).__name__ if type(x).__module__ == "builtins" else \
        f"{type(x).__module__}.{type(x).__name__}"
    raise TypeError(f"'{name}' object cannot be interpreted as an integer" if index
                    else f"must be real number, not {name}")


def _array(data: Any, dtype: np.dtype) -> np.ndarray:
    """numpy's array of `data` checked data; PyTorch's errors for a number that does not fit
    an integer dtype (an unsigned one takes negatives down to -max, wrapped, as PyTorch)."""
    try:
        return np.array(data, dtype=dtype)
    except (OverflowError, ValueError):  # (ValueError: NaN to an integer)
        if dtype.kind not in "iu":
            raise
        if _big_int(data):
            raise ValueError("Overflow when unpacking long long") from None
        wide = np.array(data, dtype=np.float64)
        top = np.iinfo(dtype).max
        if dtype.kind == "u" and np.isfinite(wide).all() and (np.abs(wide) <= top).all():
            return wide.astype(np.int64).astype(dtype)
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without "
                           "overflow") from None


def _big_int(x: Any) -> bool:
    """Whether `x` holds a Python int that no int64 holds."""
    if isinstance(x, list | tuple):
        return any(_big_int(item) for item in x)
    return type(x) is builtins.int and not -2**63 <= x < 2**63


def _numbers(x: Any) -> Any:
    """`x` with each tensor replaced by its one number."""
    if _is_tensor(x):
        return x.array.reshape(())[()]
    if isinstance(x, list | tuple | range | np.ndarray):
        return [_numbers(item) for item in x]
    return x
