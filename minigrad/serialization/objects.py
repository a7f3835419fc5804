"""Whole objects in a checkpoint: `minigrad.save(model, path)` and
`minigrad.load(path, weights_only=False)`, as PyTorch's "save and load the model" tutorial does.

A model is pickled as Python pickles anything (its class by name, then its attributes), with
each tensor's bytes in the archive's storages as for a state_dict. Loading it runs the class
lookups and constructors the file names: code from the file, which is why `minigrad.load`
refuses it unless asked with `weights_only=False`, as PyTorch does. Do it only for files you
trust. Such a file names minigrad's classes, so PyTorch cannot load it (and minigrad refuses
PyTorch's whole-model files, which name PyTorch's): save a state_dict to go between the two.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.serialization.allowed import SAFE_GLOBALS
from minigrad.serialization.formats import STORAGE_TYPES
from minigrad.serialization.pickler import storage_of
from minigrad.serialization.rebuild import StorageType, rebuild_tensor
from minigrad.surface import meta

__all__: list[str] = []

_PYTORCH_OBJECT = (
    "this file pickles {name}, a PyTorch class: minigrad.load(weights_only=False) loads the "
    "whole objects minigrad saved, not PyTorch's. Save the model's state_dict() in PyTorch and "
    "load that into a minigrad model.")


def rebuild(storage: np.ndarray, offset: int, size: tuple, stride: tuple,
            requires_grad: bool, cls: type) -> Tensor:
    """A tensor (or nn.Parameter, or another Tensor subclass) on its storage."""
    tensor = rebuild_tensor(storage, offset, size, stride)
    if cls is not Tensor:
        tensor = cls(tensor, requires_grad) if cls.__name__ == "Parameter" else \
            _as(cls, tensor)
    return tensor.requires_grad_(requires_grad) if requires_grad != tensor.requires_grad \
        else tensor


def _as(cls: type, tensor: Tensor) -> Tensor:
    made = cls.__new__(cls)
    made.__dict__.update(tensor.__dict__) if hasattr(made, "__dict__") else None
    made.array = tensor.array
    return made


class _Storage:
    """A tensor's storage while pickling: its persistent id names it in the archive."""

    def __init__(self, key: str, array: np.ndarray) -> None:
        self.key, self.array = key, array


class ObjectPickler(pickle.Pickler):
    """Python's pickler, with tensors written as storages plus `rebuild(...)` calls."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=2)
        self.storages: dict[str, np.ndarray] = {}
        self._keys: dict[int, _Storage] = {}
        self._keep: list = []

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, _Storage):
            name = STORAGE_TYPES[obj.array.dtype.newbyteorder("=")]
            return ("storage", StorageType(name), obj.key, "cpu", int(obj.array.size))
        return None

    def reducer_override(self, obj: Any) -> Any:
        if not isinstance(obj, Tensor):
            return NotImplemented
        array = obj.array
        if meta.is_meta(array):
            raise NotImplementedError(meta.NO_SAVE)
        if array.dtype.newbyteorder("=") not in STORAGE_TYPES:
            raise TypeError(f"minigrad.save: no tensor dtype for numpy dtype {array.dtype}")
        owner, offset, strides = storage_of(array)
        storage = self._keys.get(id(owner))
        if storage is None:
            key = str(len(self._keys))
            flat = np.ascontiguousarray(owner).reshape(-1)
            storage = self._keys[id(owner)] = _Storage(key, flat)
            self.storages[key] = flat
            self._keep.append(owner)
        return rebuild, (storage, offset, tuple(array.shape), strides, obj.requires_grad,
                         type(obj))


def dump(obj: Any) -> tuple[bytes, dict[str, np.ndarray]]:
    """(data.pkl, storages) for any object Python can pickle."""
    buffer = io.BytesIO()
    pickler = ObjectPickler(buffer)
    pickler.dump(obj)
    return buffer.getvalue(), pickler.storages


class ObjectUnpickler(pickle.Unpickler):
    """Python's unpickler: the file's classes are imported and called (weights_only=False);
    torch's tensor and storage names are read as minigrad's; other PyTorch classes refused."""

    def __init__(self, data: bytes, load_storage: Any) -> None:
        super().__init__(io.BytesIO(data))
        self._load_storage = load_storage

    def persistent_load(self, pid: Any) -> Any:
        return self._load_storage(tuple(pid))

    def find_class(self, module: str, name: str) -> Any:
        full = f"{module}.{name}"
        if full in SAFE_GLOBALS:
            return SAFE_GLOBALS[full]
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(_PYTORCH_OBJECT.format(name=full))
        return super().find_class(module, name)
