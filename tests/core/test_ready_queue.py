"""The ready queue pops nodes in exactly the order of libstdc++'s heap (PyTorch's
std::priority_queue), ties included: checked against a line-by-line port of push_heap and
pop_heap (tests/libstdcxx_heap.py) on random sequences of pushes and pops."""

import random

from libstdcxx_heap import ReadyQueue as LibstdcxxQueue
from minigrad import tensor
from minigrad.autograd.node import AccumulateGrad, Node
from minigrad.autograd.ready_queue import ReadyQueue


def make_nodes(rng, n):
    nodes = []
    for i in range(n):
        if rng.random() < 0.4:  # accumulations: all tie at the largest sequence number
            node = AccumulateGrad(tensor(0.0, requires_grad=True))
        else:
            node = Node()
            node._sequence_nr = rng.randrange(8)  # small range: many ties among plain nodes too
        node.label = i
        nodes.append(node)
    return nodes


def test_same_order_as_libstdcxx_on_random_pushes_and_pops():
    rng = random.Random(0)
    for _ in range(300):
        nodes = make_nodes(rng, rng.randrange(1, 40))
        ours, reference = ReadyQueue(), LibstdcxxQueue()
        popped, expected = [], []
        for node in nodes:
            ours.push(node)
            reference.push(node)
            while rng.random() < 0.3 and reference.heap:
                popped.append(ours.pop().label)
                expected.append(reference.pop().label)
        while reference.heap:
            popped.append(ours.pop().label)
            expected.append(reference.pop().label)
        assert popped == expected
        assert not ours
