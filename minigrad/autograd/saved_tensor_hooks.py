"""Saved-tensor hooks at work: each tensor a node saves goes through the innermost `pack` hook,
and comes back through its `unpack` when read (autograd/graph.py's `saved_tensors_hooks`
pushes and pops the pairs; node.py calls `pack` and `unpack`)."""

from __future__ import annotations

from typing import Any

from minigrad.autograd import tensor as _tensor
from minigrad.autograd.grad_mode import state

# The saved-tensor hooks in force, innermost last: `(pack, unpack)` pairs.
SAVED_TENSOR_HOOKS: list = []


def pack(value: Any) -> tuple | None:
    """`value` through the innermost saved-tensor hooks' pack: (unpack, packed); None for what
    is not a tensor. PyTorch's error if the hook changed the tensor in place."""
    if not isinstance(value, _tensor.Tensor):
        return None
    pack_hook, unpack_hook = SAVED_TENSOR_HOOKS[-1]
    version = value._version
    prev, state.grad_enabled = state.grad_enabled, False  # (PyTorch packs without recording)
    try:
        packed = pack_hook(value)
    finally:
        state.grad_enabled = prev
    if value._version != version:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as input "
            "to pack hook cannot be modified by in-place operations as this can lead to "
            "unexpected side-effects. Please open an issue if you need to perform in-place "
            "operations on the input to a pack hook.")
    return unpack_hook, packed


def unpack(packed: tuple) -> Any:
    """What the unpack hook gives back for `packed` (a tensor, or PyTorch's error)."""
    unpack_hook, value = packed
    out = unpack_hook(value)
    if not isinstance(out, _tensor.Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(out).__name__}")
    return out
