"""What a node saved, under PyTorch's names: `(x * y).grad_fn._saved_self` is x,
`x.exp().grad_fn._saved_result` the output, `x.pow(3).grad_fn._saved_exponent` 3.

minigrad's ops keep what their backward needs under their own names (`save_for_backward`'s
tuple, `ctx.p`, `ctx.in_shape`, the saved output, what `keep_as_pytorch` kept); the table in
saved_names_table.py reads each as PyTorch 2.13 names it, for every node of the op table, so
`dir(node)` lists exactly PyTorch's `_saved_*` names and torchviz's `show_attrs` draws the same
labels. Each node class gets these names as properties when it is made (node.py), so a node
has no `__getattr__`, which would make every other attribute read slower. Tensors come
through `unpack_saved()` / `output`: they are checked for in-place changes, unpacked by
saved-tensor hooks, and raise PyTorch's error once freed by a backward; numbers and shapes
stay readable after it, as in PyTorch.

Each value has PyTorch's type: a Tensor, None, a tuple of ints (sizes, strides, dims), an int,
a float, a bool or a str. Where PyTorch saves a value only when an input needs its gradient
(`mm`'s `mat2` only when `self` needs one), the table says which (`when=`), and the other
case reads None (a tensor) or `()` (strides), as in PyTorch.
"""

from __future__ import annotations

from minigrad.autograd.saved_names_table import NAMES
from minigrad.autograd.saved_tensor_hooks import SavedTensor

PREFIX = "_saved_"


def readers(node_name: str) -> dict:
    """`{"_saved_self": reader, ...}`: PyTorch's `_saved_*` names for a node class of this name,
    each with the function that reads it from a node (node.py makes them properties), and for
    each saved tensor its `_raw_saved_*`: a SavedTensor, whose own pack/unpack hooks can be
    registered (saved_tensor_hooks.SavedTensor)."""
    found = {}
    for name, reader in NAMES.get(node_name, {}).items():
        found[PREFIX + name] = reader
        slot = getattr(reader, "slot", None)
        if slot is not None:
            found["_raw" + PREFIX + name] = lambda node, slot=slot: SavedTensor(node, slot)
    return found
