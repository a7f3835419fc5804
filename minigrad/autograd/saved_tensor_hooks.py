"""Saved-tensor hooks at work: each tensor a node saves goes through the innermost `pack` hook,
and comes back through its `unpack` when read (autograd/graph.py's `saved_tensors_hooks`
pushes and pops the pairs; node.py calls `pack` and `unpack`).

What unpack gives back has the hook's data and the saved tensor's place in the graph (its
node, or its leaf's AccumulateGrad), as in PyTorch: a hook that packs a detached copy still
leaves a double backward (`create_graph=True`) its path to the inputs.
"""

from __future__ import annotations

import weakref
from typing import Any

from minigrad.autograd import tensor as _tensor
from minigrad.autograd.grad_mode import state

# The saved-tensor hooks in force, innermost last: `(pack, unpack)` pairs.
SAVED_TENSOR_HOOKS: list = []


def pack(value: Any, hooks: tuple | None = None) -> tuple | None:
    """`value` through the innermost saved-tensor hooks' pack (or `hooks`' own): (unpack,
    packed, its place in the graph, its forward-mode tangents); None for what is not a tensor.
    PyTorch's error if the hook changed the tensor in place."""
    if not isinstance(value, _tensor.Tensor):
        return None
    pack_hook, unpack_hook = hooks or SAVED_TENSOR_HOOKS[-1]
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
    return unpack_hook, packed, _place(value), value._tangents


def _place(value: Any) -> tuple | None:
    """Where `value` is in the graph: (its node, weakly: a node may save its own output; its
    output number; a leaf's AccumulateGrad), or None when it needs no gradient."""
    if not value._requires_grad:
        return None
    if value.grad_fn is not None:
        return weakref.ref(value.grad_fn), value._output_nr, None
    return None, 0, value._accumulator()


def unpack(packed: tuple) -> Any:
    """What the unpack hook gives back for `packed` (a tensor, or PyTorch's error), in the
    saved tensor's place in the graph."""
    unpack_hook, value, place, tangents = packed
    out = unpack_hook(value)
    if not isinstance(out, _tensor.Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(out).__name__}")
    if place is None:
        node, output_nr, accumulator = None, 0, None
        if not tangents or out._tangents is tangents:
            return out
    else:
        node_ref, output_nr, accumulator = place
        node = node_ref() if node_ref is not None else None
        if (node is not None and out.grad_fn is node and out._output_nr == output_nr) or (
                accumulator is not None and out._grad_acc is accumulator):
            return out  # (the hook gave the saved tensor itself back)
    placed = _tensor.make(out.array, node, output_nr, out._shared_version())
    if accumulator is not None:
        placed._requires_grad, placed._grad_acc = True, accumulator
    placed._tangents = tangents  # (kept beside the hook's data, as PyTorch's SavedVariable)
    return placed


class SavedTensor:
    """One tensor a node saved, as `node._raw_saved_self` gives it (PyTorch's
    torch._C._autograd.SavedTensor): `register_hooks(pack, unpack)` packs it now and unpacks
    it whenever backward (or `_saved_self`) reads it."""

    def __init__(self, node: Any, slot: int | str) -> None:
        self._node, self._slot = node, slot

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): incompatible function arguments. The following "
                            "argument types are supported:\n    1. (self: torch._C._autograd."
                            "SavedTensor, arg0: collections.abc.Callable, arg1: collections.abc."
                            "Callable) -> None")
        node, slot = self._node, self._slot
        out = slot == "output"
        value = node.output if out else node.saved_values[slot]
        packed = (node._packed_output,) if out else node._packed or (None,) * len(
            node.saved_values)
        if packed[0 if out else slot] is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        if not isinstance(value, _tensor.Tensor):
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        hooks = (lambda t: pack_hook(t.detach()), unpack_hook)  # (PyTorch packs it detached)
        if out:
            node._packed_output = pack(value, hooks)
        else:
            node._packed = (*packed[:slot], pack(value, hooks), *packed[slot + 1:])
