"""Writing `data.pkl`: a protocol-2 pickle of the data minigrad.save accepts, opcode by opcode.

minigrad writes the opcodes itself instead of using `pickle.Pickler`: the pickle names torch's
globals (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`), which Python's pickler would
import to check, and writing only the opcodes below means a minigrad file holds nothing that
`torch.load(f, weights_only=True)` would refuse. Tensors (and numpy arrays, which is what
`Module.state_dict()` gives) become tensors in the file; their bytes go to `storages`.
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.serialization.formats import ORDERED_DICT, REBUILD_TENSOR, STORAGE_TYPES
from minigrad.surface import devices, dtypes, meta

PROTO, STOP, MARK = b"\x80\x02", b".", b"("
NONE, TRUE, FALSE = b"N", b"\x88", b"\x89"
EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE = b"}", b"]", b")"
SETITEMS, APPENDS, TUPLE, TUPLES = b"u", b"e", b"t", {1: b"\x85", 2: b"\x86", 3: b"\x87"}
REDUCE, BINPERSID = b"R", b"Q"
BINPUT, LONG_BINPUT, BINGET, LONG_BINGET = b"q", b"r", b"h", b"j"  # memo index: 1 or 4 bytes


class Pickler:
    """`Pickler().dump(obj)` -> (pickle bytes, {storage key: contiguous array})."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.storages: dict[str, np.ndarray] = {}
        self._keys: dict[int, str] = {}  # id(array) -> storage key: one array, one storage
        self._memo: dict[int, int] = {}  # id(dict or list) -> memo index (shared, cycles)
        self._keep: list = []  # what the ids above refer to, alive until the dump ends
        self._open_tuples: set[int] = set()

    def dump(self, obj: Any) -> tuple[bytes, dict[str, np.ndarray]]:
        self.out += PROTO
        self.save(obj)
        self.out += STOP
        return bytes(self.out), self.storages

    def save(self, obj: Any) -> None:
        if id(obj) in self._memo:  # a dict, list or tensor met before: the same object again
            self.out += memo_op(BINGET, LONG_BINGET, self._memo[id(obj)])
        elif obj is None or isinstance(obj, bool):
            self.out += NONE if obj is None else TRUE if obj else FALSE
        elif isinstance(obj, int):
            self.save_int(obj)
        elif isinstance(obj, float):
            self.out += b"G" + struct.pack(">d", obj)
        elif isinstance(obj, str):
            self.save_str(obj)
        elif isinstance(obj, (Tensor, np.ndarray)):
            self.save_tensor(obj)
        elif type(obj) in (dict, OrderedDict, list):
            self.save_container(obj)
        elif isinstance(obj, tuple) and not hasattr(obj, "_fields"):  # (not a namedtuple: its
            self.save_tuple(obj)  # class would be a global that weights_only refuses)
        elif isinstance(obj, dtypes.dtype):  # torch.float32 & co, which torch.load allows
            self.save_global("torch", str(obj).rsplit(".", 1)[-1])
        elif isinstance(obj, devices.device):  # torch.device("cpu"), as torch pickles it
            self.save_global("torch", "device")
            self.save_tuple((obj.type,) if obj.index is None else (obj.type, obj.index))
            self.out += REDUCE
        else:
            raise TypeError(
                f"minigrad.save can save tensors, numpy arrays, dicts, OrderedDicts, lists, "
                f"tuples, str, int, float, bool and None, not {type(obj).__name__} (a file "
                "holds only what torch.load(f, weights_only=True) reads back)")

    def save_int(self, n: int) -> None:
        if 0 <= n < 256:
            self.out += b"K" + bytes([n])
        elif 0 <= n < 65536:
            self.out += b"M" + struct.pack("<H", n)
        elif -(2**31) <= n < 2**31:
            self.out += b"J" + struct.pack("<i", n)
        else:
            data = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
            if len(data) > 255:
                raise OverflowError("minigrad.save: int too large to save (more than 255 bytes)")
            self.out += b"\x8a" + bytes([len(data)]) + data

    def save_str(self, s: str) -> None:
        data = s.encode("utf-8", "surrogatepass")
        self.out += b"X" + struct.pack("<I", len(data)) + data

    def save_global(self, module: str, name: str) -> None:
        self.out += f"c{module}\n{name}\n".encode()

    def save_tuple(self, items: tuple) -> None:
        if id(items) in self._open_tuples:
            raise ValueError("minigrad.save: a tuple that contains itself cannot be saved")
        self._open_tuples.add(id(items))
        if not items:
            self.out += EMPTY_TUPLE
        elif len(items) <= 3:
            for item in items:
                self.save(item)
            self.out += TUPLES[len(items)]
        else:
            self.out += MARK
            for item in items:
                self.save(item)
            self.out += TUPLE
        self._open_tuples.discard(id(items))

    def save_container(self, obj: dict | list) -> None:
        """A dict, OrderedDict or list: made empty, remembered, then filled (so a shared or
        self-containing one is written once, as pickle does)."""
        if type(obj) is OrderedDict:
            self.save_global(*ORDERED_DICT)
            self.out += EMPTY_TUPLE + REDUCE
        else:
            self.out += EMPTY_LIST if type(obj) is list else EMPTY_DICT
        self.memoize(obj)
        if type(obj) is list:
            items: list = list(obj)
            closing = APPENDS
        else:
            items = [x for pair in obj.items() for x in (check_key(pair[0]), pair[1])]
            closing = SETITEMS
        if items:
            self.out += MARK
            for item in items:
                self.save(item)
            self.out += closing

    def memoize(self, obj: Any) -> None:
        index = len(self._memo)
        self._memo[id(obj)] = index
        self._keep.append(obj)
        self.out += memo_op(BINPUT, LONG_BINPUT, index)

    def save_tensor(self, obj: Tensor | np.ndarray) -> None:
        """`_rebuild_tensor_v2(storage, 0, size, stride, requires_grad, OrderedDict())`."""
        array = obj.array if isinstance(obj, Tensor) else obj
        if meta.is_meta(array):
            raise NotImplementedError(meta.NO_SAVE)
        dtype = array.dtype.newbyteorder("=")
        if dtype not in STORAGE_TYPES:
            raise TypeError(f"minigrad.save: no tensor dtype for numpy dtype {array.dtype}; "
                            f"minigrad's are {', '.join(str(d) for d in STORAGE_TYPES)}")
        key, storage, offset, strides = self.storage(array, dtype)
        self.save_global(*REBUILD_TENSOR)
        self.out += MARK
        self.out += MARK + b"X\x07\x00\x00\x00storage"
        self.save_global("torch", STORAGE_TYPES[dtype])
        self.save_str(key)
        self.save_str("cpu")
        self.save_int(int(storage.size))
        self.out += TUPLE + BINPERSID
        self.save_int(offset)
        self.save_tuple(tuple(int(n) for n in array.shape))
        self.save_tuple(strides)
        self.save(isinstance(obj, Tensor) and obj.requires_grad)
        self.save_global(*ORDERED_DICT)
        self.out += EMPTY_TUPLE + REDUCE
        self.out += TUPLE + REDUCE
        self.memoize(obj)


    def storage(self, array: np.ndarray, dtype: np.dtype) -> tuple:
        """(key, storage, offset, strides) of `array`: a view is saved as PyTorch saves it, as
        its whole storage (the array that owns the memory) with its offset and strides; any
        other array as a storage of its own."""
        owner, offset, strides = storage_of(array)
        key = self._keys.get(id(owner))
        if key is None:
            key = self._keys[id(owner)] = str(len(self._keys))
            self._keep.append(owner)
            self.storages[key] = np.ascontiguousarray(owner, dtype=dtype).reshape(-1)
        return key, self.storages[key], offset, strides


def storage_of(array: np.ndarray) -> tuple[np.ndarray, int, tuple]:
    """(the array owning `array`'s memory, the offset and strides in elements into it) when
    the owner is a C-contiguous array of the same dtype and `array` walks it forwards; else
    (`array`, 0, contiguous strides): the view is saved as a copy."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    size = array.dtype.itemsize
    start = array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    if owner is array or owner.dtype != array.dtype or not owner.flags.c_contiguous or \
            start % size or any(s < 0 or s % size for s in array.strides) or array.size == 0:
        return array, 0, contiguous_strides(array.shape)
    return owner, start // size, tuple(s // size if n > 1 else step for s, n, step in zip(
        array.strides, array.shape, contiguous_strides(array.shape)))


def contiguous_strides(shape: tuple) -> tuple:
    """Element strides of a C-contiguous tensor, as PyTorch counts them (a size 0 counts 1)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def check_key(key: Any) -> Any:
    """A dict key minigrad.load takes back (whose hash a file cannot make collide)."""
    if isinstance(key, (str, bool)) or key is None or \
            (isinstance(key, int) and abs(key) < 2**61 - 1):
        return key
    raise TypeError(f"minigrad.save: dict keys must be str, int (below 2**61), bool or None, "
                    f"not {type(key).__name__} (minigrad.load refuses other keys)")


def memo_op(short: bytes, long: bytes, index: int) -> bytes:
    return short + bytes([index]) if index < 256 else long + struct.pack("<I", index)
