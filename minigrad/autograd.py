"""`minigrad.autograd`: grad(), backward(), backward_steps(), anomaly mode, Variable.

The names a PyTorch user reaches for under `torch.autograd`, so code written for PyTorch
(including old blog posts' `Variable`) runs unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from minigrad import engine
from minigrad import tensor as _tensor
from minigrad.engine import backward
from minigrad.events import BackwardStep
from minigrad.function import Function
from minigrad.grad_mode import enable_grad, no_grad, set_grad_enabled, state

__all__ = ["Function", "Variable", "backward", "backward_steps", "detect_anomaly", "grad",
           "enable_grad", "no_grad", "set_detect_anomaly", "set_grad_enabled",
           "is_anomaly_enabled"]


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None,
         materialize_grads: bool = False) -> tuple:
    """d(outputs)/d(inputs), returned instead of accumulated into `.grad`."""
    Tensor = _tensor.Tensor
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for i, t in enumerate(inputs):
        if not t._requires_grad:
            raise RuntimeError(engine.NO_GRAD_MESSAGE.format(i))
    roots, seeds = engine.prepare_roots(outputs, grad_outputs)
    captured = engine.drain(engine.execute(roots, seeds, retain_graph=retain_graph,
                                           create_graph=create_graph, capture=inputs))
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                g = Tensor._make(t.data * 0, None, 0)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


def backward_steps(tensor: Any, gradient: Any = None, retain_graph: bool | None = None
                   ) -> Iterator[BackwardStep]:
    """The backward pass of `tensor`, one `BackwardStep` at a time.

    Each step has already been applied when you receive it (gradients passed on, `.grad`
    accumulated), so you can stop, look at partial gradients, and go on.
    """
    roots, seeds = engine.prepare_roots(tensor, None if gradient is None else [gradient])
    return engine.execute(roots, seeds, retain_graph=retain_graph, yield_steps=True)


class set_detect_anomaly:
    """Turn anomaly mode on or off (a call or a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.anomaly_enabled
        state.anomaly_enabled = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        state.anomaly_enabled = self.prev


class detect_anomaly:
    """Inside, each node remembers the forward line that created it, and a backward step
    that produces NaN/inf raises naming the node and printing that line."""

    def __enter__(self) -> None:
        import warnings

        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)
        self.prev = state.anomaly_enabled
        state.anomaly_enabled = True

    def __exit__(self, *exc: Any) -> None:
        state.anomaly_enabled = self.prev


def is_anomaly_enabled() -> bool:
    return state.anomaly_enabled


def Variable(data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:  # noqa: N802
    """The pre-0.4 PyTorch wrapper: today it simply returns a Tensor."""
    Tensor = _tensor.Tensor
    t = Tensor(data) if not isinstance(data, Tensor) else data
    if requires_grad:
        t.requires_grad_(True)
    return t
