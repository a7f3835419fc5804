"""Op-table entries for the differentiable tools around the layers: activation checkpointing
(`utils.checkpoint`, the non-reentrant variant, the one that `autograd.grad` and a double
backward run through) (see op_table.py). Each runs as `call(lib, *tensors)` with `lib` minigrad
or torch."""

from __future__ import annotations

from collections.abc import Callable

import minigrad
import minigrad.utils.checkpoint
from minigrad.testing.op_spec import OpSpec


def _both(name: str, call: Callable, node: str, source: str, shapes: str = "any",
          arity: int = 1) -> OpSpec:
    """An entry whose `call(lib, *tensors)` runs on minigrad and, as `lib`, on torch."""
    return OpSpec(name, lambda *t: call(minigrad, *t), node, source, arity=arity,
                  torch_fn=lambda torch, *t: call(torch, *t), shapes=shapes,
                  in_expressions=False)


def _checkpointed(lib, x, w):
    import importlib

    cp = importlib.import_module(f"{lib.__name__}.utils.checkpoint")
    return cp.checkpoint(lambda a, b: (a.tanh() * b).sin(), x, w, use_reentrant=False)


NN_UTILS: list[OpSpec] = [
    _both("checkpoint", _checkpointed, "SinBackward0",
          "checkpoint(lambda a, b: (a.tanh() * b).sin(), {0}, {1}, use_reentrant=False)",
          shapes="broadcast", arity=2),
]
