"""Dtypes as PyTorch shows them, each the numpy dtype it computes in; Python data into arrays.

`minigrad.float32` prints `minigrad.float32` (as `torch.float32` does), and is numpy's float32
wherever numpy takes a dtype (`np.zeros(3, dtype=minigrad.float32)`, `a.astype(...)`: numpy
reads its `.dtype`); it equals and hashes as that numpy dtype. A tensor's numpy array keeps
numpy's own dtype object, so promotion and the ops never see these: only `Tensor.dtype` and
the public names hand them out.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minigrad.surface import python_data
from minigrad.surface.devices import (  # (check_device: nn's too)
    check_device,  # noqa: F401
    device,
    is_device,
    wants_meta,
)


class dtype:  # noqa: N801 - PyTorch's spelling
    """A tensor's element type: PyTorch's name and attributes over numpy's dtype `.dtype`."""

    __slots__ = ("dtype", "_name")

    def __init__(self, numpy_dtype: Any, name: str) -> None:
        self.dtype, self._name = np.dtype(numpy_dtype), name

    def __repr__(self) -> str:
        return f"minigrad.{self._name}"

    def __eq__(self, other: object) -> bool:
        """Equal to the same minigrad dtype and to numpy's (`np.float32`, `np.dtype("f4")`)."""
        if isinstance(other, dtype):
            return self.dtype is other.dtype or self.dtype == other.dtype
        if isinstance(other, np.dtype) or (isinstance(other, type)
                                           and issubclass(other, np.generic)):
            return self.dtype == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __reduce__(self) -> tuple:
        return of, (self.dtype.str,)

    def __getattr__(self, name: str) -> Any:
        """numpy's attributes (`kind`, `name`, `type`, `char`), for code that takes this for
        numpy's dtype (only names that are not PyTorch's arrive here)."""
        if name.startswith("__") or name in ("dtype", "_name"):
            raise AttributeError(name)
        return getattr(self.dtype, name)

    @property
    def is_floating_point(self) -> bool:
        return self.dtype.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.dtype.kind == "c"

    @property
    def is_signed(self) -> bool:
        return self.dtype.kind in "fic"

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def to_complex(self) -> dtype:
        if self.dtype.kind not in "fc":
            raise RuntimeError(f"Unknown Complex ScalarType for {TORCH_NAMES[self.dtype]}")
        return of(np.result_type(self.dtype, np.complex64))

    def to_real(self) -> dtype:
        return of(self.dtype.type(0).real.dtype) if self.dtype.kind == "c" else self


_BY_NUMPY: dict[np.dtype, dtype] = {}


def of(numpy_dtype: Any) -> dtype:
    """The minigrad dtype of a numpy dtype (what `Tensor.dtype` returns)."""
    found = _BY_NUMPY.get(numpy_dtype)
    if found is None:
        d = np.dtype(numpy_dtype)
        found = _BY_NUMPY.get(d) or _BY_NUMPY.setdefault(d, dtype(d, d.name))
    return found


def _named(numpy_type: type, name: str) -> dtype:
    return _BY_NUMPY.setdefault(np.dtype(numpy_type), dtype(numpy_type, name))


float32 = float = _named(np.float32, "float32")
float64 = double = _named(np.float64, "float64")
float16 = half = _named(np.float16, "float16")
int64 = long = _named(np.int64, "int64")
int32 = int = _named(np.int32, "int32")
int16 = short = _named(np.int16, "int16")
int8 = _named(np.int8, "int8")
uint8 = _named(np.uint8, "uint8")
bool = _named(np.bool_, "bool")  # noqa: A001 - PyTorch's spelling
complex64 = cfloat = _named(np.complex64, "complex64")
complex128 = cdouble = _named(np.complex128, "complex128")

# numpy's own dtype objects, for the code below that compares with `is` (and runs often)
_F32, _I64, _BOOL = float32.dtype, int64.dtype, bool.dtype

# PyTorch's names of the dtypes in its messages ("result type Float can't be cast to ... Long")
TORCH_NAMES = {np.dtype(k): v for k, v in (
    (np.float32, "Float"), (np.float64, "Double"), (np.float16, "Half"), (np.int64, "Long"),
    (np.int32, "Int"), (np.int16, "Short"), (np.int8, "Char"), (np.uint8, "Byte"),
    (np.bool_, "Bool"), (np.complex64, "ComplexFloat"), (np.complex128, "ComplexDouble"))}

# ... and the C++ names some of its messages use ("expected m1 and m2 to have the same dtype,
# but got: float != double")
C_NAMES = {np.dtype(k): v for k, v in (
    (np.float32, "float"), (np.float64, "double"), (np.float16, "c10::Half"),
    (np.int64, "long int"), (np.int32, "int"), (np.int16, "short int"),
    (np.int8, "signed char"), (np.uint8, "unsigned char"), (np.bool_, "bool"))}

_default = [_F32]  # the default float dtype (set_default_dtype)


def implied(array: np.ndarray) -> bool:
    """Whether PyTorch's repr leaves `array`'s dtype unsaid: the default float dtype, int64
    and bool, which the values show (an empty tensor shows no values: only the default)."""
    dt = array.dtype
    return dt == _default[0] or array.size != 0 and (dt == _I64 or dt == _BOOL)


def get_default_dtype() -> dtype:
    return of(_default[0])


def set_default_dtype(d: Any) -> None:
    """The dtype of Python floats in new tensors and of float factories (float32 at first)."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if d.dtype.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d.dtype


def default_float() -> np.dtype:
    """numpy's dtype of the default float dtype."""
    return _default[0]


def numpy_dtype(d: Any) -> np.dtype | None:
    """A dtype argument (minigrad's, numpy's, a Python type) as numpy's dtype; None stays."""
    if d is None or type(d) is np.dtype:
        return d
    if isinstance(d, dtype):
        return d.dtype
    if d is builtins.float:
        return _default[0]
    return np.dtype(d)


# PyTorch's categories: a dtype of a higher one wins, whatever its size (int64 + float16 is float16)
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    """`torch.promote_types`: bool < integer < float; within a category, numpy's rule."""
    if a is None or a is b:
        return b
    if b is None:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """A dtype from a weaker kind of operand (0-d tensor, number) counts only if it is of a
    higher category (PyTorch's combine_categories)."""
    if higher is None:
        return lower
    if lower is None or higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> np.dtype:
    """`torch.result_type` of arrays (as tensors' data) and Python numbers (None is skipped).

    Tensors with dims decide; a 0-d tensor, then a Python number, counts only when it is of a
    higher category than those before it (bool < integer < float); a Python float is the
    default dtype (float32 unless set_default_dtype changed it), an int int64: `int8 tensor +
    1000` stays int8, `int tensor + 1.5` is float32 and `int tensor + float64 0-d tensor`
    float64.
    """
    dims = zero_dim = numbers = None
    for x in operands:
        if isinstance(x, np.ndarray):
            if x.ndim:
                dims = promote_types(dims, x.dtype)
            else:
                zero_dim = promote_types(zero_dim, x.dtype)
        elif x is not None:
            kind = (_BOOL if isinstance(x, (builtins.bool, np.bool_)) else
                    _I64 if isinstance(x, (builtins.int, np.integer)) else _default[0])
            numbers = promote_types(numbers, kind)
    return _combine(dims, _combine(zero_dim, numbers))


def can_cast(from_: np.dtype, to: np.dtype) -> bool:
    """`torch.can_cast`: never down a category (float to integer, a number to bool, complex to
    real); within one, or up, any size (int64 into int8, float64 into float16)."""
    return _CATEGORY[from_.kind] <= _CATEGORY[to.kind]


def check_cast(result: np.dtype, out: np.dtype, c_name: bool = False) -> None:
    """PyTorch's error for an op whose result dtype cannot be written into `out`'s (in-place
    ops, and ops whose output dtype is an input's); `c_name`: `out` as C++ names it (the
    words of `clamp_` with numbers)."""
    if not can_cast(result, out):
        raise RuntimeError(f"result type {TORCH_NAMES[result]} can't be cast to the desired "
                           f"output type {(C_NAMES if c_name else TORCH_NAMES)[out]}")


def kernel_error(kernel: str, d: np.dtype) -> NotImplementedError:
    """PyTorch's error for a kernel that has no version for dtype `d` ("mse_cpu" on ints)."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{TORCH_NAMES[d]}\'')


def name(d: Any) -> str:
    """`minigrad.float32`: how PyTorch's messages and reprs spell a dtype."""
    return repr(of(numpy_dtype(d)))


def as_array(data: Any, dtype: Any = None) -> np.ndarray:
    """Turn Python/numpy data into an array with PyTorch's default dtypes.

    Python floats become the default dtype (float32) and Python ints int64 (as `torch.tensor`
    does); a numpy array keeps its dtype, as `torch.from_numpy`/`torch.tensor(ndarray)` keep it;
    lists and tuples are read as PyTorch reads them (python_data.py).
    """
    np_dtype = numpy_dtype(dtype)
    if isinstance(data, np.ndarray | np.generic):
        return np.array(data, dtype=np_dtype)  # (a copy; its own dtype if none is given)
    if hasattr(data, "grad_fn") and hasattr(data, "array"):  # (a tensor: its values)
        return data.array.astype(np_dtype or data.array.dtype)
    return python_data.read(data, _inferred, np_dtype)


def _inferred(found: list) -> np.dtype:
    """The dtype `torch.tensor` infers from its items' types and dtypes, in the order met:
    each promoted with the next; a Python float is the default dtype, an int int64, a complex
    the default complex dtype; no item at all the default dtype (`[[], []]`)."""
    python = {builtins.bool: _BOOL, builtins.int: _I64, builtins.float: _default[0],
              builtins.complex: np.dtype(np.complex64 if _default[0] == _F32 else np.complex128)}
    dtype = None
    for d in dict.fromkeys(found):  # (each once)
        dtype = promote_types(dtype, python.get(d, d))
    return _default[0] if dtype is None else dtype


def from_type_name(type_name: str) -> dtype:
    """`'minigrad.DoubleTensor'` (or `'torch.DoubleTensor'`) as its dtype, for `x.type(name)`."""
    prefix, _, kind = type_name.partition(".")
    by_name = {f"{v}Tensor": k for k, v in TORCH_NAMES.items()}
    if prefix not in ("minigrad", "torch") or kind not in by_name:
        raise ValueError(f"invalid type: '{type_name}'")
    return of(by_name[kind])


def legacy_array(args: tuple, dtype: Any = None) -> np.ndarray:
    """What `Tensor(*args)` holds (see Tensor.__init__): zeros for a shape (`2, 3`, or a
    Size), Python data in the default float dtype, a numpy array (or a tensor's) as it is, a
    single number as a 0-d tensor."""
    np_dtype = numpy_dtype(dtype)
    if len(args) == 1:
        data = args[0]
        if type(data).__name__ == "Size":
            return np.zeros(tuple(data), np_dtype or _default[0])
        if hasattr(data, "array") and isinstance(data.array, np.ndarray):  # a Tensor
            data = data.array
        if isinstance(data, np.ndarray | np.generic | builtins.float | builtins.int):
            return as_array(data, np_dtype)
    if len(args) > 1 and all(isinstance(n, builtins.int | np.integer)
                             and not isinstance(n, builtins.bool) for n in args):
        return np.zeros(args, np_dtype or _default[0])
    if len(args) > 1:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)})")
    data = args[0] if args else ()
    array = as_array(data, np_dtype)
    if np_dtype is None and array.dtype != _default[0]:
        array = array.astype(_default[0])
    return array


TO_SIGNATURES = (
    "to() received an invalid combination of arguments - got ({}), but expected one of:\n"
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n")


def _kind(value: Any) -> str:
    """How PyTorch's argument errors name the type of `value`."""
    if isinstance(value, dtype):
        return "torch.dtype"
    if type(value).__name__ in ("Tensor", "Parameter"):
        return "Tensor"
    return "torch.device" if isinstance(value, device) else type(value).__name__


def _is_dtype(value: Any) -> builtins.bool:
    """minigrad's dtypes, and (minigrad's own leniency) numpy's: `np.float64`, `np.dtype(...)`."""
    return isinstance(value, dtype | np.dtype) or (isinstance(value, type)
                                                   and issubclass(value, np.generic))


def to_arguments(args: tuple, kwargs: dict) -> tuple[np.dtype | None, builtins.bool, Any]:
    """`.to(...)`'s arguments, read as PyTorch reads them: `(device, dtype)`, `(dtype)` or
    `(tensor)`, then `non_blocking`, `copy`. Returns (numpy dtype or None, copy, meta): meta
    is None when no device is given, else whether it is the meta device; a device other than
    the CPU or meta fails (see devices.check_device)."""
    kwargs = dict(kwargs)
    kwargs.pop("memory_format", None)
    names = ["device", "dtype", "non_blocking", "copy"]
    rest = list(args)
    if not rest and _kind(kwargs.get("tensor")) == "Tensor":  # to(tensor=other)
        rest = [kwargs.pop("tensor")]
    if rest and _is_dtype(rest[0]):  # to(dtype, non_blocking, copy)
        names = names[1:]
    elif rest and _kind(rest[0]) == "Tensor":  # to(other): other's dtype and device
        kwargs.setdefault("device", rest[0].device)
        rest[0] = rest[0].dtype
        names = names[1:]
    given = dict(zip(names, rest))
    where = given.get("device", kwargs.pop("device", None))
    d = given.get("dtype", kwargs.pop("dtype", None))
    copy = given.get("copy", kwargs.pop("copy", False))
    given.get("non_blocking", kwargs.pop("non_blocking", False))
    bad = (len(rest) > len(names) or kwargs
           or (where is not None and not is_device(where))
           or (d is not None and not _is_dtype(d)))
    if bad:
        got = [_kind(a) for a in args] + [f"{k}={_kind(v)}" for k, v in kwargs.items()]
        raise TypeError(TO_SIGNATURES.format(", ".join(got) + (", " if kwargs else "")))
    meta = None if where is None else wants_meta(where)
    return numpy_dtype(d), builtins.bool(copy), meta

