"""Drawing a Trace at module depth k (`Trace.to_dot(depth=k)`): the boxes of `module_view`
in graphviz, each open module a cluster around its boxes, edges between boxes labelled
with the tensor's shape and the norm of the gradient that went back along them.
"""

from __future__ import annotations

from typing import Any

from minigrad.teach import drawing_parts as parts
from minigrad.teach.module_tree import norm
from minigrad.teach.module_view import Box, ModuleView, module_view


def draw_modules(dot: Any, trace: Any, depth: int, collapse: bool, words: dict[str, str],
                 show_grads: bool = True) -> ModuleView:
    """Fill `dot` with the module view of `trace` at `depth`; return the view."""
    if depth < 1:
        raise ValueError(f"to_dot(depth=...): depth counts modules from the model's children "
                         f"(1, 2, ...), not {depth}")
    view = module_view(trace, depth, collapse)
    steps = trace.step_numbers()
    drawn: dict[str, Any] = {}  # what is drawn at the top level or in a cluster
    for box in view.boxes.values():
        drawn[box.id] = (box.id, _box_label(box, words), dict(fillcolor=parts.COLORS["module"],
                                                               tooltip=" ".join(box.paths)))
    for node_id, where in view.place.items():
        if where == node_id:
            drawn[node_id] = (node_id, *_loose(trace, trace.node(node_id), steps, words))
    _clusters(dot, view, drawn)
    _edges(dot, trace, view, show_grads, words)
    return view


def _box_label(box: Box, words: dict[str, str]) -> str:
    head = f"{box.title}  {box.type}".rstrip()
    if box.repeat > 1:
        head += f"  x {box.repeat}"
    lines = [head]
    lines.append(words["params"].format(n=f"{box.params:,}") if box.params else
                 words["no_params"])
    outs = ", ".join(parts.shape_text(s) for s in box.outputs) or "?"
    if box.inputs:
        lines.append(words["in_out"].format(a=", ".join(parts.shape_text(s) for s in box.inputs),
                                            b=outs))
    else:
        lines.append(words["out"].format(b=outs))
    if box.grad_norm is not None:
        lines.append(words["grad_norm"].format(v=f"{box.grad_norm:.3g}"))
    if box.calls > 1:
        lines.append(words["calls"].format(n=box.calls))
    if box.steps:
        first, last = box.steps[0], box.steps[-1]
        span = str(first) if first == last else f"{first}–{last}"
        lines.append(words["steps" if first != last else "step"].format(i=span))
    return parts.fit(lines)


def _loose(trace: Any, node: Any, steps: dict, words: dict[str, str]) -> tuple[str, dict]:
    """A node outside every box: an input, or an op of an open module or of no module."""
    numbers = steps.get(node.id, [])
    when = [words["steps" if len(numbers) > 1 else "step"].format(
        i=", ".join(map(str, numbers)))] if numbers else []
    if node.is_leaf:
        leaf = next((x for x in trace.leaves if x.node == node.id), None)
        lines = [node.label, parts.shape_text(node.shape)]
        if leaf is not None and leaf.grad is not None:
            lines.append(f"{words['grad']} " + parts.compact(leaf.grad))
        return parts.fit(lines + when), dict(fillcolor=parts.COLORS["leaf"])
    return parts.fit([node.name, f"{node.label} = {node.source}"] + when), dict(
        fillcolor=parts.COLORS["op"], tooltip=parts.fit([node.line or node.source]))


def _clusters(dot: Any, view: ModuleView, drawn: dict[str, Any]) -> None:
    """Each open module as a cluster (nested as the modules are); the rest at the top."""
    tree = view.tree

    def enclosing(path: str) -> str | None:
        at = tree.parent.get(path)
        while at and at not in view.clusters:
            at = tree.parent.get(at)
        return at or None

    inner: dict[str | None, list[str]] = {}
    for path in view.clusters:
        inner.setdefault(enclosing(path), []).append(path)

    def fill(graph: Any, path: str | None) -> None:
        items = view.clusters.get(path, []) if path else [
            i for i in drawn if i not in view.cluster_of]
        for item in items:
            name, label, attrs = drawn[item]
            graph.node(name, label, **attrs)
        for sub in inner.get(path, []):
            with graph.subgraph(name=f"cluster_{sub.replace('.', '_')}") as c:
                kind = tree.type_of(sub)
                c.attr(label=f"{sub}  {kind}".rstrip(), style="rounded,dashed",
                       fontname="monospace", fontsize="10", labeljust="l",
                       labelloc="b" if dot.graph_attr.get("rankdir") == "BT" else "t")
                # (a graph drawn bottom to top puts "b" at the top)
                fill(c, sub)

    fill(dot, None)


def _edges(dot: Any, trace: Any, view: ModuleView, show_grads: bool,
           words: dict[str, str]) -> None:
    """One edge per pair of drawn things that a tensor went between (self-loops of a module
    called many times are left out: its box says how many calls)."""
    grads: dict[tuple[str, str], list] = {}
    shapes: dict[tuple[str, str], list] = {}
    order: list[tuple[str, str]] = []
    edge_grads = parts.edge_gradients(trace)
    for n in trace.nodes:
        b = view.place[n.id]
        for i, src in enumerate(n.inputs):
            if src is None:
                continue
            a = view.place[src]
            if a == b:
                continue
            key = (a, b)
            if key not in shapes:
                order.append(key)
                shapes[key], grads[key] = [], []
            shape = trace.node(src).shape
            if shape is not None and tuple(shape) not in shapes[key]:
                shapes[key].append(tuple(shape))
            grads[key].append(edge_grads.get((n.id, i)))
    for key in order:
        lines = [", ".join(parts.shape_text(s) for s in shapes[key][:2])]
        total = norm(grads[key])
        if show_grads and total is not None:
            lines.append(words["grad_norm"].format(v=f"{total:.3g}"))
        dot.edge(*key, label=parts.fit([x for x in lines if x]))
