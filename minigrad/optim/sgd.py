"""Stochastic gradient descent, with PyTorch's update rule (momentum, dampening, nesterov,
weight decay)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.optim.optimizer import Optimizer, state_tensor, subtract_


class SGD(Optimizer):
    r"""p <- p - lr * g, where g is the gradient, or with momentum the running buffer:

        g = grad + weight_decay * p
        buf = g                                    (first step)
        buf = momentum * buf + (1 - dampening) * g  (later steps)
        g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, p: Any, group: dict) -> None:
        g = -p.grad.array if group["maximize"] else p.grad.array
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p.array
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = state_tensor(np.array(g, copy=True))
                buf = state["momentum_buffer"].array
            else:
                buf = state["momentum_buffer"].array
                buf *= momentum
                buf += (1 - group["dampening"]) * g
            g = g + momentum * buf if group["nesterov"] else buf
        subtract_(p, group["lr"] * g)
