"""`trace.focus("layer3")`: the part of a Trace that one module (or several) made.

The result is a Trace of its own (explain it, draw it, play it): the nodes of those modules
and their parameters, with the backward steps that ran them, under their original step
numbers. At the boundary:
- each tensor that came in from outside becomes a leaf of the focused Trace, labelled as
  before (`t45`); its `.grad` is the gradient the part sent back to it;
- each tensor the part gave to the outside becomes a root of its backward pass, seeded with
  the gradient it received from the outside.
Works from the records alone (`module_tree`).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from minigrad.teach.module_tree import ModuleTree
from minigrad.teach.records import TraceBackward, TraceLeaf


def focus(trace: Any, modules: str | list[str]) -> Any:
    """A Trace restricted to `modules` (paths such as "layer3" or ["layer3", "fc"])."""
    wanted = [modules] if isinstance(modules, str) else list(modules)
    tree = ModuleTree(trace)
    for path in wanted:
        if path not in tree.paths and not any(tree.inside(p, path) for p in tree.paths):
            shown = ", ".join(repr(p) for p in tree.paths if p)[:300]
            raise ValueError(f"focus(): no module {path!r} in this trace; its modules: {shown}")
    inside = {n.id for n in trace.nodes
              if any(tree.inside(tree.module_of[n.id], p) for p in wanted)}
    if not inside:
        raise ValueError(f"focus(): modules {wanted} made no node of this trace")
    boundary = [i for n in trace.nodes if n.id in inside for i in n.inputs
                if i is not None and i not in inside]
    boundary = list(dict.fromkeys(boundary))
    sent = _sent_back(trace, inside, set(boundary))
    nodes, leaves = [], []
    for n in trace.nodes:
        if n.id in boundary and not n.is_leaf:
            nodes.append(_as_input(n))
            leaves.append(TraceLeaf(n.label, n.id, tuple(n.shape or ()), n.value,
                                    sent.get(n.id)))
        elif n.id in inside or n.id in boundary:
            nodes.append(copy.copy(n))
    by_node = {leaf.node: leaf for leaf in trace.leaves}
    leaves += [copy.copy(by_node[n.id]) for n in nodes if n.id in by_node]
    order = {n.id: k for k, n in enumerate(nodes)}
    leaves.sort(key=lambda leaf: order[leaf.node])
    backwards = [_backward(trace, b, inside) for b in trace.backwards]
    kept = [m for m in trace.modules.values() if any(tree.inside(m.path, p) for p in wanted)]
    made = type(trace).from_records(nodes, leaves, [b for b in backwards if b.steps],
                                    engine=trace.engine, modules=[copy.copy(m) for m in kept])
    made.focused = wanted
    return made


def _as_input(node: Any) -> Any:
    """A tensor from outside the part, as a leaf of the focused Trace."""
    made = copy.copy(node)
    made.name, made.inputs, made.args, made.saved = "AccumulateGrad", [], [], []
    made.constants, made.memory = {}, []  # (what the op outside kept is not the part's)
    made.attrs = {"boundary": "input"}
    made.formula, made.source, made.module = "", "", ""
    return made


def _sent_back(trace: Any, inside: set[str], boundary: set[str]) -> dict[str, Any]:
    """Boundary node id -> the sum of the gradients the part sent back to it."""
    sent: dict[str, Any] = {}
    for step in trace.steps:
        if step.node not in inside:
            continue
        node = trace.node(step.node)
        for src, g in zip(node.inputs, step.grad_inputs):
            if src in boundary and g is not None:
                sent[src] = g if src not in sent else np.asarray(sent[src]) + g
    return sent


def _backward(trace: Any, backward: Any, inside: set[str]) -> TraceBackward:
    """The steps of one pass that ran inside the part, from the tensors it gave out."""
    steps = [copy.copy(s) for s in backward.steps if s.node in inside]
    roots = set(backward.roots)
    used_outside = {i for n in trace.nodes if n.id not in inside for i in n.inputs}
    outputs = [s for s in steps if s.node in roots or s.node in used_outside]
    if not outputs and steps:
        outputs = steps[:1]
    return TraceBackward([s.node for s in outputs],
                         [s.grad_outputs[0] if s.grad_outputs else None for s in outputs],
                         steps, sum(s.seconds for s in steps))

