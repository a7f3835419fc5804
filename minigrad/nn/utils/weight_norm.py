"""The older `nn.utils.weight_norm` and `remove_weight_norm`, as PyTorch keeps them
(deprecated there in favour of `parametrizations.weight_norm`, with a FutureWarning): the
weight is replaced by parameters `weight_g` and `weight_v`, and a forward pre-hook computes
`weight = g * v / ||v||` before each forward."""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.nn.module import Module, Parameter
from minigrad.ops.weight_norms import _weight_norm, norm_except_dim

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]

DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
              "`torch.nn.utils.parametrizations.weight_norm`.")


class WeightNorm:
    """The forward pre-hook that recomputes `module.<name>` from `<name>_g` and `<name>_v`."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        warnings.warn(DEPRECATED, FutureWarning, stacklevel=3)
        for hook, _ in module._forward_pre_hooks:
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2,
                                                                         fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Weight normalization by a hook: `<name>_g` (lengths) and `<name>_v` (directions)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Back to one parameter `<name>`, with the value the hook last computed."""
    return remove_hook(module, WeightNorm, name, "weight_norm")


def remove_hook(module: Module, kind: type, name: str, what: str) -> Module:
    """Take the `kind` pre-hook of tensor `name` off `module` (its `remove` restores the
    parameter); PyTorch's error when there is none."""
    for entry in module._forward_pre_hooks:  # (minigrad keeps (hook, with_kwargs) pairs)
        hook = entry[0]
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            module._forward_pre_hooks.remove(entry)
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
