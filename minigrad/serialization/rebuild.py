"""The globals a checkpoint may name, and rebuilding tensors from the archive's storages.

Each allowed global stands for something small written here (or a harmless builtin such as
`set`): `torch._utils._rebuild_tensor_v2` is `rebuild_tensor`, `torch.FloatStorage` a
`StorageType`, `torch.Size` minigrad's Size. A tensor is a view of its storage with PyTorch's
offset and strides (in elements); the view is checked to lie inside the storage, and a storage
must be exactly as long as its record, before any memory is given to it.
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from collections.abc import Callable
from pickle import UnpicklingError
from typing import Any

import numpy as np

from minigrad.serialization.archive import ArchiveReader
from minigrad.serialization.formats import (
    DTYPE_GLOBALS,
    DTYPES,
    OTHER_STORAGES,
    weights_only_error,
)
from minigrad.serialization.unpickler import check_key
from minigrad.tensor import Size, Tensor


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


def _latin1(text: str, encoding: str) -> bytes:
    """`_codecs.encode` as protocol 2 pickles bytes: only `(str, 'latin1')`."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise ValueError("_codecs.encode is allowed only as pickle writes bytes: (str, 'latin1')")
    return text.encode("latin1")


def _bytearray(data: str | bytes = b"", encoding: str = "latin-1") -> bytearray:
    """`bytearray` as pickle writes it (never `bytearray(n)`, which would allocate n bytes)."""
    return bytearray(_latin1(data, encoding) if type(data) is str else bytes(data)) \
        if type(data) in (str, bytes) else _refuse("bytearray", data)


def _complex(*parts: Any) -> complex:
    if not all(type(p) in (int, float, str) for p in parts):
        _refuse("complex", parts)
    return complex(*parts)


def _set(items: Any = ()) -> set:
    return set(map(check_key, _items(items)))


def _ordered_dict(pairs: Any = ()) -> OrderedDict:
    return OrderedDict((check_key(k), v) for k, v in _items(pairs))


def _counter(counts: Any = None) -> Counter:
    """`Counter` as pickle writes it: from a dict (whose keys were checked as it was read)."""
    return Counter() if counts is None else Counter(counts) if type(counts) is dict else \
        _refuse("Counter", counts)


def _size(dims: Any = ()) -> Size:
    return Size(dims) if type(dims) is tuple and all(map(_is_int, dims)) else _refuse("Size", dims)


def _items(items: Any) -> Any:
    return items if type(items) in (list, tuple) else _refuse("a constructor", items)


def _refuse(name: str, args: Any) -> Any:
    raise TypeError(f"{name} is allowed only on what pickle writes for it, not {type(args)}")


def _is_int(n: Any) -> bool:
    return type(n) is int


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
        strides=[s * storage.itemsize for s in stride])
    tensor = Tensor._make(view, None, 0)
    if requires_grad is True:
        tensor.requires_grad_(True)
    return tensor


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
    if requires_grad is True and data.dtype.kind == "f":
        data.requires_grad_(True)
    return data


SAFE_GLOBALS: dict[str, Any] = {
    "collections.OrderedDict": _ordered_dict,
    "collections.Counter": _counter,
    "builtins.set": _set,
    "builtins.complex": _complex,
    "builtins.bytearray": _bytearray,
    "_codecs.encode": _latin1,
    "torch.Size": _size,
    "torch._utils._rebuild_tensor": rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": rebuild_tensor,
    "torch._utils._rebuild_parameter": rebuild_parameter,
    **{f"torch.{name}": StorageType(name) for name in (*DTYPES, *OTHER_STORAGES)},
    "torch.storage.UntypedStorage": StorageType("UntypedStorage"),
    "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
    **{f"torch.{name}": np.dtype(dtype) for name, dtype in DTYPE_GLOBALS.items()},
}


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
