"""Making tensors: tensor(), as_tensor, from_numpy, zeros, ones, empty, full, eye, arange,
linspace, logspace and the *_like forms. The random factories are in random_factories.py,
the generator they draw from in random.py.

Every factory takes a shape as `*size`, one sequence or `size=`, and `dtype=`, `device=`
(the CPU only) and `requires_grad=`, as PyTorch's do. `out=` is not taken: minigrad's
factories always make a new tensor.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.surface import devices, dtypes, random
from minigrad.surface.random import manual_seed, seed  # noqa: F401 (PyTorch's names)
from minigrad.surface.size import sizes

COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor).")


def generator() -> np.random.Generator:
    """numpy's generator inside `minigrad.default_generator`, which randn/rand/init/dropout
    draw from (seeded by manual_seed)."""
    return random.default_generator.rng


def leaf(values: np.ndarray, requires_grad: bool = False, name: str | None = None,
         device: Any = None, out: Any = None, op: str = "", layout: Any = None,
         pin_memory: bool = False) -> Tensor:
    """A new leaf on `values`, after checking the arguments every factory shares (`layout=`
    is accepted and means nothing: minigrad's tensors are all strided, PyTorch's default)."""
    if pin_memory:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                           "pinned memory allocator is available on this system.\n"
                           + devices.CPU_ONLY_HINT)
    if out is not None:
        raise TypeError(f"{op}(): minigrad's factories take no out= (they always make a new "
                        f"tensor): write `x = minigrad.{op}(...)`, or `x.copy_(...)` to fill x")
    if device is not None:
        devices.check_device(device)
    t = Tensor._make(values, None, 0)
    t.name = name
    if requires_grad:
        t._leaf_requires_grad()
    return t


def float_dtype(dtype: Any) -> np.dtype:
    """numpy's dtype for `dtype=`, the default float dtype when None."""
    return dtypes.numpy_dtype(dtype) or dtypes.default_float()


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False, name: str | None = None) -> Tensor:
    """A new leaf tensor holding a copy of `data` (Python floats in the default dtype,
    float32, ints int64, as PyTorch does); `name=` labels it in minigrad's printouts."""
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
        data = data.array
    return leaf(dtypes.as_array(data, dtype), requires_grad, name, device,
                pin_memory=pin_memory)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """`data` as a tensor, sharing its memory when it can (a tensor, or a numpy array of the
    dtype asked for); a copy otherwise."""
    np_dtype = dtypes.numpy_dtype(dtype)
    if device is not None:
        devices.check_device(device)
    if isinstance(data, Tensor):
        return data if np_dtype is None or np_dtype == data.array.dtype else data.to(np_dtype)
    if isinstance(data, np.ndarray) and (np_dtype is None or np_dtype == data.dtype):
        return Tensor._make(data, None, 0)
    return leaf(dtypes.as_array(data, np_dtype))


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with `array` (as torch.from_numpy): writing one changes both."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return Tensor._make(array, None, 0)


def _filled(op: str, size: tuple, fill: Any, dtype: Any, kw: dict) -> Tensor:
    shape = sizes(op, size, kw.pop("size", None))
    return leaf(np.full(shape, fill, float_dtype(dtype)), op=op, **kw)


def zeros(*size: Any, dtype: Any = None, **kw: Any) -> Tensor:
    """zeros(2, 3), zeros((2, 3)), zeros(size=(2, 3)); dtype=, device=, requires_grad=."""
    return _filled("zeros", size, 0, dtype, kw)


def ones(*size: Any, dtype: Any = None, **kw: Any) -> Tensor:
    return _filled("ones", size, 1, dtype, kw)


def empty(*size: Any, dtype: Any = None, **kw: Any) -> Tensor:
    """Zeros (PyTorch leaves the memory uninitialised: any values may be there)."""
    kw.pop("memory_format", None)
    return _filled("empty", size, 0, dtype, kw)


def full(size: Any, fill_value: Any, dtype: Any = None, **kw: Any) -> Tensor:
    """`fill_value` everywhere; its dtype as PyTorch infers it (an int int64, a bool bool, a
    float the default float dtype) unless `dtype=` says."""
    if not isinstance(size, tuple | list):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    if dtype is None:
        dtype = (dtypes.bool if isinstance(fill_value, bool | np.bool_) else
                 dtypes.int64 if isinstance(fill_value, int | np.integer) else
                 dtypes.default_float())
    return _filled("full", (size,), fill_value, dtype, kw)


def eye(n: int, m: int | None = None, dtype: Any = None, **kw: Any) -> Tensor:
    return leaf(np.eye(n, m, dtype=float_dtype(dtype)), op="eye", **kw)


def arange(start: float, end: float | None = None, step: float = 1, dtype: Any = None,
           **kw: Any) -> Tensor:
    """Ints give int64, any float the default float dtype (PyTorch's rule)."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        is_int = all(isinstance(v, int | np.integer) for v in (start, end, step))
        dtype = dtypes.int64 if is_int else dtypes.default_float()
    values = np.arange(start, end, step).astype(dtypes.numpy_dtype(dtype))
    return leaf(values, op="arange", **kw)


def linspace(start: float, end: float, steps: int, dtype: Any = None, **kw: Any) -> Tensor:
    return leaf(np.linspace(start, end, steps).astype(float_dtype(dtype)), op="linspace", **kw)


def logspace(start: float, end: float, steps: int, base: float = 10.0, dtype: Any = None,
             **kw: Any) -> Tensor:
    values = np.logspace(start, end, steps, base=base).astype(float_dtype(dtype))
    return leaf(values, op="logspace", **kw)


def _like(op: str, t: Tensor, fill: Any, dtype: Any, kw: dict) -> Tensor:
    kw.pop("memory_format", None)
    np_dtype = dtypes.numpy_dtype(dtype) or t.array.dtype
    return leaf(np.full(t.array.shape, fill, np_dtype), op=op, **kw)


def zeros_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    return _like("zeros_like", input, 0, dtype, kw)


def ones_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    return _like("ones_like", input, 1, dtype, kw)


def empty_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    """Zeros (PyTorch leaves the memory uninitialised)."""
    return _like("empty_like", input, 0, dtype, kw)


def full_like(input: Tensor, fill_value: Any, dtype: Any = None, **kw: Any) -> Tensor:
    return _like("full_like", input, fill_value, dtype, kw)
