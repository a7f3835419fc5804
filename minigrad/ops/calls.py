"""Which call made an op, for calls that are no node of their own.

`einsum` and `tensordot` are recorded by PyTorch as their pieces (permute, bmm, view, ...),
and a checkpointed block as its ops or as one node; while someone listens to the engine's
events (a trace), they say here that the ops they run are theirs, so that an explanation can
put a heading over them ("▸ einsum('ij,jk->ik', A, B)") and tell what their backward does. A
checkpoint's recomputation in backward says so too ("recompute"). Nothing is kept when nobody
listens.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from minigrad.autograd import events

__all__: list[str] = []  # (minigrad's own plumbing: nothing for `minigrad.*`)


@dataclass(frozen=True)
class Call:
    """One running call: its `kind` ("einsum", "tensordot", "checkpoint", "recompute"), its
    first argument as text (`'ij,jk->ik'`, a block's name), the tensors it was given, and
    a number of its own (two calls of the same einsum are two headings)."""

    kind: str
    head: str
    inputs: tuple
    number: int
    reentrant: bool = False


CALLS: list[Call] = []  # the calls running now, innermost last
_numbers = itertools.count(1)


@contextlib.contextmanager
def calling(kind: str, head: str, inputs: Any = (), reentrant: bool = False) -> Iterator[None]:
    """Inside, the ops recorded are `kind`'s (only while someone listens)."""
    if not events.listening():
        yield
        return
    CALLS.append(Call(kind, head, tuple(inputs), next(_numbers), reentrant))
    try:
        yield
    finally:
        CALLS.pop()


def innermost() -> Call | None:
    return CALLS[-1] if CALLS else None
