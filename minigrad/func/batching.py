"""vmap's first try: f run once on the whole batch through the batching rules (batched.py).

`attempt` wraps each batched argument in a `Batched` (its batch dim moved to the front),
calls f, and says whether that worked. It gives up, leaving no trace, when f reaches
anything without a rule (`NoBatchingRule`), or draws random numbers that must differ per
sample (`randomness="different"`); vmap then runs f per sample.
"""

from __future__ import annotations

import os
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
    """One vmap call's batch: its size (the Batched tensors it made point at it), and whether
    that call is still running (a Batched kept past it has escaped: batched.ESCAPED)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.active = True


@dataclass
class Outcome:
    """`done`: f ran batched and `outputs` is its one (batched) result; else `because` names
    what had no batching rule and `kind` what sort of thing it was ("rule": an op;
    "backward", "forward": a transform's pass; "random": random numbers per sample)."""

    done: bool
    outputs: list = field(default_factory=list)
    because: str = ""
    kind: str = "rule"
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
        level.active = False
        return Outcome(False, because=describe(missing), kind=missing.kind)
    if rng.state != start and randomness != "same":  # ("same": drawn once, for all)
        rng.state = start  # (the numbers drawn are given back)
        level.active = False
        if randomness == "error":
            raise RuntimeError(RANDOM_IN_ERROR_MODE)
        return Outcome(False, kind="random")
    return Outcome(True, outputs=[out], level=level)


PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # minigrad/
OWN = os.path.join(PACKAGE, "func")
GENERIC = {"function", "__call__", "forward", "apply", "wrapper", "wrapped", "run", "<lambda>",
           "reduction"}
# (what the narration says in words: teach/forward_phrases.py's "spoken")
SPOKEN = {"__bool__": "if", "__iter__": "iter", "__repr__": "print"}


def describe(missing: NoBatchingRule) -> str:
    """What f called that has no batching rule, by its public name: the outermost minigrad
    function f called (`linear`, not the `_record` deep inside it that gave up)."""
    if missing.named:
        return missing.op
    names = []
    tb = missing.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        inside = code.co_filename.startswith(PACKAGE) and not code.co_filename.startswith(OWN)
        if inside:
            name = code.co_name
            if name in GENERIC:  # (an op made by a factory: its name or its Function's)
                found = tb.tb_frame.f_locals
                name = found["name"] if isinstance(found.get("name"), str) else getattr(
                    found.get("op"), "__name__", name).lower()
            names.append(name)
        tb = tb.tb_next
    public = [n for n in names if n not in GENERIC and not n.startswith("_")] or names
    name = public[0] if public else missing.op
    return SPOKEN.get(name, SPOKEN.get(missing.op, name))
