"""Making tensors: tensor(), zeros, ones, randn, rand, arange, full, eye, *_like, manual_seed."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import dtypes
from minigrad.tensor import Tensor

_rng = np.random.default_rng(0)


def generator() -> np.random.Generator:
    """The random generator behind randn/rand/init (seeded by manual_seed)."""
    return _rng


def manual_seed(seed: int) -> np.random.Generator:
    global _rng
    _rng = np.random.default_rng(seed)
    return _rng


seed = manual_seed


def tensor(data: Any, requires_grad: bool = False, dtype: Any = None, name: str | None = None,
           device: Any = None) -> Tensor:
    """A new leaf tensor holding a copy of `data` (float32 for Python floats, like PyTorch)."""
    if device is not None:
        dtypes.check_device(str(device))
    return Tensor(data, requires_grad=requires_grad, dtype=dtype, name=name)


def as_tensor(data: Any, dtype: Any = None) -> Tensor:
    return data if isinstance(data, Tensor) and dtype is None else tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with `array` (as torch.from_numpy)."""
    return Tensor._make(array, None, 0)


def _sizes(size: tuple) -> tuple:
    if len(size) == 1 and not isinstance(size[0], int | np.integer):
        return tuple(size[0])
    return tuple(size)


def _make(values: np.ndarray, requires_grad: bool, name: str | None = None) -> Tensor:
    t = Tensor._make(values, None, 0)
    t.name = name
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False, name: str | None = None
          ) -> Tensor:
    return _make(np.zeros(_sizes(size), dtype=dtype or dtypes.float32), requires_grad, name)


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False, name: str | None = None
         ) -> Tensor:
    return _make(np.ones(_sizes(size), dtype=dtype or dtypes.float32), requires_grad, name)


def full(size: Any, fill_value: float, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    if dtype is None:
        dtype = dtypes.int64 if isinstance(fill_value, int) else dtypes.float32
    return _make(np.full(tuple(size), fill_value, dtype=dtype), requires_grad)


def empty(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _make(np.eye(n, m, dtype=dtype or dtypes.float32), requires_grad)


def randn(*size: Any, dtype: Any = None, requires_grad: bool = False, name: str | None = None
          ) -> Tensor:
    values = _rng.standard_normal(_sizes(size)).astype(dtype or dtypes.float32)
    return _make(values, requires_grad, name)


def rand(*size: Any, dtype: Any = None, requires_grad: bool = False, name: str | None = None
         ) -> Tensor:
    values = _rng.random(_sizes(size)).astype(dtype or dtypes.float32)
    return _make(values, requires_grad, name)


def randint(low: int, high: int | None = None, size: Any = (), dtype: Any = None) -> Tensor:
    if high is None:
        low, high = 0, low
    return _make(_rng.integers(low, high, tuple(size)).astype(dtype or dtypes.int64), False)


def arange(start: float, end: float | None = None, step: float = 1, dtype: Any = None,
           requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    values = np.arange(start, end, step)
    if dtype is None:
        is_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = dtypes.int64 if is_int else dtypes.float32
    return _make(values.astype(dtype), requires_grad)


def linspace(start: float, end: float, steps: int, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    return _make(np.linspace(start, end, steps).astype(dtype or dtypes.float32), requires_grad)


def zeros_like(t: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _make(np.zeros_like(t.array, dtype=dtype), requires_grad)


def ones_like(t: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _make(np.ones_like(t.array, dtype=dtype), requires_grad)


def full_like(t: Tensor, fill_value: float, dtype: Any = None, requires_grad: bool = False
              ) -> Tensor:
    return _make(np.full_like(t.array, fill_value, dtype=dtype), requires_grad)


def randn_like(t: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return randn(*t.array.shape, dtype=dtype or t.array.dtype, requires_grad=requires_grad)


def rand_like(t: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return rand(*t.array.shape, dtype=dtype or t.array.dtype, requires_grad=requires_grad)
