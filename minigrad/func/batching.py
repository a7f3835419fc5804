"""vmap's first try: f run once on the whole batch through the batching rules (batched.py).

`attempt` wraps each batched argument in a `Batched` (its batch dim moved to the front),
calls f, and says whether that worked. It gives up, leaving no trace, when f reaches
anything without a rule (`NoBatchingRule`), or draws random numbers that must differ per
sample (`randomness="different"`); vmap then runs f per sample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from minigrad.func import pytree
from minigrad.func.batched import Batched, NoBatchingRule
from minigrad.surface import factories

RANDOM_IN_ERROR_MODE = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap")


class BatchLevel:
    """One vmap call's batch: its size (the Batched tensors it made point at it)."""

    def __init__(self, size: int) -> None:
        self.size = size


@dataclass
class Outcome:
    """`done`: f ran batched and `outputs` is its one (batched) result; else `reason` says
    what had no batching rule."""

    done: bool
    outputs: list = field(default_factory=list)
    reason: str = ""
    level: Any = None


def attempt(func: Callable, flat_args: list, flat_in_dims: list, spec: Any, kwargs: dict,
            size: int, randomness: str) -> Outcome:
    """Run f once on the whole batch, or say why not."""
    level = BatchLevel(size)
    rng = factories.generator().bit_generator
    start = rng.state
    args = [a if d is None else Batched(a.movedim(d, 0), level)
            for a, d in zip(flat_args, flat_in_dims)]
    try:
        out = func(*pytree.unflatten(args, spec), **kwargs)
    except NoBatchingRule as missing:
        rng.state = start
        return Outcome(False, reason=f"no batching rule for {missing.op}")
    if rng.state != start and randomness != "same":  # ("same": drawn once, for all)
        rng.state = start  # (the numbers drawn are given back)
        if randomness == "error":
            raise RuntimeError(RANDOM_IN_ERROR_MODE)
        return Outcome(False, reason="random numbers must differ per sample")
    return Outcome(True, outputs=[out], level=level)

