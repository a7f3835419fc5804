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

from minigrad.autograd import events
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.autograd.tensor import Tensor
from minigrad.nn.module import _zero_grad
from minigrad.ops.in_place import check_writable


def subtract_(p: Tensor, update: np.ndarray) -> None:
    """p -= update, in place (the same array), counted as an in-place change of p.

    The version goes up as after PyTorch's `p.add_(...)`, so a graph that saved p's old value
    refuses to backward through it. (Listeners were told before the step changed anything.)
    """
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


def step_tensor() -> Tensor:
    """A parameter's step count as PyTorch keeps it: a 0-d float32 tensor (`state["step"]`
    prints `tensor(1.)`), counted up in place by `next_step`."""
    return Tensor._make(np.zeros((), np.float32), None, 0)


def next_step(state: dict) -> float:
    """`state["step"] += 1` (in place, as PyTorch's `step_t += 1`); the new count."""
    step = state["step"]
    step.array += 1
    return float(step.array)


class Optimizer:
    """Base class: holds `param_groups` (list of dicts) and `state` (dict per parameter)."""

    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        if defaults.get("differentiable"):
            raise NotImplementedError("minigrad's optimizers update parameters in place in "
                                      "numpy: differentiable=True is not supported")
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
        """Update every parameter that has a gradient (those with `.grad` None are skipped).

        Atomic: everything that can fail is done before any parameter or state changes.
        Every gradient is checked, every parameter and state buffer must be writable, and
        listeners (a trace) are told of every change first, so a listener that raises also
        leaves all as it was. (`_opt_called` tells a learning-rate scheduler that a step was
        taken; PyTorch wraps `step` to set it, minigrad sets it here.)
        """
        loss = self._closure(closure)
        self._opt_called = True
        with no_grad():
            todo = [(p, group) for group in self.param_groups for p in group["params"]
                    if p.grad is not None]
            for p, _ in todo:
                _check_grad(p)
                check_writable(p)
                for value in self.state.get(p, {}).values():
                    if isinstance(value, Tensor):
                        check_writable(value)
            for p, _ in todo:
                will_change(p)
            for p, group in todo:
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

    # -- state_dict ----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """`{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`, PyTorch's
        layout: parameters are numbered in the order of the groups. The state's tensors are the
        optimizer's own (as in PyTorch; copy them to keep a snapshot)."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: dict(values) for p, values in self.state.items()
                 if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Take the state and the options of `state_dict` (from `state_dict()`), matching
        parameters by position. Everything is checked before anything is written."""
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        by_index = {i: p for g, s in zip(groups, saved_groups) for i, p in zip(s["params"],
                                                                                g["params"])}
        new_state: defaultdict = defaultdict(dict)
        for i, values in state_dict["state"].items():
            if i in by_index:
                p = by_index[i]
                new_state[p] = {k: _state_value(v, p, k) for k, v in values.items()}
        self.state = new_state
        self.param_groups = [{**saved, "params": group["params"]}
                             for group, saved in zip(groups, saved_groups)]

    def __repr__(self) -> str:
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _check_grad(p: Tensor) -> None:
    """A gradient the update can use: the parameter's shape and dtype."""
    grad = p.grad
    if grad.array.shape != p.array.shape:
        raise RuntimeError(f"the gradient of a parameter has size '{list(grad.array.shape)}' "
                           f"but the parameter has size '{list(p.array.shape)}'; no parameter "
                           "was updated")
    if grad.array.dtype != p.array.dtype:
        raise RuntimeError(f"the gradient of a parameter has dtype {grad.dtype} but the "
                           f"parameter has dtype {p.dtype}; no parameter was updated")


def _state_value(value: Any, p: Tensor, key: str) -> Any:
    """A loaded state entry: tensors (or arrays) of p's shape are copied as p's dtype (as
    PyTorch casts them); numbers are kept, and `step` becomes a 0-d float32 tensor (PyTorch's
    form, from a tensor or an older state's int)."""
    if key == "step" and np.ndim(getattr(value, "array", value)) == 0:
        step = step_tensor()
        step.array[...] = float(getattr(value, "array", value))
        return step
    if isinstance(value, (Tensor, np.ndarray)):
        array = value.array if isinstance(value, Tensor) else value
        if array.ndim and array.shape != p.array.shape:
            raise ValueError(f"loaded state dict has a '{key}' of shape {list(array.shape)} for "
                             f"a parameter of shape {list(p.array.shape)}")
        dtype = p.array.dtype if array.ndim else array.dtype
        return state_tensor(np.array(array, dtype=dtype, copy=True))
    return value
