"""The engine's ready queue: which ready node runs next, in exactly PyTorch's order.

PyTorch keeps ready nodes in a `std::priority_queue` ordered by sequence number: the node
created last runs first, and AccumulateGrad nodes have the largest number, so a leaf's
gradient is accumulated as soon as it is complete. Nodes with equal numbers (several
AccumulateGrads) come out in whatever order the C++ heap algorithm leaves them.

Python's `heapq` is the same algorithm as libstdc++'s push_heap/pop_heap (a pop moves the hole
down to a leaf, always to the child that is not smaller, then sifts the last element up), so
with the same comparisons it leaves ties in the same order. heapq keeps the smallest first:
an entry is `(-sequence_nr, node)`, and nodes themselves never compare as smaller (see
`Node.__lt__`), so equal numbers tie exactly as in C++. (tests/core/test_ready_queue.py checks the
order against a line-by-line port of the C++ code.)
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Any


class ReadyQueue(list):
    """A max-heap of nodes by `_sequence_nr`, with libstdc++'s tie behaviour: the list holds
    `(-sequence_nr, node)` entries. (A list itself, so that `while queue:` costs no call.)"""

    __slots__ = ()

    def push(self, node: Any) -> None:
        heappush(self, (-node._sequence_nr, node))

    def pop(self) -> Any:  # type: ignore[override]
        return heappop(self)[1]
