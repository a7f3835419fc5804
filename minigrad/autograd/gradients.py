"""What a gradient is while the engine runs: a Tensor, or a numpy array.

In a backward pass that records nothing and that nobody watches (no create_graph, no listener
such as `trace`, no forward mode: `GraphTask.arrays` in engine.py), gradients travel as the
numpy arrays the ops' `backward_arrays` make. They become Tensors only where your code sees
them: a hook, `.grad`, `autograd.grad`'s results, a `backward` written with Tensor ops (a
user's Function, an op without `backward_arrays`). Every other pass carries Tensors, so that
create_graph can record what backward computes and the teaching tools see Tensors.

speed: carrying arrays makes no Tensor per gradient, and lets the engine check an array's shape
and buffer it without a call (`GraphTask.send`) and hand one array to `backward_arrays`
without a loop (`arrays_of`): together -11% instructions per node of the small-op chain
(scripts/callgrind_counts.py chain: 66,600 -> 59,400).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy import ndarray  # (np.ndarray is a slow lookup: numpy has a module __getattr__)

from minigrad.autograd import tensor as _tensor  # (read at call time: tensor.py imports us)


def as_tensor(grad: Any) -> Any:
    """A gradient as a Tensor (None, and a Tensor, stay as they are; a numpy scalar, which
    numpy makes of a 0-d product, becomes a 0-d Tensor)."""
    if isinstance(grad, ndarray):
        return _tensor.make(grad, None, 0)
    if isinstance(grad, np.generic):
        return _tensor.make(np.asanyarray(grad), None, 0)
    return grad


def tensors_of(grads: list) -> list:
    """Gradients as Tensors (None stays None), for a `backward` written with Tensor ops."""
    if len(grads) == 1 and not isinstance(grads[0], ndarray):  # (one Tensor or None: no loop)
        return grads
    return [as_tensor(g) for g in grads]


def array_of(grad: Any) -> Any:
    """A gradient's numpy array (a Tensor's `.array`; an array, a number or None as it is).
    The ops use it too, as `ops.base.unwrap`, for any operand."""
    return grad.array if isinstance(grad, _tensor.Tensor) else grad


def arrays_of(grads: list) -> list:
    """Gradients as numpy arrays (None stays None), for an op's `backward_arrays`."""
    if len(grads) == 1 and type(grads[0]) is ndarray:  # (one array, the usual case: no loop)
        return grads
    return [array_of(g) for g in grads]


def total(a: Any, b: Any) -> Any:
    """Two gradients for one output, summed: two arrays as an array (a 0-d sum stays one,
    where numpy would make it a scalar), else as Tensors."""
    if type(a) is ndarray and type(b) is ndarray:
        s = a + b
        return s if type(s) is ndarray else np.asanyarray(s)
    return as_tensor(a) + as_tensor(b)
