"""What a node saved, under PyTorch's names: `(x * y).grad_fn._saved_self` is x,
`x.exp().grad_fn._saved_result` the output, `x.pow(3).grad_fn._saved_exponent` 3.

minigrad's ops keep what their backward needs under their own names (`save_for_backward`'s
tuple, `ctx.p`, `ctx.in_shape`, the saved output, what `keep_as_pytorch` kept); the table in
saved_names_table.py reads each as PyTorch 2.13 names it, for every node of the op table, so
`dir(node)` lists exactly PyTorch's `_saved_*` names and torchviz's `show_attrs` draws the same
labels. A node's `__getattr__` (node.py) looks here, so a plain attribute read costs nothing
more. Tensors come through `unpack_saved()` / `output`: they are checked for in-place changes,
unpacked by saved-tensor hooks, and raise PyTorch's error once freed by a backward; numbers
and shapes stay readable after it, as in PyTorch.

Each value has PyTorch's type: a Tensor, None, a tuple of ints (sizes, strides, dims), an int,
a float, a bool or a str. Where PyTorch saves a value only when an input needs its gradient
(`mm`'s `mat2` only when `self` needs one), the table says which (`when=`), and the other
case reads None (a tensor) or `()` (strides), as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.saved_names_table import NAMES
from minigrad.autograd.saved_tensor_hooks import SavedTensor

PREFIX = "_saved_"


def names(node: Any) -> tuple:
    """The `_saved_*` names PyTorch's node of this kind has (what `dir(node)` lists)."""
    return tuple(PREFIX + n for n in NAMES.get(type(node).__name__, ()))


def read(node: Any, name: str) -> Any:
    """`node.<name>` for a `_saved_*` name; an AttributeError naming those it has otherwise."""
    table = NAMES.get(type(node).__name__, {})
    short = name[len(PREFIX):]
    if short in table:
        return table[short](node)
    has = f" (it has {', '.join(PREFIX + n for n in sorted(table))})" if table else ""
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'{has}")


def raw(node: Any, name: str) -> Any:
    """`node._raw_saved_<x>`: the saved tensor `_saved_<x>` as a SavedTensor, whose own
    pack/unpack hooks can be registered (saved_tensor_hooks.SavedTensor)."""
    reader = NAMES.get(type(node).__name__, {}).get(name[len("_raw_saved_"):])
    slot = getattr(reader, "slot", None)
    if slot is None:
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
    return SavedTensor(node, slot)
