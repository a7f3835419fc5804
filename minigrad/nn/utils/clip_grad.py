"""Gradient clipping: `clip_grad_norm_` (all gradients scaled together to a total norm) and
`clip_grad_value_` (each entry clamped), as `torch.nn.utils.clip_grad`."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from minigrad.autograd import events
from minigrad.autograd.tensor import Tensor
from minigrad.ops.in_place import check_writable

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale all gradients together so that their total norm is at most `max_norm`.

    The total norm is the norm of the vector of all gradient entries (of every parameter);
    each gradient is multiplied in place by min(1, max_norm / (total + 1e-6)). Returns the
    total norm before clipping, as PyTorch does. (`foreach` picks PyTorch's kernels; minigrad
    has one way, so it is accepted and changes nothing.)
    """
    grads = _grads(parameters)
    if not grads:
        return Tensor(0.0)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if norm_type == math.inf:
        total = max(float(np.max(np.abs(g.array))) if g.array.size else 0.0 for g in grads)
    else:
        norms = [np.linalg.norm(g.array.ravel(), norm_type) for g in grads]
        total = float(np.linalg.norm(np.asanyarray(norms, dtype=np.float64), norm_type))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    coef = min(max_norm / (total + 1e-6), 1.0)
    _change_all(grads, lambda a: np.multiply(a, coef, out=a, casting="unsafe"))
    return Tensor(np.asanyarray(total, dtype=np.result_type(*[g.array for g in grads])))


def _change_all(grads: list[Tensor], change: Callable[[np.ndarray], object]) -> None:
    """`change` each gradient's array in place, all or none: every one must be writable, and
    listeners are told of all the changes before the first is made (so a listener that raises
    stops them all)."""
    for g in grads:
        check_writable(g)
    if events.listening():
        for g in grads:
            events.emit(events.InPlaceChange(g))
    for g in grads:
        change(g.array)
        g._bump_version()


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient entry into [-clip_value, clip_value], in place (`foreach`: as in
    clip_grad_norm_)."""
    grads = _grads(parameters)
    _change_all(grads, lambda a: np.clip(a, -clip_value, clip_value, out=a))
