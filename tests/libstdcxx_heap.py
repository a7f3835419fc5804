"""libstdc++'s push_heap/pop_heap written out in Python, step by step: the reference that
minigrad's ready queue (minigrad/autograd/ready_queue.py, built on heapq) is tested against.

PyTorch keeps ready nodes in a `std::priority_queue` ordered by sequence number; nodes with
equal numbers (several AccumulateGrads) come out in whatever order this algorithm leaves them.
"""

from __future__ import annotations

from typing import Any


def _before(a: Any, b: Any) -> bool:
    """The heap's `less`: a's sequence number is smaller than b's."""
    return a._sequence_nr < b._sequence_nr


class ReadyQueue:
    """A max-heap of nodes by `_sequence_nr` (std::priority_queue with `_before` as less)."""

    def __init__(self) -> None:
        self.heap: list = []

    def push(self, node: Any) -> None:
        heap = self.heap
        heap.append(node)
        if len(heap) > 1:
            self._sift_up(len(heap) - 1, 0, node)

    def pop(self) -> Any:
        heap = self.heap
        last = heap.pop()
        if not heap:
            return last
        top = heap[0]  # pop_heap: the old last element is re-placed from the root down
        self._adjust(0, len(heap), last)
        return top

    def _sift_up(self, hole: int, top: int, value: Any) -> None:
        heap = self.heap
        parent = (hole - 1) // 2
        while hole > top and _before(heap[parent], value):
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = value

    def _adjust(self, hole: int, length: int, value: Any) -> None:
        heap = self.heap
        top = child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if _before(heap[child], heap[child - 1]):
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        self._sift_up(hole, top, value)
