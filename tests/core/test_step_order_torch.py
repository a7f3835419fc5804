"""minigrad runs backward steps in the same order as PyTorch (see autograd/ready_queue.py)."""

import numpy as np
import pytest

import minigrad
from minigrad.autograd import events

EXPRESSIONS = {
    "classic": lambda a, b, c, d, m: (a * b).sum() * 3,
    "three leaves in one cat": lambda a, b, c, d, m: m.cat([a, b, c]).sum(),
    "four leaves in one stack": lambda a, b, c, d, m: (m.stack([a, b, c, d]) * 2).sum(),
    "sum of products": lambda a, b, c, d, m: (a * b + c * d).sum(),
    "shared leaf": lambda a, b, c, d, m: (a * a + a.exp() * b).sum(),
    "diamond": lambda a, b, c, d, m: ((a + b).tanh() * (a - c).sigmoid() * d).mean(),
    "chain of leaves": lambda a, b, c, d, m: ((((a * b) + c) * d) + a).sum(),
}


def label_of(node, leaves):
    if hasattr(node, "variable"):
        return f"AccumulateGrad[{next(i for i, t in enumerate(leaves) if t is node.variable)}]"
    return node.name()


def torch_order(torch, fn, values):
    leaves = [torch.tensor(v, requires_grad=True) for v in values]
    out = fn(*leaves, torch)
    order, seen, stack = [], set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        label = label_of(node, leaves)
        node.register_prehook(lambda grads, label=label: order.append(label))
        stack.extend(n for n, _ in node.next_functions)
    out.backward()
    return order


def minigrad_order(fn, values):
    leaves = [minigrad.tensor(v, requires_grad=True) for v in values]
    out = fn(*leaves, minigrad)
    order = []

    def record(event):
        if isinstance(event, events.BackwardStep):
            order.append(label_of(event.node, leaves))

    with events.listen(record):
        out.backward()
    return order


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_same_step_order_as_pytorch(name, torch_mod):
    rng = np.random.default_rng(0)
    values = [rng.uniform(0.5, 1.5, 3) for _ in range(4)]
    fn = EXPRESSIONS[name]
    assert minigrad_order(fn, values) == torch_order(torch_mod, fn, values)
