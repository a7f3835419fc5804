"""Adam and AdamW, with PyTorch's update rule (bias correction, optional AMSGrad)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.optim.optimizer import Optimizer, next_step, state_tensor, step_tensor, subtract_


class Adam(Optimizer):
    r"""Per-parameter step sizes from running averages of the gradient and its square:

        g = grad + weight_decay * p              (Adam; AdamW decays p directly instead)
        m = beta1 * m + (1 - beta1) * g          (first moment)
        v = beta2 * v + (1 - beta2) * g^2        (second moment; AMSGrad uses max over steps)
        p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused, decoupled_weight_decay=decoupled_weight_decay))

    def _decay(self, p: Any, g: np.ndarray, group: dict) -> np.ndarray:
        """Adam's L2 penalty, added to the gradient; or with decoupled_weight_decay (AdamW)
        p <- p * (1 - lr * weight_decay) before the step."""
        if group["weight_decay"] == 0:
            return g
        if group["decoupled_weight_decay"]:
            p.array *= 1 - group["lr"] * group["weight_decay"]
            return g
        return g + group["weight_decay"] * p.array

    def _update(self, p: Any, group: dict) -> None:
        g = self._decay(p, -p.grad.array if group["maximize"] else p.grad.array, group)
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = step_tensor()
            state["exp_avg"] = state_tensor(np.zeros_like(p.array))
            state["exp_avg_sq"] = state_tensor(np.zeros_like(p.array))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = state_tensor(np.zeros_like(p.array))
        t = next_step(state)
        m, v = state["exp_avg"].array, state["exp_avg_sq"].array
        m *= beta1
        m += (1 - beta1) * g
        v *= beta2
        v += (1 - beta2) * g * g
        if group["amsgrad"]:
            v = np.maximum(state["max_exp_avg_sq"].array, v, out=state["max_exp_avg_sq"].array)
        step_size = group["lr"] / (1 - beta1 ** t)
        denom = np.sqrt(v)
        denom /= math.sqrt(1 - beta2 ** t)
        denom += group["eps"]
        subtract_(p, step_size * m / denom)


class AdamW(Adam):
    """Adam with decoupled weight decay: p <- p * (1 - lr * weight_decay) before the step
    (PyTorch 2.13's AdamW is Adam with decoupled_weight_decay=True)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
