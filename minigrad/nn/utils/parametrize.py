"""`nn.utils.parametrize`: a module's tensor computed from other parameters, as PyTorch's.

After `register_parametrization(linear, "weight", Symmetric())`, `linear.weight` is no
parameter any more: each read computes `Symmetric()(original)` (recorded ops, so gradients
reach `linear.parametrizations.weight.original`, the parameter an optimizer trains). The module's
class becomes `ParametrizedLinear`, a subclass with a `weight` property; removing the last
parametrization gives the class back. Inside `with cached():` each parametrized tensor is
computed once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.tensor import Tensor
from minigrad.nn.containers import ModuleDict, ModuleList
from minigrad.nn.module import Module, Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "type_before_parametrizations"]

_cache: dict[tuple[int, str], Tensor] = {}
_cache_depth = [0]  # how many `cached()` blocks are open


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside, each parametrized tensor is computed once (and reused until the block ends)."""
    _cache_depth[0] += 1
    try:
        yield
    finally:
        _cache_depth[0] -= 1
        if not _cache_depth[0]:
            _cache.clear()


def _keep(owner: Module, name: str, value: Tensor) -> None:
    """`value` as a parameter of `owner` if it is one, else as a buffer."""
    if isinstance(value, Parameter):
        owner.register_parameter(name, value)
    else:
        owner.register_buffer(name, value)


def _set(original: Tensor, value: Tensor) -> None:
    """`original.set_(value)`: its values (and shape) become value's, the object stays (so an
    optimizer holding it keeps it)."""
    original.data = value.detach().clone()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to `original` (or, when the first
    one's `right_inverse` splits it, to `original0`, `original1`, ...)."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False
                 ) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor | Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _set(original, new)
            _keep(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(part).__name__}.")
                if isinstance(original, Parameter):
                    part = Parameter(part.detach(), original.requires_grad)
                _keep(self, f"original{i}", part)
        if not self.unsafe:
            _check(self(), shape, dtype)

    def right_inverse(self, value: Tensor) -> None:
        """`module.weight = value`: the originals set so that the parametrization gives
        `value` (through each parametrization's right_inverse, last first)."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                _set(getattr(self, f"original{i}"), tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor, computed from the originals."""
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _check(z: Any, shape: Any, dtype: Any) -> None:
    if not isinstance(z, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
    if z.dtype != dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         f"unless `unsafe` flag is enabled.\nunparametrized dtype: {dtype}\n"
                         f"parametrized dtype: {z.dtype}")
    if z.shape != shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         f"unless `unsafe` flag is enabled.\nunparametrized shape: {shape}\n"
                         f"parametrized shape: {z.shape}")


def _inject_property(module: Module, name: str) -> None:
    """`module.<name>` (on its Parametrized class): read, computed; assigned, right_inverse."""

    def get(self: Module) -> Tensor:
        parametrization = self.parametrizations[name]
        if not _cache_depth[0]:
            return parametrization()
        key = (id(self), name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)

    setattr(type(module), name, property(get, set_))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """From now on `module.<tensor_name>` is `parametrization(original)` (see the module's
    docstring); a second parametrization of the same tensor is applied after the first."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            _check_more(x, y, tensor_name)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            cls = type(module)
            module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_more(x: Any, y: Tensor, name: str) -> None:
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    for what, a, b in (("dtype", y.dtype, x.dtype), ("shape", y.shape, x.shape)):
        if a != b:
            raise ValueError(f"Registering a parametrization may not change the {what} of the "
                             "tensor, unless the `unsafe` flag is enabled.\n"
                             f"module.{name}.{what}: {a}\nparametrization(module.{name}).{what}: "
                             f"{b}")


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Does `module` have a parametrization (on `tensor_name`, if given)?"""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else \
        tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True
                            ) -> Module:
    """Make `tensor_name` a plain parameter (or buffer) again: with `leave_parametrized`, the
    original takes the parametrized value (the same Parameter object, so an optimizer still
    has it); else the original as it is."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value.detach(), value.requires_grad) if value.requires_grad \
            else value.detach()
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that "
                         "is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _keep(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class as it was before it was parametrized."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)
