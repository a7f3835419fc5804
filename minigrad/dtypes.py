"""Dtypes (numpy's, under PyTorch's names) and turning Python data into arrays."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

float32 = float = np.dtype(np.float32)
float64 = double = np.dtype(np.float64)
float16 = half = np.dtype(np.float16)
int64 = long = np.dtype(np.int64)
int32 = int = np.dtype(np.int32)
int16 = short = np.dtype(np.int16)
int8 = np.dtype(np.int8)
uint8 = np.dtype(np.uint8)
bool = np.dtype(np.bool_)  # noqa: A001 - PyTorch's spelling

# PyTorch's names of the dtypes in its messages ("result type Float can't be cast to ... Long")
TORCH_NAMES = {float32: "Float", float64: "Double", float16: "Half", int64: "Long", int32: "Int",
               int16: "Short", int8: "Char", uint8: "Byte", bool: "Bool"}

# dtypes PyTorch does not name in a repr: the defaults for floats, ints and bools
IMPLIED = (float32, int64, bool)


# PyTorch's categories: a dtype of a higher one wins, whatever its size (int64 + float16 is float16)
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def promote_types(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    """`torch.promote_types`: bool < integer < float; within a category, numpy's rule."""
    if a is None or a is b:
        return b
    if b is None:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """A dtype from a weaker kind of operand (0-d tensor, number) counts only if it is of a
    higher category (PyTorch's combine_categories)."""
    if higher is None:
        return lower
    if lower is None or higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> np.dtype:
    """`torch.result_type` of arrays (as tensors' data) and Python numbers (None is skipped).

    Tensors with dims decide; a 0-d tensor, then a Python number, counts only when it is of a
    higher category than those before it (bool < integer < float); a Python float is the
    default dtype float32, an int int64: `int8 tensor + 1000` stays int8, `int tensor + 1.5`
    is float32 and `int tensor + float64 0-d tensor` float64.
    """
    dims = zero_dim = numbers = None
    for x in operands:
        if isinstance(x, np.ndarray):
            if x.ndim:
                dims = promote_types(dims, x.dtype)
            else:
                zero_dim = promote_types(zero_dim, x.dtype)
        elif x is not None:
            kind = (bool if isinstance(x, (builtins.bool, np.bool_)) else
                    int64 if isinstance(x, (builtins.int, np.integer)) else float32)
            numbers = promote_types(numbers, kind)
    return _combine(dims, _combine(zero_dim, numbers))


def name(dtype: np.dtype) -> str:
    return f"minigrad.{np.dtype(dtype).name}"


def as_array(data: Any, dtype: Any = None) -> np.ndarray:
    """Turn Python/numpy data into an array with PyTorch's default dtypes.

    Python floats become float32 and Python ints int64 (as `torch.tensor` does); a numpy
    array keeps its dtype, as `torch.from_numpy`/`torch.tensor(ndarray)` keep it.
    """
    if dtype is not None:
        return np.array(data, dtype=np.dtype(dtype))
    if isinstance(data, np.ndarray):
        return data.copy()
    if isinstance(data, np.generic):
        return np.array(data)
    array = np.array(data)
    if array.dtype.kind == "f":
        return array.astype(float32)
    if array.dtype.kind in "iu":
        return array.astype(int64)
    if array.dtype.kind == "O":
        raise TypeError(f"can't convert {type(data).__name__} of mixed or nested objects to a "
                        "Tensor")
    return array


def check_device(device: str) -> None:
    """minigrad computes on the CPU with numpy: refuse any other device clearly."""
    if not device.startswith("cpu"):
        raise RuntimeError(
            f"minigrad computes on the CPU with numpy; there is no '{device}' device. "
            "Remove .cuda()/.to('cuda') or use device='cpu'.")


def parse_to(args: tuple, kwargs: dict) -> Any:
    """The dtype asked for by `.to(...)` (None if only a device was given); refuses non-CPU."""
    dtype = kwargs.get("dtype")
    for a in list(args) + [kwargs.get("device")]:
        if a is None:
            continue
        if isinstance(a, str) or type(a).__name__ == "device":
            check_device(str(a))
        else:
            dtype = a
    return dtype
