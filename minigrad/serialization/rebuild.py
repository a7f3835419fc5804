"""Rebuilding tensors from the archive's storages: what `torch._utils._rebuild_tensor_v2`
and `torch.FloatStorage` stand for when minigrad reads a file.

A tensor is a view of its storage with PyTorch's offset and strides (in elements); the view is
checked to lie inside the storage, and a storage must be exactly as long as its record, before
any memory is given to it. Tensors that share a storage in the file share memory again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pickle import UnpicklingError
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.serialization.archive import ArchiveReader
from minigrad.serialization.formats import DTYPES, OTHER_STORAGES, weights_only_error
from minigrad.surface.size import Size


class StorageType:
    """What `torch.FloatStorage` (and the other storage classes) stand for: a dtype (None for
    a dtype minigrad does not have)."""

    def __init__(self, name: str) -> None:
        self.name, self.dtype = name, DTYPES.get(name)

    def numpy_dtype(self) -> np.dtype:
        if self.dtype is None:
            raise RuntimeError(
                f"this file holds a tensor of dtype {OTHER_STORAGES[self.name]} "
                f"(torch.{self.name}), which minigrad does not have; its dtypes are "
                + ", ".join(str(d) for d in DTYPES.values()))
        return self.dtype

    def __repr__(self) -> str:
        return f"StorageType(torch.{self.name})"


def _is_int(n: Any) -> bool:
    return type(n) is int


def _overlaps(size: tuple, stride: tuple) -> bool:
    """Whether two elements of the view may share memory (an expanded tensor, stride 0): such a
    view loads read-only, since writing into it in place would write some elements twice
    (PyTorch refuses that too: "more than one element of the written-to tensor refers to a
    single memory location")."""
    reach = 0  # the farthest element the dims so far reach, in elements past the first
    for s, n in sorted((s, n) for n, s in zip(size, stride) if n > 1):
        if s <= reach:
            return True
        reach += (n - 1) * s
    return False


def _flag(requires_grad: Any) -> bool:
    if type(requires_grad) is not bool:
        raise UnpicklingError(f"requires_grad must be a bool, not {type(requires_grad)}")
    return requires_grad


def rebuild_tensor(storage: Any, offset: int, size: tuple, stride: tuple,
                   requires_grad: bool = False, backward_hooks: Any = None,
                   metadata: Any = None) -> Tensor:
    """torch._utils._rebuild_tensor_v2: a view of `storage` (a 1-d array)."""
    if not isinstance(storage, np.ndarray) or storage.ndim != 1:
        raise UnpicklingError(f"a tensor must be rebuilt from a storage, not {type(storage)}")
    if not (type(size) in (tuple, Size) and type(stride) is tuple and len(size) == len(stride)
            and len(size) <= 64 and all(map(_is_int, (offset, *size, *stride)))):
        raise UnpicklingError("a tensor's size and stride must be tuples of as many ints")
    if backward_hooks or metadata:
        raise UnpicklingError(weights_only_error(
            "a tensor with backward hooks or conj/neg metadata cannot be loaded by minigrad"))
    if offset < 0 or min((*size, *stride, 0)) < 0 or \
            max((offset, *stride, math.prod(size))) >= 2**59:  # (bytes fit int64)
        raise RuntimeError(f"a tensor has a negative or too large size, stride or offset: "
                           f"sizes {list(size)}, strides {list(stride)}, storage offset {offset}")
    # the last element's index + 1; an empty tensor needs no elements
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage.size:
        raise RuntimeError(
            f"Trying to resize storage that is not resizable: sizes {list(size)}, strides "
            f"{list(stride)} and storage offset {offset} need {needed} elements, the storage "
            f"holds {storage.size}")
    view = np.lib.stride_tricks.as_strided(
        storage[min(offset, storage.size):], shape=size,
        strides=[s * storage.itemsize for s in stride], writeable=not _overlaps(size, stride))
    tensor = Tensor._make(view, None, 0)
    return tensor.requires_grad_(True) if _flag(requires_grad) else tensor


def rebuild_tensor_v3(storage: Any, offset: int, size: tuple, stride: tuple,
                      requires_grad: bool, backward_hooks: Any, dtype: Any,
                      metadata: Any = None) -> Tensor:
    """torch._utils._rebuild_tensor_v3: as v2, the dtype named apart from the storage."""
    if not isinstance(storage, np.ndarray) or dtype != storage.dtype:
        raise UnpicklingError(f"a tensor of dtype {dtype} cannot be rebuilt from {storage!r:.60}")
    return rebuild_tensor(storage, offset, size, stride, requires_grad, backward_hooks, metadata)


def rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Tensor:
    """torch._utils._rebuild_parameter. minigrad's core cannot make an nn.Parameter (nn is
    built on the core), so a saved Parameter loads as a leaf Tensor with its requires_grad:
    what Module.load_state_dict and optimizers need from it."""
    if not isinstance(data, Tensor) or backward_hooks:
        raise UnpicklingError("a Parameter must be rebuilt from a tensor, without hooks")
    return data.requires_grad_(_flag(requires_grad))


def storage_loader(archive: ArchiveReader, restore: Callable[[np.ndarray, str], np.ndarray]
                   ) -> Callable[[tuple], np.ndarray]:
    """`persistent_load` for `archive`: each storage is read once, as a writable 1-d array,
    and handed to `restore(storage, location)` (map_location's say)."""
    loaded: dict[str, np.ndarray] = {}
    order = archive.read("byteorder") if archive.has("byteorder") else b"little"
    if order not in (b"little", b"big"):
        raise ValueError("Unknown endianness type: " + order.decode("utf-8", "replace"))
    mark = "<" if order == b"little" else ">"

    def load_storage(pid: tuple) -> np.ndarray:
        if len(pid) != 5 or not isinstance(pid[1], StorageType) or type(pid[2]) is not str \
                or type(pid[3]) is not str or not _is_int(pid[4]) or pid[4] < 0:
            raise UnpicklingError(f"malformed storage id {pid!r:.120}")
        _, kind, key, where, numel = pid
        dtype = kind.numpy_dtype()
        if key in loaded:
            if loaded[key].dtype != dtype:
                raise RuntimeError(f"storage {key} is named with two dtypes")
            return loaded[key]
        name, nbytes = f"data/{key}", numel * dtype.itemsize
        if not archive.has(name) or archive.size(name) != nbytes:
            found = archive.size(name) if archive.has(name) else "no"
            raise RuntimeError(f"storage {key} claims {numel} elements of {dtype} "
                               f"({nbytes} bytes) but the archive holds {found} bytes for it")
        raw = np.frombuffer(bytearray(archive.read(name)), dtype.newbyteorder(mark))
        loaded[key] = restore(raw if raw.dtype.isnative else raw.astype(dtype), where)
        return loaded[key]

    return load_storage
