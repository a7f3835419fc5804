"""OneCycleLR: lr up from max_lr/div_factor to max_lr, then down to a tiny min_lr, over
total_steps (one step per batch), with momentum (or Adam's beta1) cycled the other way;
PyTorch's phases and formulas."""

from __future__ import annotations

import math
from typing import Any

from minigrad.optim.lr_scheduler.schedules import LRScheduler, _check_optimizer
from minigrad.optim.optimizer import Optimizer


def _per_group(name: str, optimizer: Optimizer, value: Any) -> list:
    """One value per parameter group (a list of them, or one for all)."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


def _total_steps(total_steps: int | None, epochs: int | None,
                 steps_per_epoch: int | None) -> int:
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
    if not isinstance(epochs, int) or epochs <= 0:
        raise ValueError(f"Expected positive integer epochs, but got {epochs}")
    if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
        raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
    return epochs * steps_per_epoch


def _phases(pct_start: float, total: int, three_phase: bool) -> list[dict]:
    """(end step, group keys of the start and end lr and momentum) of each phase."""
    def phase(end: float, lrs: tuple, momenta: tuple) -> dict:
        return {"end_step": end, "start_lr": lrs[0], "end_lr": lrs[1],
                "start_momentum": momenta[0], "end_momentum": momenta[1]}
    up = phase(float(pct_start * total) - 1, ("initial_lr", "max_lr"),
               ("max_momentum", "base_momentum"))
    if not three_phase:
        return [up, phase(total - 1, ("max_lr", "min_lr"), ("base_momentum", "max_momentum"))]
    return [up, phase(float(2 * pct_start * total) - 2, ("max_lr", "initial_lr"),
                      ("base_momentum", "max_momentum")),
            phase(total - 1, ("initial_lr", "min_lr"), ("max_momentum", "max_momentum"))]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin): step it after every batch, total_steps times."""

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group, top in zip(groups, _per_group("max_lr", optimizer, max_lr)):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._init_momentum(base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _init_momentum(self, base: Any, top: Any, last_epoch: int) -> None:
        defaults = self.optimizer.defaults
        if "momentum" not in defaults and "betas" not in defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                             "option enabled")
        self.use_beta1 = "betas" in defaults
        tops = _per_group("max_momentum", self.optimizer, top)
        bases = _per_group("base_momentum", self.optimizer, base)
        if last_epoch == -1:
            for m, b, group in zip(tops, bases, self.optimizer.param_groups):
                self._set_momentum(group, m)
                group["max_momentum"], group["base_momentum"] = m, b

    def _set_momentum(self, group: dict, value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        self._warn_get_lr()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps "
                             f"is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]],
                                            pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
                    break
                start = phase["end_step"]
        return lrs
