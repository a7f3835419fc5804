"""RMSprop and Adagrad: step sizes from the running size of each parameter's gradients, with
PyTorch's update rules, options and errors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.optim.optimizer import Optimizer, next_step, state_tensor, step_tensor, subtract_


def check_non_negative(**values: float) -> None:
    """PyTorch's `Invalid <name> value: <v>` for a negative option (lr and eps by their
    words)."""
    words = {"lr": "learning rate", "eps": "epsilon"}
    for name, value in values.items():
        if value < 0.0:
            what = words.get(name)
            raise ValueError(f"Invalid {what}: {value}" if what == "learning rate" else
                             f"Invalid {what or name} value: {value}")


def _decayed(p: Any, group: dict) -> np.ndarray:
    """The gradient (negated to maximize), plus weight_decay * p."""
    g = -p.grad.array if group["maximize"] else p.grad.array
    return g + group["weight_decay"] * p.array if group["weight_decay"] != 0 else g


class RMSprop(Optimizer):
    r"""Divide the gradient by the root of its running mean square:

        v = alpha * v + (1 - alpha) * g^2
        (centered: m = alpha * m + (1 - alpha) * g;  v~ = v - m^2)
        buf = momentum * buf + g / (sqrt(v~) + eps);  p = p - lr * buf  (momentum > 0)
        p = p - lr * g / (sqrt(v~) + eps)                                 (otherwise)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_non_negative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                           alpha=alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p: Any, group: dict) -> None:
        g = _decayed(p, group)
        alpha, state = group["alpha"], self.state[p]
        if not state:
            state["step"] = step_tensor()
            state["square_avg"] = state_tensor(np.zeros_like(p.array))
            if group["momentum"] > 0:
                state["momentum_buffer"] = state_tensor(np.zeros_like(p.array))
            if group["centered"]:
                state["grad_avg"] = state_tensor(np.zeros_like(p.array))
        next_step(state)
        v = state["square_avg"].array
        v *= alpha
        v += (1 - alpha) * g * g
        if group["centered"]:
            m = state["grad_avg"].array
            m += (1 - alpha) * (g - m)
            avg = np.sqrt(v - m * m)
        else:
            avg = np.sqrt(v)
        avg += group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"].array
            buf *= group["momentum"]
            buf += g / avg
            subtract_(p, group["lr"] * buf)
        else:
            subtract_(p, group["lr"] * (g / avg))


class Adagrad(Optimizer):
    r"""Divide the gradient by the root of the sum of all its squares so far:

        s = s + g^2;  p = p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)

    The state (`step` 0, `sum` = initial_accumulator_value) exists from the start, as in
    PyTorch.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_non_negative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p: Any, group: dict) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = step_tensor()
            state["sum"] = state_tensor(np.full_like(p.array, group["initial_accumulator_value"]))
        return state

    def _update(self, p: Any, group: dict) -> None:
        g = _decayed(p, group)
        state = self._init_state(p, group)
        clr = group["lr"] / (1 + (next_step(state) - 1) * group["lr_decay"])
        s = state["sum"].array
        s += g * g
        std = np.sqrt(s)
        std += group["eps"]
        subtract_(p, clr * (g / std))
