"""`Parameter` and `Module`: how a network keeps track of its weights, as in PyTorch.

Assigning a `Parameter` or a `Module` to an attribute of a Module registers it (that is the
whole trick behind `named_parameters()` and `fc1.weight`): `__setattr__` files it under
`_parameters` or `_modules`, and the walks below read those dicts in insertion order.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minigrad.autograd import events
from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.tensor import Tensor
from minigrad.nn.module_hooks import HooksMixin
from minigrad.nn.module_registry import RegistryMixin
from minigrad.nn.module_state import StateDictMixin, _IncompatibleKeys  # noqa: F401
from minigrad.nn.parameter import Parameter
from minigrad.surface import devices, dtypes, meta


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    return "\n".join([lines[0]] + [" " * spaces + line for line in lines[1:]])


class Module(HooksMixin, RegistryMixin, StateDictMixin):
    """Base class of every layer and model: subclass it, assign layers and Parameters in
    `__init__` (after `super().__init__()`), and write `forward`. (Hooks: module_hooks.py;
    registration and lookups: module_registry.py; state_dict: module_state.py.)"""

    training: bool

    def __init__(self) -> None:
        for name, value in (("training", True), ("_parameters", OrderedDict()),
                            ("_buffers", OrderedDict()), ("_non_persistent_buffers_set", set()),
                            ("_modules", OrderedDict()), ("_forward_hooks", []),
                            ("_forward_pre_hooks", []), ("_backward_hooks", []),
                            ("_backward_pre_hooks", [])):
            object.__setattr__(self, name, value)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if events.listening():  # (a trace may be recording: it notes which module runs)
            return self._call_announced(args, kwargs)
        if self._forward_pre_hooks or self._forward_hooks or self._backward_hooks \
                or self._backward_pre_hooks:  # (checked first: most modules have none)
            return self._call_with_hooks(args, kwargs)
        # (no keyword arguments, the usual case: calling without ** copies no empty dict)
        return self.forward(*args, **kwargs) if kwargs else self.forward(*args)

    def _call_announced(self, args: tuple, kwargs: dict) -> Any:
        """`__call__` between a ModuleBegin and a ModuleEnd event (also when forward raises)."""
        events.emit(events.ModuleBegin(self))
        try:
            if self._forward_pre_hooks or self._forward_hooks or self._backward_hooks \
                    or self._backward_pre_hooks:
                return self._call_with_hooks(args, kwargs)
            return self.forward(*args, **kwargs)
        finally:
            events.emit(events.ModuleEnd(self))

    # -- registration ----------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(minigrad.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (minigrad.nn.Module or None expected)")
            modules[name] = None
        elif self.__dict__.get("_buffers") and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(minigrad Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str = "") -> None:
        """Drop `name` from every registry but `keep` (where it stays in its place, so that
        re-assigning `self.fc1` keeps the order of the parameters, as in PyTorch)."""
        self.__dict__.pop(name, None)
        for table in ("_parameters", "_buffers", "_modules"):
            if table != keep:
                self.__dict__[table].pop(name, None)
        if keep != "_buffers":
            self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails: look in the registries
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    # -- walking the tree ------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """('', self), then every submodule depth-first with its dotted name."""
        seen = set() if memo is None else memo
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in seen:
                    continue
                seen.add(id(module))
            yield name, module
            children = [(f"{name}.{k}" if name else k, m) for k, m in module._modules.items()
                        if m is not None]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, table: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        seen: set = set()
        walk = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_name, module in walk:
            for name, value in module.__dict__[table].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{module_name}.{name}" if module_name else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs: `fc1.weight`, `0.bias`, ... (shared ones once)."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Any]]:
        return self._named_members("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call `fn` on every submodule (children first) and on self, e.g. to initialise."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- training state ----------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Freeze (False) or unfreeze every parameter of this module."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last backward (set to None, or zero them in place)."""
        for param in self.parameters():
            _zero_grad(param, set_to_none)

    # -- dtype and device --------------------------------------------------------------------
    def _apply(self, fn: Callable[[np.ndarray], np.ndarray], recurse: bool = True) -> Module:
        for tensor in list(self.parameters(recurse=recurse)) + list(self.buffers(recurse=recurse)):
            tensor.array = fn(tensor.array)
            if tensor._grad is not None:
                tensor._grad = Tensor._make(fn(tensor._grad.array), None, 0)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """`to(minigrad.float64)` converts every parameter and buffer; `to("meta")` puts them
        on the meta device (shapes and dtypes, no values); `to("cpu")` does nothing to a
        module on the CPU and refuses one on the meta device (use `to_empty`), as PyTorch."""
        dtype, _, to_meta = dtypes.to_arguments(args, kwargs)
        if dtype is not None and np.dtype(dtype).kind != "f":
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired "
                            f"dtype={dtypes.name(dtype)}")
        tensors = list(self.parameters()) + list(self.buffers())
        if to_meta is False and any(meta.is_meta(t.array) for t in tensors):
            raise NotImplementedError(meta.MODULE_TO)
        if to_meta:
            self._apply(meta.like)
        if dtype is None:
            return self
        dtype = np.dtype(dtype)
        return self._apply(lambda a: a.astype(dtype) if a.dtype.kind == "f" else a)

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Every parameter and buffer as a new one of its shape and dtype on `device`, its
        values not set (minigrad's are zeros, where PyTorch's memory is uninitialised): the
        step from a model built on the meta device to one that can be initialised and run."""
        make = meta.like if devices.wants_meta(device) else (lambda a: np.zeros(a.shape, a.dtype))
        return self._apply(make, recurse)

    def double(self) -> Module:
        return self.to(dtypes.float64)

    def float(self) -> Module:
        return self.to(dtypes.float32)

    def half(self) -> Module:
        return self.to(dtypes.float16)

    def cpu(self) -> Module:
        if any(meta.is_meta(t.array) for t in list(self.parameters()) + list(self.buffers())):
            raise NotImplementedError(meta.NO_DATA)
        return self

    def cuda(self, device: Any = None) -> Module:
        dtypes.check_device("cuda")
        return self

    # -- printing ------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (e.g. `in_features=2, ...`)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): {_addindent(repr(module), 2)}"
                    for name, module in self._modules.items()]
        main = self._get_name() + "("
        if lines or children:
            if len(lines) == 1 and not children:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines + children) + "\n"
        return main + ")"


def _zero_grad(param: Tensor, set_to_none: bool) -> None:
    grad = param.grad
    if grad is None:
        return
    if set_to_none:
        param.grad = None
    else:
        if grad.grad_fn is not None:
            grad.detach_()
        else:
            grad.requires_grad_(False)
        with no_grad():
            grad.zero_()
