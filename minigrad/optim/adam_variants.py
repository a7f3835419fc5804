"""Adamax, NAdam and RAdam: Adam's running moments with another step, PyTorch's update rules,
options and errors (d2l's chapter on optimization compares them)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.optim.optimizer import (
    Optimizer,
    next_step,
    state_tensor,
    step_tensor,
    subtract_,
)
from minigrad.optim.rmsprop import check_non_negative


def check_adam_options(lr: float, eps: float, betas: tuple, weight_decay: float) -> None:
    """PyTorch's `Invalid ...` errors for Adam-like options, in its order."""
    check_non_negative(lr=lr, eps=eps)
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    check_non_negative(weight_decay=weight_decay)


def _grad(p: Any, group: dict, decoupled: bool = False) -> np.ndarray:
    """The gradient (negated to maximize) with weight decay: added to it (L2), or, decoupled,
    p shrunk by lr * weight_decay first (AdamW's way)."""
    g = -p.grad.array if group["maximize"] else p.grad.array
    wd = group["weight_decay"]
    if wd == 0:
        return g
    if decoupled:  # (listeners were told before the step changed anything)
        p.array *= 1 - group["lr"] * wd
        return g
    return g + wd * p.array


def _moments(p: Any, state: dict, second: str) -> dict:
    if not state:
        state["step"] = step_tensor()
        state["exp_avg"] = state_tensor(np.zeros_like(p.array))
        state[second] = state_tensor(np.zeros_like(p.array))
    return state


class Adamax(Optimizer):
    r"""Adam with the infinity norm: u = max(beta2 * u, |g| + eps);
    p = p - lr / (1 - beta1^t) * m / u."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_adam_options(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, p: Any, group: dict) -> None:
        g = _grad(p, group)
        beta1, beta2 = group["betas"]
        state = _moments(p, self.state[p], "exp_inf")
        t = next_step(state)
        m, u = state["exp_avg"].array, state["exp_inf"].array
        m += (g - m) * (1 - beta1)  # (lerp)
        np.maximum(u * beta2, np.abs(g) + group["eps"], out=u)
        subtract_(p, group["lr"] / (1 - beta1 ** t) * (m / u))


class NAdam(Optimizer):
    r"""Adam with Nesterov momentum: the momentum coefficient mu_t = beta1 (1 - 0.5 *
    0.96^(t psi)) warms up (psi = momentum_decay), and the step looks one mu ahead."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_adam_options(lr, eps, betas, weight_decay)
        check_non_negative(momentum_decay=momentum_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))

    def _update(self, p: Any, group: dict) -> None:
        g = _grad(p, group, group["decoupled_weight_decay"])
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            _moments(p, state, "exp_avg_sq")
            state["mu_product"] = state_tensor(np.ones((), np.float32))
        t, lr, psi = next_step(state), group["lr"], group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        state["mu_product"].array *= mu
        product = float(state["mu_product"].array)
        m, v = state["exp_avg"].array, state["exp_avg_sq"].array
        m += (g - m) * (1 - beta1)
        v *= beta2
        v += (1 - beta2) * g * g
        denom = np.sqrt(v / (1 - beta2 ** t)) + group["eps"]
        subtract_(p, lr * (1.0 - mu) / (1.0 - product) * (g / denom)
                  + lr * mu_next / (1.0 - product * mu_next) * (m / denom))


class RAdam(Optimizer):
    r"""Adam whose adaptive step is switched on only once the variance of its estimate is
    bounded (rho_t > 5), and then rectified by r_t; before that, momentum SGD with bias
    correction."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        check_adam_options(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update(self, p: Any, group: dict) -> None:
        g = _grad(p, group, group["decoupled_weight_decay"])
        beta1, beta2 = group["betas"]
        state = _moments(p, self.state[p], "exp_avg_sq")
        t, lr = next_step(state), group["lr"]
        m, v = state["exp_avg"].array, state["exp_avg_sq"].array
        m += (g - m) * (1 - beta1)
        v *= beta2
        v += (1 - beta2) * g * g
        corrected = m / (1 - beta1 ** t)
        correction2 = 1 - beta2 ** t
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * beta2 ** t / correction2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive = math.sqrt(correction2) / (np.sqrt(v) + group["eps"])
            subtract_(p, corrected * lr * adaptive * rect)
        else:
            subtract_(p, corrected * lr)
