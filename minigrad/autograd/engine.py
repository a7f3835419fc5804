"""The backward pass: which node runs next, and what happens to the gradients it returns.

Read `execute` top to bottom; it is the whole algorithm. (1) Count, for every node reachable
from the roots, how many edges bring it gradient, and put each root's seed gradient into its
buffer (`GraphTask`). (2) Pop the ready node created last (PyTorch's order, ready_queue.py),
run its hooks and its backward, fit each gradient to its input's shape (broadcast.py: the one
place broadcasting is undone) and send it into the next node's buffer; a node whose last
gradient has arrived is ready. (3) An AccumulateGrad adds into its leaf's `.grad`. If anything
fails, every `.grad` is put back. No recursion, so any depth works. `execute` is a generator
of steps: `autograd.backward` drains it, `backward_steps` hands each to the user.
A gradient is a Tensor, or in a pass nobody records or watches a numpy array (gradients.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from numpy import ndarray

from minigrad.autograd import anomaly_mode as anomaly
from minigrad.autograd import broadcast, events, hooks
from minigrad.autograd.events import BackwardBegin, BackwardEnd, BackwardStep
from minigrad.autograd.forward_ad import LEVELS
from minigrad.autograd.grad_mode import state
from minigrad.autograd.gradients import as_tensor, tensors_of, total
from minigrad.autograd.node import AccumulateGrad, Node, gradient_edge, owner_id
from minigrad.autograd.ready_queue import ReadyQueue


def execute(roots: list, seeds: list, retain_graph: bool | None = None,
            create_graph: bool = False, targets: dict | None = None, needed: set | None = None,
            capture: bool = False, yield_steps: bool = False) -> Iterator[BackwardStep]:
    """Run backward from `roots` seeded with `seeds`; return what `targets` received.

    `targets` maps `(node, output_nr)` edges to an index: their gradients are returned in that
    order (`autograd.grad`, with `capture`: nothing accumulates) or only their leaves accumulate
    (`backward(inputs=...)`). `needed`: the nodes on a path to a target (autograd.py)."""
    task = GraphTask(roots, seeds, create_graph, targets or {}, needed, capture)
    listening = yield_steps or events.listening()
    task.arrays = not (create_graph or listening or LEVELS.visible)  # speed: gradients.py
    if listening:
        events.emit(BackwardBegin(tuple(roots), tuple(seeds)))
    caller_mode, state.grad_enabled = state.grad_enabled, create_graph
    try:
        while task.ready:
            node = task.ready.pop()  # the newest ready node: PyTorch's order
            step_start = time.perf_counter() if listening else 0.0
            grads = task.buffers.pop(node)  # one gradient per output
            if node._hooked:  # tensor hooks, retain_grad, pre-hooks
                grads = hooks.before(node, tensors_of(grads), task)
            if task.targets:  # autograd.grad, backward(inputs=...): note what was asked
                task.capture(node, grads)
            summed_dims = [None] * len(node._next_nodes) if listening else None
            if type(node) is AccumulateGrad:
                if task.accumulates(node):
                    node.accumulate(as_tensor(grads[0]), task)  # leaf.grad += gradient
                grad_inputs: list = []
            else:
                grad_inputs = node.call_backward(grads)  # one gradient per input
                if node._post_hooks:  # they see, and may replace, the fitted gradients
                    broadcast.fit_all(node, grad_inputs, summed_dims)
                    grad_inputs = hooks.after(node, tensors_of(grad_inputs), tensors_of(grads))
                for i, g in enumerate(grad_inputs):  # each fitted to its input, and sent on
                    grad_inputs[i] = task.send(node, i, g, summed_dims)
                if state.anomaly_enabled and state.anomaly_check_nan:
                    anomaly.check(node, grad_inputs)  # NaN names the node
            task.executed.append(node)
            if listening:
                step = BackwardStep.of(len(task.executed), node, grads, grad_inputs,
                                       summed_dims, step_start)
                events.emit(step)
                if yield_steps:
                    state.grad_enabled = caller_mode  # the caller's code runs in its mode
                    yield step
                    state.grad_enabled = create_graph
        if listening:  # (inside: a listener that fails here rolls the backward back too)
            events.emit(BackwardEnd(len(task.executed), time.perf_counter() - task.started))
    except BaseException as exc:
        if not isinstance(exc, GeneratorExit):  # (not when a caller stops stepping early)
            task.rollback()
        raise
    finally:
        state.grad_enabled = caller_mode
    if not (create_graph if retain_graph is None else retain_graph):
        freed = tuple(filter(Node.release, task.executed))  # (a 2nd backward then fails)
        if freed and events.listening():  # (a trace's memory view shows what was freed)
            events.emit(events.SavedFreed(freed))
    return task.captured


class GraphTask:
    """One backward pass's bookkeeping: dependency counts, gradient buffers, the ready queue,
    what to capture, and the `.grad`s to put back if the pass fails."""

    def __init__(self, roots: list, seeds: list, create_graph: bool, targets: dict,
                 needed: set | None, capture: bool) -> None:
        self.create_graph, self.targets, self.capture_only = create_graph, targets, capture
        self.captured: list = [None] * len(targets)
        self.journal: dict[int, tuple] = {}  # id(t) -> (t, t.grad before, its values or None)
        self.handed_out = {owner_id(seed.array) for seed in seeds}  # another .grad must copy
        self.executed: list[Node] = []
        self.started = time.perf_counter()
        edges = [gradient_edge(t) for t in roots]
        self.deps = count_dependencies(starts := [node for node, _ in edges], needed)
        self.buffers: dict[Node, list] = {}
        for (node, nr), seed in zip(edges, seeds):
            self.add(node, nr, seed)
        self.ready = ReadyQueue()
        for node in dict.fromkeys(starts):
            if self.deps.get(node, 0) == 0:
                self.ready.push(node)

    def add(self, node: Node, nr: int, grad: Any) -> None:
        """Sum gradients arriving at output `nr` of `node` from several paths."""
        buf = self.buffers.setdefault(node, [])
        if nr >= len(buf):
            buf.extend([None] * (nr + 1 - len(buf)))
        buf[nr] = grad if buf[nr] is None else total(buf[nr], grad)

    def send(self, node: Node, i: int, grad: Any, summed_dims: list | None) -> Any:
        """Fit gradient `i` of `node` to its input (broadcast.py) and add it to the next
        node's buffer, queued once complete; return it (None for an input that needs none)."""
        nxt, nr = node._next_nodes[i], node._next_nrs[i]
        if nxt is None:
            return None
        if grad is not None:  # (an array of its input's shape, the usual case, needs no fit)
            if not (type(grad) is ndarray and nr == 0 and grad.shape == nxt._shape):
                grad = broadcast.fit(node, i, grad, nxt, nr, summed_dims)
            grad = grad if self.arrays else as_tensor(grad)  # (gradients.py)
        waiting = self.deps.get(nxt)
        if waiting is None:  # a branch that autograd.grad does not need
            return grad
        self.deps[nxt] = waiting = waiting - 1
        if grad is not None and nr == 0 and nxt not in self.buffers:  # (the first, usually)
            self.buffers[nxt] = [grad]
        elif grad is not None:
            self.add(nxt, nr, grad)
        if not waiting:
            if nxt in self.buffers:
                self.ready.push(nxt)
            else:
                self.skip_branch(nxt)
        return grad

    def skip_branch(self, node: Node) -> None:
        """A node whose every incoming gradient was None: its branch gets nothing, but the
        counts below still go down (a node also fed from elsewhere must not wait forever)."""
        stack = [node]
        while stack:
            for nxt in stack.pop()._next_nodes:
                if nxt is None or nxt not in self.deps:
                    continue
                self.deps[nxt] -= 1
                if self.deps[nxt] == 0:
                    if nxt in self.buffers:
                        self.ready.push(nxt)
                    else:
                        stack.append(nxt)

    def capture(self, node: Node, grads: list) -> None:
        for nr, g in enumerate(grads):
            if (node, nr) in self.targets:
                self.captured[self.targets[node, nr]] = as_tensor(g)

    def accumulates(self, node: AccumulateGrad) -> bool:
        """autograd.grad accumulates nothing; backward(inputs=...) only the leaves named."""
        return not self.capture_only and (not self.targets or (node, 0) in self.targets)

    def set_grad(self, tensor: Any, grad: Any, shared: Any = None, values: Any = None) -> None:
        """`tensor.grad = grad`, the one way a backward pass changes a `.grad`. The old one is
        noted first, with `values`, its values before the pass added into it in place (`grad`
        is then the same tensor): `rollback` puts them back if the pass fails. `shared`: memory
        the new `.grad` may share with others, noted as handed out (a later `.grad` copies)."""
        self.journal.setdefault(id(tensor), (tensor, tensor._grad, values))
        if shared is not None:
            self.handed_out.add(owner_id(shared))
        tensor._grad = grad

    def rollback(self) -> None:
        for tensor, old, values in self.journal.values():  # every .grad as it was before
            if values is not None:
                old.array[...] = values
            tensor._grad = old


def count_dependencies(starts: list[Node], needed: set | None = None) -> dict[Node, int]:
    """How many edges bring gradient into each node reachable from `starts` (in `needed`)."""
    deps: dict[Node, int] = {}
    stack = list(dict.fromkeys(starts))
    first = set(stack)  # already on the stack: a start that is also reached is not pushed again
    while stack:
        for nxt in stack.pop()._next_nodes:
            if nxt is None or needed is not None and nxt not in needed:
                continue
            n = deps[nxt] = deps.get(nxt, 0) + 1
            if n == 1 and nxt not in first:  # reached for the first time: walk on
                stack.append(nxt)
    return deps
