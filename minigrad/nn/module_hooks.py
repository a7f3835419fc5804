"""Module hooks, as in PyTorch: forward pre-hooks and hooks (optionally with the keyword
arguments), and full backward pre-hooks and hooks, which see (and may replace) the gradients
of a module's outputs and inputs.

Backward hooks work as PyTorch's do: the module's tensor inputs and outputs pass through an
identity op (`BackwardHookFunctionBackward` in the graph, as in PyTorch), whose node hooks
catch the gradients going through: the output's node sees grad_output (the pre-hooks run
there), the input's node sees grad_input (the hooks run there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import state
from minigrad.autograd.hooks import RemovableHandle
from minigrad.autograd.tensor import Tensor


class _BackwardHookFunction(Function):
    """identity on a module's tensors, whose node the backward hooks watch"""

    node_name = "BackwardHookFunctionBackward"
    formula = r"d identity(a)/da = 1"
    source = None  # (read as BackwardHookFunctionBackward(a, ...))
    gradients = ()

    @staticmethod
    def forward(ctx, *tensors):
        return tuple(t.array for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _add(hooks: list, entry: Any, prepend: bool) -> RemovableHandle:
    hooks.insert(0, entry) if prepend else hooks.append(entry)
    return RemovableHandle(hooks, entry)


class HooksMixin:
    """The `register_*hook` methods of Module and the call that runs the hooks."""

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """`hook(module, args) -> None | new args` (with_kwargs: `hook(module, args, kwargs)
        -> None | (new args, new kwargs)`), run before every forward."""
        return _add(self._forward_pre_hooks, (hook, with_kwargs), prepend)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False
                              ) -> RemovableHandle:
        """`hook(module, args, output) -> None | new output` (with_kwargs: `hook(module, args,
        kwargs, output)`), run after every forward (always_call: even when it raised)."""
        return _add(self._forward_hooks, (hook, with_kwargs, always_call), prepend)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False
                                        ) -> RemovableHandle:
        """`hook(module, grad_output) -> None | new grad_output`, run when the gradients of
        the module's outputs are known."""
        return _add(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False
                                    ) -> RemovableHandle:
        """`hook(module, grad_input, grad_output) -> None | new grad_input`, run when the
        gradients of the module's tensor inputs are known (None for those that need none)."""
        return _add(self._backward_hooks, hook, prepend)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        for hook, with_kwargs in list(self._forward_pre_hooks):
            new = hook(self, args, kwargs) if with_kwargs else hook(self, args)
            if new is None:
                continue
            if with_kwargs:
                if not (isinstance(new, tuple) and len(new) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {new}.")
                args, kwargs = new
            else:
                args = new if isinstance(new, tuple) else (new,)
        backward = _BackwardHooks(self) if (self._backward_hooks or self._backward_pre_hooks) \
            and state.grad_enabled else None
        if backward is not None:
            args = backward.wrap_inputs(args)
        try:
            out = self.forward(*args, **kwargs)
        except Exception:
            for hook, with_kwargs, always in list(self._forward_hooks):
                if always:
                    hook(self, args, kwargs, None) if with_kwargs else hook(self, args, None)
            raise
        for hook, with_kwargs, _ in list(self._forward_hooks):
            new = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
            if new is not None:
                out = new
        return out if backward is None else backward.wrap_outputs(out)


class _BackwardHooks:
    """One call's backward hooks: where the module's tensor inputs were, and the gradients of
    its outputs once the backward reaches them."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.n_inputs = 0
        self.input_slots: list[int] = []  # positions (among tensor inputs) that need grad
        self.grad_outputs: tuple | None = None

    def wrap_inputs(self, args: tuple) -> tuple:
        tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(tensors)
        need = [i for i in tensors if args[i].requires_grad]
        self.input_slots = [tensors.index(i) for i in need]
        if not need:
            return args
        wrapped = _BackwardHookFunction.apply(*[args[i] for i in need])
        wrapped[0].grad_fn.register_hook(self._on_grad_input)
        args = list(args)
        for i, t in zip(need, wrapped):
            args[i] = t
        return tuple(args)

    def wrap_outputs(self, out: Any) -> Any:
        single = isinstance(out, Tensor)
        outs = (out,) if single else out
        if not isinstance(outs, tuple) or not all(isinstance(o, Tensor) for o in outs) \
                or not any(o.requires_grad for o in outs):
            return out
        wrapped = _BackwardHookFunction.apply(*outs)
        wrapped[0].grad_fn.register_prehook(self._on_grad_output)
        return wrapped[0] if single else wrapped

    def _on_grad_output(self, grad_outputs: tuple) -> tuple | None:
        for hook in list(self.module._backward_pre_hooks):
            new = hook(self.module, grad_outputs)
            if new is not None:
                grad_outputs = _as_grads(new, len(grad_outputs), "backward pre-hook")
        self.grad_outputs = grad_outputs
        if not self.input_slots:  # no input needs a gradient: the hooks run now
            self._run_hooks((None,) * self.n_inputs)
        return grad_outputs

    def _on_grad_input(self, grad_inputs: tuple, _: tuple) -> tuple | None:
        full = [None] * self.n_inputs
        for slot, g in zip(self.input_slots, grad_inputs):
            full[slot] = g
        new = self._run_hooks(tuple(full))
        if new is None:
            return None
        return tuple(new[slot] for slot in self.input_slots)

    def _run_hooks(self, grad_input: tuple) -> tuple | None:
        replaced = None
        for hook in list(self.module._backward_hooks):
            new = hook(self.module, grad_input, self.grad_outputs)
            if new is not None:
                grad_input = replaced = _as_grads(new, len(grad_input), "backward hook")
        return replaced


def _as_grads(new: Any, expected: int, what: str) -> tuple:
    new = (new,) if isinstance(new, Tensor) else tuple(new)
    if len(new) != expected:
        raise RuntimeError(f"Module {what} returned {len(new)} gradients, but {expected} were "
                           "expected")
    return new
