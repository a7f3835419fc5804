"""`minigrad.autograd`: backward(), grad(), backward_steps(), anomaly mode, Variable; the
graph's Node and the saved-tensor hooks in `minigrad.autograd.graph`.

The names a PyTorch user reaches for under `torch.autograd`, so code written for PyTorch
(including old blog posts' `Variable`) runs unchanged. Here the roots are checked and their
seed gradients made, and `grad()`'s graph pruned to what leads to its inputs; the pass itself
is `engine.execute`.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from minigrad.autograd import engine, forward_ad, graph
from minigrad.autograd import tensor as _tensor
from minigrad.autograd.collector import collector_paused
from minigrad.autograd.events import BackwardStep
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad, no_grad, set_grad_enabled, state
from minigrad.autograd.node import Node, gradient_edge
from minigrad.autograd.variable import Variable
from minigrad.surface import dtypes

__all__ = ["Function", "Variable", "backward", "backward_steps", "detect_anomaly", "grad",
           "enable_grad", "no_grad", "set_detect_anomaly", "set_grad_enabled",
           "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "graph"]

NO_GRAD_MESSAGE = "element {} of tensors does not require grad and does not have a grad_fn"
# one entry per running backward()/grad(), innermost last: was it told its `inputs`?
_TARGETED: list[bool] = []


def is_checkpoint_valid() -> bool:
    """False inside a backward that was given its inputs (`grad()`, `backward(inputs=...)`),
    where a reentrant checkpoint cannot run (PyTorch's `torch.autograd._is_checkpoint_valid`).
    """
    return not _TARGETED or not _TARGETED[-1]


_is_checkpoint_valid = is_checkpoint_valid


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate d(tensors)/d(leaf) into every leaf's `.grad` (PyTorch's autograd.backward)."""
    roots, seeds = prepare_roots(tensors, grad_tensors)
    targets = needed = None
    if inputs is not None:
        only = [inputs] if isinstance(inputs, _tensor.Tensor) else list(inputs)
        if not only:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        if not all(t._requires_grad for t in only):  # (checked for all before any changes)
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        for t in only:  # a non-leaf input keeps its gradient in .grad, as in PyTorch
            t.retain_grad()
        targets, needed = _prune(roots, only)
    _TARGETED.append(targets is not None)
    try:
        drain(engine.execute(roots, seeds, retain_graph, create_graph, targets, needed))
    finally:
        _TARGETED.pop()


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """d(outputs)/d(inputs), returned instead of accumulated into `.grad`.

    `is_grads_batched`: the first dim of each grad_output is a batch of vectors, and each
    gradient comes back with that dim first (PyTorch computes them with vmap; minigrad runs
    one backward per vector, keeping the graph for the next)."""
    Tensor = _tensor.Tensor
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if is_grads_batched:
        return batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                            allow_unused, materialize_grads)
    roots, seeds = prepare_roots(outputs, grad_outputs)  # (the outputs are checked first)
    if not all(t._requires_grad for t in inputs):
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    targets, needed = _prune(roots, inputs)
    _TARGETED.append(True)
    try:
        captured = drain(engine.execute(roots, seeds, retain_graph, create_graph, targets,
                                        needed, capture=True))
    finally:
        _TARGETED.pop()
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                g = Tensor._make(t.array * 0, None, 0)
            elif not allow_unused:
                raise RuntimeError(UNUSED.format(i))
        elif not create_graph:
            g = forward_ad.detached(g)
        result.append(g)
    return tuple(result)


UNUSED = ("The differentiated Tensor at index {} appears to not have been used in the graph. "
          "Set allow_unused=True if this is the desired behavior.")


def _tensors_or_none(grads: list) -> None:
    for g in grads:
        if g is not None and not isinstance(g, _tensor.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")


def batched_grad(outputs: Any, inputs: list, grad_outputs: Any, retain_graph: bool | None,
                 create_graph: bool, allow_unused: bool | None, materialize_grads: bool
                 ) -> tuple:
    """`grad(..., is_grads_batched=True)`: one backward per vector of the batch, then each
    input's gradients stacked (a gradient that needs a graph is written into its row, so
    create_graph keeps it)."""
    Tensor = _tensor.Tensor
    roots = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    batches = grad_outputs if grad_outputs is not None else [None] * len(roots)
    batches = [batches] if isinstance(batches, Tensor) else list(batches)
    sizes = []
    _tensors_or_none(batches)
    for i, (root, g) in enumerate(zip(roots, batches)):
        if g is None or g.array.ndim == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, "
                             "but that input is a Tensor of dimensionality 0 so expected in_dim "
                             "to satisfy 0 <= in_dim < 0.")
        if g.array.shape[1:] != root.array.shape:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of minigrad.Size("
                f"{list(g.array.shape[2:])}) and output[{i}] has a shape of minigrad.Size("
                f"{list(root.array.shape)}). If you only want some tensors in `grad_output` to "
                "be considered batched, consider using vmap.")
        sizes.append(g.array.shape[0])
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    if sizes[0] == 0:
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    keep = create_graph if retain_graph is None else retain_graph
    rows = [grad(roots, inputs, [g[b] for g in batches], retain_graph=b < sizes[0] - 1 or keep,
                 create_graph=create_graph, allow_unused=True) for b in range(sizes[0])]
    result = []
    for k, t in enumerate(inputs):
        column = [row[k] for row in rows]
        if column[0] is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError(UNUSED.format(k))
            result.append(Tensor._make(np.zeros_like(t.array), None, 0)
                          if materialize_grads else None)  # (no batch dim, as PyTorch's)
            continue
        stacked = column[0].new_zeros((sizes[0], *t.array.shape))
        for b, g in enumerate(column):
            stacked[b] = g
        result.append(stacked)
    return tuple(result)


def backward_steps(tensor: Any, gradient: Any = None, retain_graph: bool | None = None
                   ) -> Iterator[BackwardStep]:
    """The backward pass of `tensor`, one `BackwardStep` at a time.

    Each step has already been applied when you receive it (gradients passed on, `.grad`
    accumulated), so you can stop, look at partial gradients, and go on.
    """
    roots, seeds = prepare_roots(tensor, gradient)
    return engine.execute(roots, seeds, retain_graph=retain_graph, yield_steps=True)


def drain(steps: Iterator[BackwardStep]) -> Any:
    """Run an `execute` generator to the end; return what it returned (captured grads).

    The cycle collector is paused meanwhile (collector.py): a backward pass makes no garbage
    cycles of its own, and in a long graph a full collection walks every node to free nothing.
    (`backward_steps` hands each step to your code: there it stays on.)"""
    with collector_paused():
        try:
            while True:
                next(steps)
        except StopIteration as stop:
            return stop.value


def prepare_roots(tensors: Any, grad_tensors: Any) -> tuple[list, list]:
    """Check the roots and their seed gradients; make the implicit `1` for scalars."""
    Tensor = _tensor.Tensor
    roots = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if grad_tensors is None:
        grads: list = [None] * len(roots)
    elif isinstance(grad_tensors, Tensor):
        grads = [grad_tensors]
    else:
        grads = list(grad_tensors)
    _tensors_or_none(grads)
    if len(grads) != len(roots):
        raise RuntimeError(f"grad_tensors should have the same length as tensors: got "
                           f"{len(grads)} gradients for {len(roots)} tensors")
    seeds = []
    for i, (root, grad) in enumerate(zip(roots, grads)):
        if not root._requires_grad:
            raise RuntimeError(NO_GRAD_MESSAGE.format(i))
        if grad is None:
            if root.array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grad = _tensor.make(np.ones_like(root.array), None, 0)  # (a meta root's: meta)
        else:
            if grad.array.shape != root.array.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"minigrad.Size({list(grad.array.shape)}) and output[{i}] has a shape of "
                    f"minigrad.Size({list(root.array.shape)}).")
        seeds.append(grad)
    return roots, seeds


def _prune(roots: list, tensors: list) -> tuple[dict, set]:
    """The edges into `tensors` (numbered in order) and the nodes on a path to one of them."""
    targets = {gradient_edge(t): i for i, t in enumerate(tensors)}
    starts = [gradient_edge(t)[0] for t in roots]
    needed = nodes_leading_to(starts, {node for node, _ in targets})
    needed.update(starts)
    return targets, needed


def nodes_leading_to(starts: list[Node], targets: set[Node]) -> set[Node]:
    """The nodes on some path from `starts` to a target (what autograd.grad must run)."""
    needed: set[Node] = set()
    done: set[Node] = set()
    stack = [(n, False) for n in set(starts)]
    while stack:  # iterative post-order: a node is decided after all its children
        node, children_done = stack.pop()
        if children_done:
            if node in targets or any(n in needed for n in node._next_nodes):
                needed.add(node)
            done.add(node)
            continue
        if node in done:
            continue
        stack.append((node, True))
        stack.extend((n, False) for n in node._next_nodes
                     if n is not None and n not in done)
    return needed


class set_detect_anomaly:
    """Turn anomaly mode on or off, and its NaN check (a call or a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.anomaly_enabled, state.anomaly_check_nan
        state.anomaly_enabled, state.anomaly_check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        state.anomaly_enabled, state.anomaly_check_nan = self.prev


class detect_anomaly:
    """Inside, each node remembers the forward line that created it, and a backward step
    that produces NaN raises naming the node and printing that line (`check_nan=False`: the
    lines are still kept and printed when a backward raises, but NaN passes)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = bool(check_nan)

    def __enter__(self) -> None:
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)
        self.prev = state.anomaly_enabled, state.anomaly_check_nan
        state.anomaly_enabled, state.anomaly_check_nan = True, self.check_nan

    def __exit__(self, *exc: Any) -> None:
        state.anomaly_enabled, state.anomaly_check_nan = self.prev


def is_anomaly_enabled() -> bool:
    return state.anomaly_enabled


def is_anomaly_check_nan_enabled() -> bool:
    return state.anomaly_check_nan



def __getattr__(name: str) -> Any:
    """`minigrad.autograd.functional`, a library on the engine, is imported when first used
    (as PyTorch's `torch.autograd.functional` is reached from `import torch`)."""
    if name == "functional":
        return importlib.import_module("minigrad.autograd.functional")
    raise AttributeError(f"module 'minigrad.autograd' has no attribute '{name}'")
