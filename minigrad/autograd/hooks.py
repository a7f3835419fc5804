"""Hooks: how a user sees and changes the gradients of one backward step.

Registering: `tensor.register_hook(fn)` and `tensor.retain_grad()` attach to the node that
made the tensor (its AccumulateGrad for a leaf), at the tensor's output number;
`node.register_prehook(fn)` and `node.register_hook(fn)` attach to the node itself. Every
registration marks the node `_hooked`, so the engine skips this module for all other nodes.

Running, in PyTorch's order: before a node's backward, its tensor hooks, then retained
gradients, then its pre-hooks (`before`); after it, its post-hooks (`after`). A hook that
returns a value replaces the gradient; each run is a `HookFired` event.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.autograd import events
from minigrad.autograd import tensor as _tensor  # (resolved at call time: tensor.py imports hooks)
from minigrad.autograd.events import HookFired
from minigrad.autograd.grad_mode import state
from minigrad.surface import dtypes


class RemovableHandle:
    """Returned by every `register_*hook`; `.remove()` takes the hook out again."""

    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def add_node_hook(node: Any, kind: str, hook: Callable) -> RemovableHandle:
    """Append `hook` to the node's `_pre_hooks` or `_post_hooks` list (`kind`)."""
    node._hooked = True
    hooks = node.__dict__.get(kind)
    if hooks is None:
        hooks = []
        setattr(node, kind, hooks)
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def add_tensor_hook(tensor: Any, hook: Callable) -> RemovableHandle:
    """`tensor.register_hook(hook)`: `hook(grad)` runs when the tensor's gradient is known."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    node = tensor.grad_fn if tensor.grad_fn is not None else tensor._accumulator()
    node._hooked = True
    if node._tensor_pre_hooks is None:
        node._tensor_pre_hooks = {}
    hooks = node._tensor_pre_hooks.setdefault(tensor.output_nr, [])
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def add_post_accumulate_hook(tensor: Any, hook: Callable) -> RemovableHandle:
    """`leaf.register_post_accumulate_grad_hook(hook)`: `hook(leaf)` runs each time a
    gradient has been added into `leaf.grad` (an optimizer can step there)."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return add_node_hook(tensor._accumulator(), "_post_accumulate_hooks", hook)


def after_accumulation(leaf: Any, hooks: list) -> None:
    """Run a leaf's post-accumulate hooks; each must return None (PyTorch's words)."""
    for hook in list(hooks):
        returned = hook(leaf)
        if isinstance(returned, _tensor.Tensor):
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        if returned is not None:
            raise TypeError(f"expected Variable, but hook returned "
                            f"'{type(returned).__name__}'")


def retain_grad(tensor: Any) -> None:
    """`tensor.retain_grad()`: a non-leaf's gradient is kept in its `.grad` (leaves: no-op)."""
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.grad_fn is None or tensor.retains_grad:
        return
    node = tensor.grad_fn
    node._hooked = True
    if node._retained is None:
        node._retained = {}
    node._retained[tensor.output_nr] = weakref.ref(tensor)
    tensor._retains_grad = True


def move_retained(tensor: Any, old_node: Any, old_nr: int) -> None:
    """After an in-place op gave `tensor` a new node: keep the gradient of its new value, not
    of the value it had (what PyTorch's retain_grad does)."""
    if old_node is not None and old_node._retained:
        old_node._retained.pop(old_nr, None)
    tensor._retains_grad = False
    retain_grad(tensor)


def before(node: Any, grads: list, task: Any) -> list:
    """Run the node's tensor hooks, retained grads and pre-hooks on its incoming `grads`."""
    grads = grads + [None] * (node._num_outputs - len(grads))  # one entry per output
    for nr, hooks in (node._tensor_pre_hooks or {}).items():
        for hook in list(hooks):
            old = grads[nr]
            new = hook(old)
            if new is not None:
                grads[nr] = _checked_value(hook, new, old)
            _fired("tensor", hook, old, grads[nr], node)
    for nr, ref in (node._retained or {}).items():
        t = ref()
        if t is not None and grads[nr] is not None:
            g = grads[nr] if state.grad_enabled else grads[nr].detach()
            task.set_grad(t, g if t._grad is None else t._grad + g, g.array)  # .grad += g
    for hook in list(node._pre_hooks):
        old = tuple(grads)
        new = hook(old)
        if new is not None:
            grads = _checked(hook, new, old)
        _fired("prehook", hook, old, tuple(grads), node)
    return grads


def after(node: Any, grad_inputs: list, grads: list) -> list:
    """Run the node's post-hooks: `hook(grad_inputs, grad_outputs)` may replace grad_inputs."""
    for hook in list(node._post_hooks):
        new = hook(tuple(grad_inputs), tuple(grads))  # tuples, as in PyTorch
        old = grad_inputs
        if new is not None:
            grad_inputs = _checked(hook, new, tuple(old))
        _fired("hook", hook, tuple(old), tuple(grad_inputs), node)
    return grad_inputs


def _checked(hook: Callable, new: Any, old: Any) -> list:
    """A node hook's replacement gradients: a tuple with one per slot, each of the size and
    dtype it replaces, as PyTorch checks (in its words)."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{torch_type_name(new)}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(new)}, but expected {len(old)})")
    return [v if v is None else _checked_value(hook, v, o) for v, o in zip(new, old)]


def _checked_value(hook: Callable, new: Any, old: Any) -> Any:
    """A hook's replacement for one gradient: a tensor of the old one's size and dtype."""
    if not isinstance(new, _tensor.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{torch_type_name(new)}'")
    if old is not None:
        if new.array.shape != old.array.shape:
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
        if new.array.dtype != old.array.dtype:
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                               f"{_tensor_type(old)} got {_tensor_type(new)})")
    return new


def _hook_name(hook: Callable) -> str:
    return getattr(hook, "__name__", repr(hook))


def torch_type_name(value: Any) -> str:
    """`float`, `numpy.ndarray`, `Tensor`: how PyTorch names the type of a value it refuses
    (what a hook returned, a loss's input)."""
    kind = type(value)
    if kind.__module__ in ("builtins",) or kind.__module__.startswith("minigrad"):
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"


def _tensor_type(t: Any) -> str:
    return f"minigrad.{dtypes.TORCH_NAMES[np.dtype(t.array.dtype)]}Tensor"


def _fired(where: str, hook: Callable, old: Any, new: Any, node: Any) -> None:
    if events.listening():
        events.emit(HookFired(where, hook, old, new, node))
