"""`Optimizer`: the parameter groups, the per-parameter state, zero_grad; subclasses write
`step()`.

A parameter group is a dict: `{"params": [...], "lr": 0.1, ...}`; options not given in a
group come from the optimizer's defaults, so one optimizer can train layers at different
learning rates (`optim.SGD([{"params": a}, {"params": b, "lr": 1e-3}], lr=0.1)`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from minigrad import events
from minigrad.grad_mode import enable_grad, no_grad
from minigrad.nn.module import _zero_grad
from minigrad.tensor import Tensor


def subtract_(p: Tensor, update: np.ndarray) -> None:
    """p -= update, in place (the same array), counted as an in-place change of p.

    The version goes up as after PyTorch's `p.add_(...)`, so a graph that saved p's old value
    refuses to backward through it.
    """
    will_change(p)
    p.array -= update
    p._bump_version()


def will_change(p: Tensor) -> None:
    """Tell listeners (a trace) that p is about to change in place."""
    if events.listening():
        events.emit(events.InPlaceChange(p))


def state_tensor(array: np.ndarray) -> Tensor:
    """A buffer of optimizer state (momentum, moments): a Tensor whose array is updated in
    place."""
    return Tensor._make(array, None, 0)


class Optimizer:
    """Base class: holds `param_groups` (list of dicts) and `state` (dict per parameter)."""

    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters (with its own options) to the optimizer."""
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__module__}.{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]) or \
                len({id(p) for p in group["params"]}) != len(group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last backward (set to None, or zero them in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                _zero_grad(p, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient (those with `.grad` None are skipped)."""
        loss = self._closure(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p: Any, group: dict) -> None:
        """One parameter's update from its `.grad` (each optimizer's own rule)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _update(p, group)")

    def _closure(self, closure: Callable[[], Any] | None) -> Any:
        """Re-evaluate the loss with `closure()` (with grad mode on), if one is given."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def __repr__(self) -> str:
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
