"""How a corpus case is written: a named expression and how to draw its inputs (`Case`), and
the draws (`normal`, `positive`, ...). The cases themselves are in corpus.py and the
corpus_*.py files beside it.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compare.report import Report
from compare.torch_bridge import constant

# ------------------------------------------------------------------ how inputs are drawn
Draw = Callable[[np.random.Generator], Any]


def normal(*shape: int) -> Draw:
    return lambda rng: rng.standard_normal(shape)


def positive(*shape: int) -> Draw:
    """In [0.5, 2]: safe for log, sqrt, division, fractional powers."""
    return lambda rng: rng.uniform(0.5, 2.0, shape)


def nonzero(*shape: int) -> Draw:
    """|value| in [0.3, 2], either sign: away from the kinks of relu/abs and poles of 1/x."""
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)


def distinct(*shape: int) -> Draw:
    """Well-separated values (no ties) for max/min: a shuffled ramp."""
    n = int(np.prod(shape))
    return lambda rng: (rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def probs(*shape: int) -> Draw:
    """In [0.05, 0.95]: targets and inputs of binary cross entropy."""
    return lambda rng: rng.uniform(0.05, 0.95, shape)


def labels(n: int, classes: int) -> Draw:
    return lambda rng: rng.integers(0, classes, n)


def fixed(draw: Draw) -> Draw:
    """The same values, as data that requires no grad (targets)."""
    return lambda rng: constant(draw(rng))


# ------------------------------------------------------------------ cases
@dataclass(frozen=True)
class Case:
    """One named expression and its inputs."""

    name: str
    fn: Callable | str
    inputs: dict[str, Draw]
    torch_fn: Callable | str | None = None
    tags: tuple[str, ...] = field(default=())

    def arrays(self) -> dict[str, Any]:
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return {k: draw(rng) for k, draw in self.inputs.items()}

    def run(self, **kwargs: Any) -> Report:
        """`against_torch` on this case (random fixed gradient for non-scalar outputs)."""
        from compare.against import against_torch

        kwargs.setdefault("gradient", "random")
        return against_torch(self.fn, torch_fn=self.torch_fn, name=self.name, **kwargs,
                             **self.arrays())


def cases(tag: str, inputs: dict[str, Draw], items: list[tuple]) -> list[Case]:
    out = []
    for item in items:
        name, fn, *more = item
        out.append(Case(name, fn, more[0] if more else inputs, tags=(tag,)))
    return out
