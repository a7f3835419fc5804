"""How a Module files its parts by name: `register_parameter`, `register_buffer` (persistent
or not), `add_module`, with PyTorch's checks and messages, and the lookups by dotted path
`get_submodule`, `get_parameter`, `get_buffer`."""

from __future__ import annotations

from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.nn.parameter import Parameter


def check_name(kind: str, name: Any, owner: Any, table: str) -> None:
    """PyTorch's refusals of a name for a parameter, buffer or module."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        got = f", got: {name}" if kind == "module" else ""
        raise KeyError(f'{kind} name can\'t contain "."{got}')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(owner, name) and name not in owner.__dict__.get(table, {}):
        raise KeyError(f"attribute '{name}' already exists")


class RegistryMixin:
    """Module's registration methods and lookups."""

    def register_parameter(self, name: str, param: Any) -> None:
        """Add a parameter (a `Parameter`, or None for an absent one like `bias=False`)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        check_name("parameter", name, self, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            what = param.type() if isinstance(param, Tensor) else type(param).__name__
            raise TypeError(f"cannot assign '{what}' object to parameter '{name}' "
                            "(minigrad.nn.Parameter or None required)")
        self._forget(name, keep="_parameters")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True
                        ) -> None:
        """A tensor that belongs to the module's state but is not trained (BatchNorm's running
        mean): moved by `.double()`/`.to()`, in `state_dict` unless `persistent=False`."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        check_name("buffer", name, self, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (minigrad Tensor or None required)")
        self._forget(name, keep="_buffers")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Any) -> None:
        """Add a child module under `name` (what assigning `self.name = module` does)."""
        if module is not None and not isinstance(module, RegistryMixin):  # (Module is one)
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        check_name("module", name, self, "_modules")
        self._forget(name, keep="_modules")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Any:
        """The module at a dotted path, e.g. `"encoder.layers.0"` ("" is self)."""
        module = self
        for item in target.split(".") if target else []:
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, RegistryMixin):  # (every Module is one)
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def _get_member(self, target: str, table: str, what: str) -> Any:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module.__dict__[table]:
            raise AttributeError(f"`{name}` is not {what}")
        return module.__dict__[table][name]

    def get_parameter(self, target: str) -> Any:
        """The parameter at a dotted path, e.g. `"0.weight"`."""
        return self._get_member(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target: str) -> Any:
        """The buffer at a dotted path, e.g. `"bn.running_mean"`."""
        return self._get_member(target, "_buffers", "a buffer")
