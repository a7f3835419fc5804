"""Reading `data.pkl` safely: a pickle machine that knows a few opcodes and a few globals.

Python's own unpickler imports and calls whatever a file names (`os.system` included), and its
memo grows to any index a file asks for. This one, like PyTorch's weights-only unpickler, reads
opcode by opcode: a GLOBAL is looked up in the table it is given (nothing is imported), REDUCE
calls only what that table holds, BUILD sets attributes only on an OrderedDict (a state_dict's
`_metadata`), and everything is bounded by the bytes of the file: each opcode reads at most what
is left and pushes at most one object, and the calls together may take no more items than the
file has bytes (a memo lets a file name one long list many times; copying it each time would
not be bounded).

Dict keys and set elements are limited to types whose hashes a file cannot make collide (str
and bytes hash with a per-process secret; ints below 2**61 - 1 hash to themselves): thousands
of keys with one hash would make building the dict take quadratic time.
"""

from __future__ import annotations

import struct
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING  # Python 2 names (`__builtin__`)
from collections import OrderedDict
from collections.abc import Callable
from pickle import UnpicklingError
from typing import Any

from minigrad.serialization.formats import weights_only_error

PROTOCOL_NOTE = "minigrad reads the pickle protocol torch.save writes (2)"


class Unpickler:
    """`Unpickler(data, allowed, persistent_load).load()`: the object `data` pickles.

    `allowed` maps `module.name` to what that GLOBAL stands for; `persistent_load` turns a
    persistent id (a storage) into an object.
    """

    def __init__(self, data: bytes, allowed: dict[str, Any],
                 persistent_load: Callable[[tuple], Any]) -> None:
        self.data, self.pos = memoryview(data), 0
        self.allowed = allowed
        self.callables = {id(v) for v in allowed.values() if callable(v)}
        self.persistent_load = persistent_load
        self.stack: list[Any] = []
        self.marks: list[list[Any]] = []
        self.memo: dict[int, Any] = {}
        self.budget = len(data)  # items the calls may take, all together

    def load(self) -> Any:
        try:
            while True:
                op = self.read(1)[0]
                if op == ord("."):  # STOP
                    if len(self.stack) != 1 or self.marks:
                        raise UnpicklingError("pickle data ended with a malformed stack")
                    return self.stack.pop()
                handler = OPCODES.get(op)
                if handler is None:
                    raise UnpicklingError(weights_only_error(
                        f"Unsupported operand {op} ({PROTOCOL_NOTE})"))
                handler(self)
        except (IndexError, KeyError, TypeError, UnicodeDecodeError, struct.error) as e:
            raise UnpicklingError(f"malformed pickle data ({type(e).__name__}: {e})") from None

    # -- reading -----------------------------------------------------------------------------
    def read(self, n: int) -> memoryview:
        if n > len(self.data) - self.pos:
            raise UnpicklingError("pickle data was truncated")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def readline(self) -> str:
        end = bytes(self.data[self.pos:self.pos + 256]).find(b"\n")  # a name is short
        if end < 0:
            raise UnpicklingError("malformed pickle data: a GLOBAL without a (short) name")
        return bytes(self.read(end + 1)[:-1]).decode("utf-8")

    # -- the stack ----------------------------------------------------------------------------
    def push(self, obj: Any) -> None:
        self.stack.append(obj)

    def mark(self) -> None:
        self.marks.append(self.stack)
        self.stack = []

    def pop_mark(self) -> list[Any]:
        items, self.stack = self.stack, self.marks.pop()
        return items

    # -- opcodes that build objects -----------------------------------------------------------
    def global_(self) -> None:
        module, name = self.readline(), self.readline()
        module, name = NAME_MAPPING.get((module, name), (IMPORT_MAPPING.get(module, module), name))
        full = f"{module}.{name}"
        if full not in self.allowed:
            raise UnpicklingError(weights_only_error(
                f"Unsupported global: GLOBAL {full} was not an allowed global by default."))
        self.push(self.allowed[full])

    def reduce(self) -> None:
        args, func = self.stack.pop(), self.stack[-1]
        if id(func) not in self.callables or type(args) is not tuple:
            raise UnpicklingError(weights_only_error(
                f"Trying to call reduce for unrecognized function {func!r:.80}"))
        self.budget -= sum(len(a) for a in args if isinstance(a, (str, bytes, tuple, list, dict)))
        if self.budget < 0:
            raise UnpicklingError("malformed pickle data: its calls take more items than the "
                                  "file holds")
        try:
            self.stack[-1] = func(*args)
        except (TypeError, ValueError) as e:
            raise UnpicklingError(f"malformed pickle data: {getattr(func, '__name__', func)}"
                                  f"() refused its arguments ({e})") from None

    def build(self) -> None:
        state, inst = self.stack.pop(), self.stack[-1]
        if type(inst) is not OrderedDict or type(state) is not dict or \
                not all(type(k) is str and not k.startswith("__") for k in state):
            raise UnpicklingError(weights_only_error(
                f"Can only build an OrderedDict's attributes, but got {type(inst)}"))
        inst.__dict__.update(state)

    def persistent_id(self) -> None:
        pid = self.stack.pop()
        if type(pid) is not tuple or not pid or pid[0] != "storage":
            raise UnpicklingError(weights_only_error(
                f"Only persistent_load of storage is allowed, but got {pid!r:.80}"))
        self.push(self.persistent_load(pid))

    def set_items(self) -> None:
        items = self.pop_mark()
        target = self.stack[-1]
        if type(target) not in (dict, OrderedDict) or len(items) % 2:
            raise UnpicklingError(f"Can only SETITEMS for dict, collections.OrderedDict, but "
                                  f"got {type(target)}")
        for i in range(0, len(items), 2):
            target[check_key(items[i])] = items[i + 1]

    def append_items(self, items: list[Any]) -> None:
        target = self.stack[-1]
        if type(target) is not list:
            raise UnpicklingError(f"Can only append to lists, but got {type(target)}")
        target.extend(items)

    def put(self, index: int) -> None:
        self.memo[index] = self.stack[-1]


def check_key(key: Any) -> Any:
    """`key`, if it may be a dict key or set element (see the module's docstring)."""
    if type(key) in (str, bytes, bool) or key is None or \
            (type(key) is int and abs(key) < 2**61 - 1):
        return key
    raise UnpicklingError(weights_only_error(
        f"a dict key or set element {key!r:.40} of type {type(key).__name__}: minigrad.load "
        "takes keys that are str, bytes, bool, None or int below 2**61 (keys of other types "
        "can be made to collide, which would make loading take quadratic time)"))


def _setitem(u: Unpickler) -> None:
    pair = u.stack[-2:]
    del u.stack[-2:]
    u.mark()
    u.stack += pair
    if len(pair) != 2:
        raise IndexError("SETITEM needs a key and a value")
    u.set_items()


def _tuple_of_last(u: Unpickler, n: int) -> None:
    if len(u.stack) < n:
        raise IndexError(f"TUPLE{n} needs {n} items")
    items = tuple(u.stack[-n:])
    del u.stack[-n:]
    u.push(items)


def _short_binstring(u: Unpickler) -> None:
    u.push(bytes(u.read(u.read(1)[0])).decode("utf-8"))


OPCODES: dict[int, Callable[[Unpickler], None]] = {
    0x80: lambda u: u.read(1),  # PROTO (the protocol is not checked, as PyTorch only warns)
    ord("("): Unpickler.mark,
    ord("}"): lambda u: u.push({}),
    ord("]"): lambda u: u.push([]),
    ord(")"): lambda u: u.push(()),
    ord("N"): lambda u: u.push(None),
    0x88: lambda u: u.push(True),
    0x89: lambda u: u.push(False),
    ord("K"): lambda u: u.push(u.read(1)[0]),  # BININT1
    ord("M"): lambda u: u.push(u.unpack("<H")),  # BININT2
    ord("J"): lambda u: u.push(u.unpack("<i")),  # BININT
    0x8A: lambda u: u.push(int.from_bytes(u.read(u.read(1)[0]), "little", signed=True)),
    ord("G"): lambda u: u.push(u.unpack(">d")),  # BINFLOAT
    ord("X"): lambda u: u.push(str(u.read(u.unpack("<I")), "utf-8", "surrogatepass")),
    ord("U"): _short_binstring,
    ord("t"): lambda u: u.push(tuple(u.pop_mark())),
    0x85: lambda u: _tuple_of_last(u, 1),
    0x86: lambda u: _tuple_of_last(u, 2),
    0x87: lambda u: _tuple_of_last(u, 3),
    ord("s"): _setitem,
    ord("u"): Unpickler.set_items,
    ord("a"): lambda u: u.append_items([u.stack.pop()]),
    ord("e"): lambda u: u.append_items(u.pop_mark()),
    ord("q"): lambda u: u.put(u.read(1)[0]),  # BINPUT
    ord("r"): lambda u: u.put(u.unpack("<I")),  # LONG_BINPUT
    ord("h"): lambda u: u.push(u.memo[u.read(1)[0]]),  # BINGET
    ord("j"): lambda u: u.push(u.memo[u.unpack("<I")]),  # LONG_BINGET
    ord("c"): Unpickler.global_,
    ord("R"): Unpickler.reduce,
    ord("b"): Unpickler.build,
    ord("Q"): Unpickler.persistent_id,
}
