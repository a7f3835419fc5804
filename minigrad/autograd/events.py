"""What the engine tells the world: one small frozen dataclass per kind of event.

Nothing here computes anything. The engine, `Function.apply`, the in-place ops, the
optimizers and `nn.Module` calls build an event only when somebody listens (`listening()` is
a cheap truth test of a list), so with no listener the cost of events is one `if` per node.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

_listeners: list[Callable[[Any], None]] = []


@dataclass(frozen=True)
class ForwardOp:
    """A node was recorded: `output = node(*inputs)` (only emitted while someone listens).

    `settings` are the keyword arguments `Function.apply` got (a dim, a shape, an exponent):
    what the op was told besides its inputs, which have edges.
    """

    node: Any
    inputs: tuple
    output: Any
    settings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ForwardTangent:
    """Forward mode: an op's output got its tangent (only emitted while someone listens).

    `function` is the op's Function class (its node name: `function._node_class.__name__`),
    `output` its value (a Tensor, or a tuple for several outputs), `inputs` what `apply` got;
    `input_tangents` one per input at `level` (zeros for a float tensor without one, 0.0 for a
    number, None for a mask or index), `output_tangent` what the op's JVP rule gave (a tuple
    for several outputs). Emitted after the op's own ForwardOp, if it recorded one; the ops a
    rule runs to compute the tangent emit theirs before (`forward_ad.in_rule()` is True then).
    """

    function: Any
    output: Any
    inputs: tuple
    input_tangents: tuple
    output_tangent: Any
    settings: dict
    level: int


@dataclass(frozen=True)
class BackwardBegin:
    """A backward pass starts from `roots`, seeded with `gradients` (one per root)."""

    roots: tuple
    gradients: tuple


@dataclass(frozen=True)
class BackwardStep:
    """Node number `index` (1-based, in execution order) ran.

    `grad_outputs` is the gradient it received for each of its outputs (after hooks);
    `grad_inputs` what it sent to each of its inputs (after broadcasting was summed away);
    `summed_dims[i]` names the dims summed to undo broadcasting for input i (or None).
    """

    index: int
    node: Any
    grad_outputs: tuple
    grad_inputs: tuple
    seconds: float
    summed_dims: tuple = ()

    @classmethod
    def of(cls, index: int, node: Any, grads: list, grad_inputs: list, summed_dims: list,
           started: float) -> BackwardStep:
        """The step of the engine's loop (engine.py) that ran `node`, begun at `started`: its
        gradients in, one per output (None for an output nobody used), and out."""
        padded = (*grads, *[None] * (node._num_outputs - len(grads)))
        return cls(index, node, padded, tuple(grad_inputs), time.perf_counter() - started,
                   tuple(summed_dims))


@dataclass(frozen=True)
class GradAccumulated:
    """`tensor.grad` went from `grad` (None the first time) to `total`."""

    tensor: Any
    grad: Any
    total: Any


@dataclass(frozen=True)
class HookFired:
    """A hook ran. `where` is "tensor", "prehook" or "hook"; `before`/`after` the gradients."""

    where: str
    hook: Any
    before: Any
    after: Any
    node: Any = None


@dataclass(frozen=True)
class InPlaceChange:
    """`tensor` is about to be changed in place: an in-place op (`zero_()`, `add_()`, ...),
    `t[i] = v` or an optimizer's step. Emitted before the write, while someone listens, so
    that a listener holding the tensor's values can copy them first. (Writes straight into
    the numpy array `tensor.array` bypass minigrad and are not seen.)"""

    tensor: Any


@dataclass(frozen=True)
class ModuleBegin:
    """`module`'s forward starts (`nn.Module.__call__`, while someone listens): ops recorded
    until its `ModuleEnd` are made by it, or by a module it calls."""

    module: Any


@dataclass(frozen=True)
class ModuleEnd:
    """`module`'s forward has ended (returned or raised)."""

    module: Any


@dataclass(frozen=True)
class SavedFreed:
    """The backward pass that just ended freed what `nodes` saved for backward (it ran
    without retain_graph): a second backward through them raises."""

    nodes: tuple


@dataclass(frozen=True)
class BackwardEnd:
    """The backward pass finished after `steps` nodes and `seconds` seconds."""

    steps: int
    seconds: float


@dataclass(frozen=True)
class TransformBegin:
    """A function transform starts: `jacobian`, `hessian`, `vjp` (autograd.functional) or
    `grad`, `jacrev`, `jacfwd`, `vmap`, ... (minigrad.func). The passes it runs are the
    events a listener sees until its `TransformEnd`."""

    name: str


@dataclass(frozen=True)
class TransformEnd:
    """The transform `name` finished; `notes` say how it worked (its strategy, how many rows
    it computed one pass at a time, what it looped over)."""

    name: str
    notes: dict = field(default_factory=dict)


def listening() -> bool:
    """True when at least one listener is subscribed."""
    return bool(_listeners)


def emit(event: Any) -> None:
    """Hand `event` to every listener, in subscription order."""
    for callback in tuple(_listeners):
        callback(event)


@contextmanager
def listen(callback: Callable[[Any], None]) -> Iterator[Callable[[Any], None]]:
    """Subscribe `callback` to every event while the `with` block runs."""
    _listeners.append(callback)
    try:
        yield callback
    finally:
        _listeners.remove(callback)
