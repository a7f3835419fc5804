"""Making tensors: tensor(), as_tensor, from_numpy, zeros, ones, empty, full, eye, arange,
linspace, logspace and the *_like forms. The random factories are in random_factories.py,
the generator they draw from in random.py.

Every factory takes a shape as `*size`, one sequence or `size=`, and `dtype=`, `device=`
(the CPU only), `requires_grad=` and `out=` (the values written into that tensor), as
PyTorch's do.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.ops.out import write_out
from minigrad.surface import devices, dtypes, layouts, meta, random
from minigrad.surface.layouts import LIKE, MADE, keywords
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
    is accepted and means nothing: minigrad's tensors are all strided, PyTorch's default);
    on the meta device, a meta tensor of their shape and dtype (surface/meta.py)."""
    if layouts.check_options(op, devices.default_if_none(device), layout, pin_memory):
        values = meta.like(values)
    t = Tensor._make(values, None, 0)
    t.name = name
    if requires_grad:
        t._leaf_requires_grad()
    if out is not None:  # (the values written into `out`, in its dtype, as PyTorch's)
        return write_out(t, out, op, factory=True)
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
        if meta.is_meta(data.array):  # (a copy on the meta device: its values are not there)
            if device is not None and not devices.wants_meta(device):
                raise NotImplementedError(meta.NO_DATA)
            device = devices.META
        data = data.array
    return leaf(dtypes.as_array(data, dtype), requires_grad, name, device,
                pin_memory=pin_memory)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """`data` as a tensor, sharing its memory when it can (a tensor, or a numpy array of the
    dtype asked for); a copy otherwise."""
    np_dtype = dtypes.numpy_dtype(dtype)
    if isinstance(data, Tensor):  # (itself, unless another dtype or device is asked for)
        return data.to(device=device, dtype=np_dtype)
    if devices.wants_meta(device):
        return leaf(dtypes.as_array(data, np_dtype), device=device)
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


@keywords("size", *MADE)
def zeros(*lengths: Any, dtype: Any = None, **kw: Any) -> Tensor:
    """zeros(2, 3), zeros((2, 3)), zeros(size=(2, 3)); dtype=, device=, requires_grad=."""
    return _filled("zeros", lengths, 0, dtype, kw)


@keywords("size", *MADE)
def ones(*lengths: Any, dtype: Any = None, **kw: Any) -> Tensor:
    return _filled("ones", lengths, 1, dtype, kw)


@keywords("size", *MADE, "memory_format")
def empty(*lengths: Any, dtype: Any = None, **kw: Any) -> Tensor:
    """Zeros (PyTorch leaves the memory uninitialised: any values may be there)."""
    layouts.check_memory_format(kw.pop("memory_format", None), "empty", 0)
    return _filled("empty", lengths, 0, dtype, kw)


@keywords(*MADE)
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


@keywords(*MADE)
def eye(n: int, m: int | None = None, dtype: Any = None, **kw: Any) -> Tensor:
    return leaf(np.eye(n, m, dtype=float_dtype(dtype)), op="eye", **kw)


@keywords(*MADE)
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


@keywords(*MADE)
def linspace(start: float, end: float, steps: int, dtype: Any = None, **kw: Any) -> Tensor:
    return leaf(np.linspace(start, end, steps).astype(float_dtype(dtype)), op="linspace", **kw)


@keywords(*MADE)
def logspace(start: float, end: float, steps: int, base: float = 10.0, dtype: Any = None,
             **kw: Any) -> Tensor:
    values = np.logspace(start, end, steps, base=base).astype(float_dtype(dtype))
    return leaf(values, op="logspace", **kw)


def _like(op: str, t: Tensor, fill: Any, dtype: Any, kw: dict) -> Tensor:
    layouts.check_memory_format(kw.pop("memory_format", None), op, t.array.ndim)
    np_dtype = dtypes.numpy_dtype(dtype) or t.array.dtype
    if kw.get("device") is None:  # (on the input's device, whatever the default)
        kw["device"] = t.device
    return leaf(np.full(t.array.shape, fill, np_dtype), op=op, **kw)


@keywords(*LIKE)
def zeros_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    return _like("zeros_like", input, 0, dtype, kw)


@keywords(*LIKE)
def ones_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    return _like("ones_like", input, 1, dtype, kw)


@keywords(*LIKE)
def empty_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    """Zeros (PyTorch leaves the memory uninitialised)."""
    return _like("empty_like", input, 0, dtype, kw)


@keywords(*LIKE)
def full_like(input: Tensor, fill_value: Any, dtype: Any = None, **kw: Any) -> Tensor:
    return _like("full_like", input, fill_value, dtype, kw)
