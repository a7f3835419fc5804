"""Adadelta, Rprop and ASGD, with PyTorch's update rules, options and errors."""

from __future__ import annotations

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


def _grad(p: Any, group: dict) -> np.ndarray:
    g = -p.grad.array if group["maximize"] else p.grad.array
    wd = group.get("weight_decay", 0)
    return g + wd * p.array if wd != 0 else g


class Adadelta(Optimizer):
    r"""Step sizes from two running averages, of the squared gradients and of the squared
    steps: delta = sqrt(u + eps) / sqrt(v + eps) * g;  p = p - lr * delta."""

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_non_negative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_non_negative(eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))

    def _update(self, p: Any, group: dict) -> None:
        g, rho, eps = _grad(p, group), group["rho"], group["eps"]
        state = self.state[p]
        if not state:
            state["step"] = step_tensor()
            state["square_avg"] = state_tensor(np.zeros_like(p.array))
            state["acc_delta"] = state_tensor(np.zeros_like(p.array))
        next_step(state)
        v, u = state["square_avg"].array, state["acc_delta"].array
        v *= rho
        v += (1 - rho) * g * g
        delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u *= rho
        u += (1 - rho) * delta * delta
        subtract_(p, group["lr"] * delta)


class Rprop(Optimizer):
    r"""Only the gradient's sign: each entry's step size grows by etas[1] while the sign
    stays, shrinks by etas[0] when it flips (and that step is skipped), within step_sizes."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_non_negative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes),
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, p: Any, group: dict) -> None:
        g = _grad(p, group)
        state = self.state[p]
        if not state:
            state["step"] = step_tensor()
            state["prev"] = state_tensor(np.zeros_like(p.array))
            state["step_size"] = state_tensor(np.full_like(g, group["lr"]))
        next_step(state)
        (minus, plus), (low, high) = group["etas"], group["step_sizes"]
        sign = np.sign(g * state["prev"].array)
        factor = np.where(sign > 0, plus, np.where(sign < 0, minus, 1.0)).astype(g.dtype)
        size = state["step_size"].array
        np.clip(size * factor, low, high, out=size)
        g = np.where(sign < 0, 0, g).astype(g.dtype)  # (a flipped sign: no step this time)
        subtract_(p, np.sign(g) * size)
        state["prev"].array[...] = g


class ASGD(Optimizer):
    r"""SGD with a decaying step eta_t = lr / (1 + lambd lr t)^alpha, that also keeps `ax`,
    the average of the parameters since step t0 (the averaged iterate)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_non_negative(lr=lr, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, p: Any, group: dict) -> None:
        g = _grad(p, group)
        state = self.state[p]
        if not state:
            state["step"] = step_tensor()
            state["eta"] = state_tensor(np.asarray(group["lr"], dtype=np.float32))
            state["mu"] = state_tensor(np.ones((), np.float32))
            state["ax"] = state_tensor(np.zeros_like(p.array))
        t, lr, lambd = next_step(state), group["lr"], group["lambd"]
        eta, mu = float(state["eta"].array), float(state["mu"].array)
        p.array *= 1 - lambd * eta  # (listeners were told first: Optimizer.step)
        subtract_(p, eta * g)
        ax = state["ax"].array
        if mu != 1:
            ax += (p.array - ax) * mu
        else:
            ax[...] = p.array
        state["eta"].array[...] = lr / ((1 + lambd * lr * t) ** group["alpha"])
        state["mu"].array[...] = 1 / max(1, t - group["t0"])
