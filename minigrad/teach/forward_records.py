"""The records of forward-mode work and of function transforms: plain data, as `records.py`.

- `TraceTangent`: one op run on dual numbers: its value and, from its inputs' tangents, its
  output's tangent (the op's JVP rule, `tangent` text on its class); for `Trace.to_python()`
  also the inputs the pass did not make itself (their values and tangents as the op got
  them) and the inputs and settings the narration leaves out.
- `TraceForward`: one forward-mode pass: the dual inputs it started from (a value and a
  tangent each) and its `TraceTangent`s in order.
- `TraceTransform`: one function transform that ran (`func.jacrev`, `autograd.functional
  .hessian`, `func.vmap`, ...): how many backward and forward-mode passes ran inside it, what
  it noted about how it worked (its strategy, the rows it computed one at a time, how vmap
  ran), and the transforms it called (`inner`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["TraceForward", "TraceTangent", "TraceTransform"]


@dataclass
class TraceTangent:
    """`label = source` on dual numbers: `value`, and `tangent` from the inputs' `tangents`
    (one per input, None for an input that is not a float tensor) by `rule` (the op's
    `tangent` text: `{t0} * {1} + {0} * {t1}`)."""

    index: int
    name: str  # the op's node name, MulBackward0
    label: str
    source: str
    rule: str | None
    args: list[str] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    shape: tuple | None = None
    value: np.ndarray | None = None
    tangents: list[np.ndarray | None] = field(default_factory=list)
    tangent: np.ndarray | None = None
    # input index -> (value, tangent or None when it had none, changed): the tensors this
    # step read that no earlier step of the pass made as they are now (a dual input, a
    # weight; `changed`: one an in-place op changed after the step that made it)
    taken: dict[int, tuple] = field(default_factory=dict)
    # what the narration leaves out: the inputs that are not tensors (by index: a number, a
    # tuple) and the settings it does not show (by name: a large index array)
    constants: dict[Any, Any] = field(default_factory=dict)


@dataclass
class TraceForward:
    """One forward-mode pass at `level`: its dual `inputs` as (label, value, tangent), then
    its `steps`."""

    level: int
    inputs: list[tuple[str, Any, Any]] = field(default_factory=list)
    steps: list[TraceTangent] = field(default_factory=list)


@dataclass
class TraceTransform:
    """A function transform that ran, with the passes it ran (its inner transforms' too)."""

    name: str
    notes: dict[str, Any] = field(default_factory=dict)
    backward_passes: int = 0
    forward_passes: int = 0
    inner: list[TraceTransform] = field(default_factory=list)
