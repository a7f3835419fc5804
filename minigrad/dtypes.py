"""Dtypes (numpy's, under PyTorch's names) and turning Python data into arrays."""

from __future__ import annotations

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

# dtypes PyTorch does not name in a repr: the defaults for floats, ints and bools
IMPLIED = (float32, int64, bool)


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
