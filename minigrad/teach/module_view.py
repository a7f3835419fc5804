"""A Trace at module depth k: one box per module at that depth, repeated blocks collapsed.

`module_view(trace, depth)` groups the nodes: each module at `depth` becomes one box (its
class, parameter count, input and output shapes, the gradient norm of its parameters and
the backward steps that ran inside it); a module above `depth` is drawn open, as a cluster
around its boxes and its own ops; ops outside every module and the inputs stay as they are.
Consecutive sibling boxes that did the same thing (same class, same ops, same parameter
shapes: ResNet's BasicBlocks, a Transformer's layers) collapse into one box marked "x N".
Works from the records alone (`module_tree`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from minigrad.teach.module_tree import ModuleTree, norm


@dataclass
class Box:
    """One module box (or a run of identical blocks): `paths` it stands for, in order."""

    id: str
    paths: list[str]
    type: str
    params: int = 0
    inputs: list[tuple] = field(default_factory=list)
    outputs: list[tuple] = field(default_factory=list)
    grad_norm: float | None = None
    steps: list[int] = field(default_factory=list)
    calls: int = 1
    nodes: list[str] = field(default_factory=list)  # the node ids inside

    @property
    def repeat(self) -> int:
        return len(self.paths)

    @property
    def title(self) -> str:
        first, last = self.paths[0], self.paths[-1]
        if len(self.paths) == 1:
            return first or "(model)"
        head, _, a = first.rpartition(".")
        b = last.rpartition(".")[2]
        return f"{head}.{a}–{b}" if head else f"{a}–{b}"


@dataclass
class ModuleView:
    """What the drawing needs: the boxes, where every node went, and the clusters."""

    boxes: dict[str, Box]  # box id -> Box
    place: dict[str, str]  # node id -> box id, or the node id itself when drawn as it is
    clusters: dict[str, list[str]]  # open module path -> its boxes and loose nodes
    cluster_of: dict[str, str]  # box id or loose node id -> the open module drawing it
    tree: ModuleTree


def module_view(trace: Any, depth: int, collapse: bool = True) -> ModuleView:
    """The Trace's nodes grouped at module `depth` (>= 1)."""
    tree = ModuleTree(trace)
    steps = trace.step_numbers()
    members: dict[str, list[str]] = {}
    loose: list[str] = []
    for n in trace.nodes:
        path = tree.ancestor(tree.module_of[n.id], depth)
        if path is None:
            loose.append(n.id)
        else:
            members.setdefault(path, []).append(n.id)
    boxes: dict[str, Box] = {}
    place: dict[str, str] = {i: i for i in loose}
    for path, ids in members.items():
        box = _box(trace, tree, path, ids, steps)
        boxes[box.id] = box
        place.update((i, box.id) for i in ids)
    if collapse:
        _collapse(trace, tree, boxes, place, depth)
    clusters: dict[str, list[str]] = {}
    cluster_of: dict[str, str] = {}
    for item in list(boxes) + loose:
        if item in boxes:
            outer = tree.parent.get(boxes[item].paths[0])
        else:
            outer = tree.module_of.get(item)
        if outer:  # ("" is the model: not drawn as a frame)
            clusters.setdefault(outer, []).append(item)
            cluster_of[item] = outer
    return ModuleView(boxes, place, clusters, cluster_of, tree)


def _box(trace: Any, tree: ModuleTree, path: str, ids: list[str], steps: dict) -> Box:
    inside = set(ids)
    record = trace.modules.get(path)
    grads, size = [], 0
    for i in ids:
        node = trace.node(i)
        if node.is_leaf:
            leaf = tree.leaf(i)
            if leaf is not None:
                size += int(_size(leaf.shape))
                grads.append(leaf.grad)
    users = {src for n in trace.nodes if n.id not in inside for src in n.inputs if src}
    roots = {r for b in trace.backwards for r in b.roots}
    inputs = [tuple(trace.node(s).shape or ()) for i in ids if not trace.node(i).is_leaf
              for s in trace.node(i).inputs if s is not None and s not in inside
              and not (trace.node(s).is_leaf and tree.is_param(trace.node(s)))]
    outputs = [tuple(trace.node(i).shape or ()) for i in ids
               if (i in users or i in roots) and not trace.node(i).is_leaf]
    numbers = sorted(k for i in ids for k in steps.get(i, []))
    return Box(f"m_{_dot_id(path)}", [path], tree.type_of(path), size, _unique(inputs),
               _unique(outputs), norm(grads), numbers,
               record.calls if record is not None else 1, list(ids))


def _collapse(trace: Any, tree: ModuleTree, boxes: dict[str, Box], place: dict[str, str],
              depth: int) -> None:
    """Runs of consecutive identical siblings become one box "x N" (first box kept)."""
    order = list(boxes.values())
    signature = {b.id: _signature(trace, tree, b) for b in order}
    k = 0
    while k < len(order):
        run = [order[k]]
        while k + len(run) < len(order):
            nxt = order[k + len(run)]
            if tree.parent.get(nxt.paths[0]) != tree.parent.get(run[0].paths[0]) or \
                    signature[nxt.id] != signature[run[0].id]:
                break
            run.append(nxt)
        if len(run) > 1:
            first = run[0]
            for other in run[1:]:
                first.paths += other.paths
                first.params += other.params
                first.steps = sorted(first.steps + other.steps)
                first.nodes += other.nodes
                for i in other.nodes:
                    place[i] = first.id
                del boxes[other.id]
            first.outputs = run[-1].outputs
            first.grad_norm = norm([_leaf_grad(tree, i) for i in first.nodes])
        k += len(run)


def _signature(trace: Any, tree: ModuleTree, box: Box) -> tuple:
    """What must match for two boxes to be "the same block": class, ops, parameter shapes,
    input and output shapes."""
    ops = tuple(trace.node(i).name for i in box.nodes)
    shapes = tuple(tuple(trace.node(i).shape or ()) for i in box.nodes if trace.node(i).is_leaf)
    return box.type, ops, shapes, tuple(box.inputs), tuple(box.outputs), box.calls


def _leaf_grad(tree: ModuleTree, node_id: str) -> Any:
    leaf = tree.leaf(node_id)
    return None if leaf is None else leaf.grad


def _size(shape: Any) -> int:
    n = 1
    for d in shape or ():
        n *= int(d)
    return n


def _unique(shapes: list[tuple]) -> list[tuple]:
    return list(dict.fromkeys(shapes))


def _dot_id(path: str) -> str:
    return path.replace(".", "_") or "model"
