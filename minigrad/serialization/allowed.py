"""The globals a checkpoint may name, and what each stands for in minigrad.

A GLOBAL in a pickle names a function or class that unpickling calls. minigrad allows the
handful that PyTorch's checkpoints use and maps each to something small written here:
`torch._utils._rebuild_tensor_v2` is `rebuild_tensor`, `torch.FloatStorage` a `StorageType`,
`torch.Size` minigrad's Size, and the plain Python types PyTorch's weights-only loader allows
(set, bytes, bytearray, complex, OrderedDict, Counter) only as pickle writes them: `set` from
a list, never `bytearray(10**12)`.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any

from minigrad.serialization.formats import DTYPE_GLOBALS, DTYPES, OTHER_STORAGES
from minigrad.serialization.rebuild import (
    StorageType,
    rebuild_parameter,
    rebuild_tensor,
    rebuild_tensor_v3,
)
from minigrad.serialization.unpickler import check_key
from minigrad.surface import devices, dtypes
from minigrad.surface.size import Size


def _latin1(text: str, encoding: str) -> bytes:
    """`_codecs.encode` as protocol 2 pickles bytes: only `(str, 'latin1')`."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise ValueError("_codecs.encode is allowed only as pickle writes bytes: (str, 'latin1')")
    return text.encode("latin1")


def _bytearray(data: str | bytes = b"", encoding: str = "latin-1") -> bytearray:
    """`bytearray` as pickle writes it (never `bytearray(n)`, which would allocate n bytes)."""
    if type(data) is str:
        return bytearray(_latin1(data, encoding))
    if type(data) is bytes:
        return bytearray(data)
    return _refuse("bytearray", data)


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
    if counts is None or type(counts) is dict:
        return Counter(counts)
    return _refuse("Counter", counts)


def _size(dims: Any = ()) -> Size:
    if type(dims) is tuple and all(type(n) is int for n in dims):
        return Size(dims)
    return _refuse("Size", dims)


def _device(kind: Any, index: Any = None) -> devices.device:
    """`torch.device` as pickle writes it: ("cpu",) or ("cuda", 0)."""
    if type(kind) is not str or not (index is None or type(index) is int):
        return _refuse("device", (kind, index))
    return devices.device(kind) if index is None else devices.device(kind, index)


def _items(items: Any) -> Any:
    return items if type(items) in (list, tuple) else _refuse("a constructor", items)


def _refuse(name: str, args: Any) -> Any:
    raise TypeError(f"{name} is allowed only on what pickle writes for it, not {type(args)}")


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
    "torch.device": _device,
    **{f"torch.{name}": dtypes.of(dtype) for name, dtype in DTYPE_GLOBALS.items()},
}
