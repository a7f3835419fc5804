"""The readers of saved_names_table.py: each reads one `_saved_*` value of a node from where
minigrad keeps it, as the value PyTorch's node gives (a Tensor, None, ints, ...)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.autograd import tensor as _tensor

Reader = Callable[[Any], Any]
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}  # PyTorch's enum, which it shows


def as_tensor(value: Any, dtype: Any = None) -> Any:
    """A value minigrad keeps as a number or an array, as the Tensor PyTorch shows."""
    if value is None or isinstance(value, _tensor.Tensor):
        return value
    return _tensor.make(np.asanyarray(value, dtype=dtype), None, 0)


def _needed(node: Any, when: int | None) -> bool:
    return when is None or (when < len(node.needs_input_grad) and node.needs_input_grad[when])


def saved(i: int, when: int | None = None) -> Reader:
    """`save_for_backward`'s value i; None unless input `when` needs its gradient."""
    def read(node: Any) -> Any:
        if not _needed(node, when) or i >= len(node.saved_values or node.unpack_saved()):
            return None
        return as_tensor(node.saved_tensor(i))
    read.slot = i  # type: ignore[attr-defined] (for `_raw_saved_*`)
    return read


def saved_for_others(i: int) -> Reader:
    """`save_for_backward`'s value i, which PyTorch keeps only when another input needs its
    gradient (a factor of a product, as each of `_trilinear`'s three)."""
    def read(node: Any) -> Any:
        others = [n for j, n in enumerate(node.needs_input_grad) if j != i]
        return as_tensor(node.saved_tensor(i)) if any(others) else None
    read.slot = i  # type: ignore[attr-defined] (for `_raw_saved_*`)
    return read


def kept(key: str, dtype: Any = None, when: int | None = None) -> Reader:
    """What the op's forward kept with `keep_as_pytorch(key=...)`."""
    def read(node: Any) -> Any:
        if not _needed(node, when):
            return None
        values = node._as_pytorch
        if values is None:
            node.unpack_saved()  # (raises PyTorch's error once freed)
            return None
        value = values.get(key)
        if isinstance(value, tuple):
            return tuple(as_tensor(v, dtype) for v in value)
        return as_tensor(value, dtype)
    return read


def kept_value(key: str, otherwise: Reader) -> Reader:
    """A number or tuple the op kept as the call wrote it (a stride not given shows as ()),
    else what `otherwise` reads."""
    def read(node: Any) -> Any:
        values = node._as_pytorch or {}
        return values[key] if key in values else otherwise(node)
    return read


def u64(value: int) -> int:
    """A negative int as PyTorch shows it in a node's saved values: its two's complement
    (offset -1 shows as 18446744073709551615)."""
    return int(value) % 2**64


def result(node: Any) -> Any:
    return node.output


result.slot = "output"  # type: ignore[attr-defined] (for `_raw_saved_result`)


def attr(name: str, convert: Callable = lambda v: v, default: Any = None) -> Reader:
    return lambda node: convert(getattr(node, name, default))


def setting(name: str, convert: Callable = lambda v: v, default: Any = None) -> Reader:
    return lambda node: convert(node.settings.get(name, default))


def const(value: Any) -> Reader:
    return lambda node: value


def input_sizes(node: Any, i: int = 0) -> tuple:
    """The shape of input i (what its gradient must have): the op's `in_shape` when it keeps
    one, else from the edge into the input."""
    shape = getattr(node, "in_shape", None)
    if i == 0 and shape is not None:
        return ints(shape)
    nxt, nr = node.next_functions[i]
    return ints(nxt.output_shape(nr)) if nxt is not None else ()


def sizes_of(i: int, convert: Callable = tuple) -> Reader:
    """The shape of the tensor `save_for_backward` got at i (PyTorch's `_sym_sizes`)."""
    def read(node: Any) -> Any:
        values = node.saved_values or node.unpack_saved()
        return convert(tuple(int(n) for n in values[i].array.shape))
    return read


def strides_of(i: int, when: int | None = None) -> Reader:
    """The element strides of saved tensor i (PyTorch's `_sym_strides`); () unless input
    `when` needs its gradient."""
    def read(node: Any) -> tuple:
        if not _needed(node, when):
            return ()
        array = (node.saved_values or node.unpack_saved())[i].array
        return tuple(int(s) // array.itemsize for s in array.strides)
    return read


def ints(values: Any) -> tuple:
    return tuple(int(v) for v in values) if values is not None else None


def numel(node: Any) -> int:
    return math.prod(input_sizes(node))


def pairs_first(padding: Any) -> tuple:
    """minigrad keeps a padding as ((before, after), ...); PyTorch shows the befores."""
    return tuple(int(p[0]) if isinstance(p, tuple) else int(p) for p in padding)


def reduction(value: Any) -> int:
    return REDUCTIONS.get(value, value)


def number(value: Any) -> Any:
    """A float that is whole shows as PyTorch shows a Scalar it was given as an int."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
