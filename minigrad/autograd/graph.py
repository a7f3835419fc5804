"""`minigrad.autograd.graph`: the graph's node type and the saved-tensor hooks.

`saved_tensors_hooks(pack, unpack)`: inside it, every tensor a recorded node saves for its
backward goes through `pack` once (at forward), and `unpack` gives it back when the backward
(or `grad_fn._saved_self`) reads it, as in PyTorch. minigrad keeps the original too (its
in-place checks read it), so packing does not free memory: it shows when tensors are saved
and read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.autograd import events
from minigrad.autograd import saved_tensor_hooks as _hooks
from minigrad.autograd.node import Node

__all__ = ["Node", "disable_saved_tensors_hooks", "save_on_cpu", "saved_tensors_hooks"]


class saved_tensors_hooks:  # noqa: N801 - PyTorch's spelling
    """`with saved_tensors_hooks(pack_hook, unpack_hook):` (the innermost one applies)."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]
                 ) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        if _DISABLED:
            raise RuntimeError(_DISABLED[-1])
        _hooks.SAVED_TENSOR_HOOKS.append((self.pack_hook, self.unpack_hook))
        # a saved output is kept by Function.apply, not save_for_backward: pack it when the
        # node is announced (a listener costs the forward nothing outside this block)
        self._listening = events.listen(_pack_output)
        self._listening.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._listening.__exit__(None, None, None)
        _hooks.SAVED_TENSOR_HOOKS.pop()


def _pack_output(event: Any) -> None:
    if type(event) is events.ForwardOp and _hooks.SAVED_TENSOR_HOOKS:
        node = event.node
        if node.saved_output is not None and node._packed_output is None:
            output = event.output[0] if isinstance(event.output, tuple) else event.output
            node._packed_output = _hooks.pack(output)


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's spelling
    """Saved tensors kept on the CPU (where minigrad's tensors always are): a copy at pack,
    handed back at unpack."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t.detach().clone(), lambda t: t)


_DISABLED: list[str] = []  # the messages of the disable_saved_tensors_hooks in force


class disable_saved_tensors_hooks:  # noqa: N801 - PyTorch's spelling
    """Inside, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        _DISABLED.append(self.error_message)

    def __exit__(self, *exc: Any) -> None:
        _DISABLED.pop()
