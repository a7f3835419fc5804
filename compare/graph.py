"""Both engines' backward graphs in one normalised form, and where two of them differ.

A graph is read from a tensor's `grad_fn` by following the ordered `next_functions` edges
(minigrad's nodes and PyTorch's answer the same questions: `.name()`, `.next_functions`,
`.variable` on `AccumulateGrad`). Nodes are numbered in depth-first order, so two graphs are
equal exactly when their numbered node lists are equal: same node names, same edges in the
same order, same `input_nr` on each edge, the same sharing (`x*x` has two edges to one
AccumulateGrad), and leaves with the same shapes (and input names, where known).

Three printouts:
- `outline(t)`: a one-line tree, the form in which PyTorch 2.13's observed graphs were written
  down, `MulBackward0[(AccumulateGrad(variable.shape=(3,)), 0), (None, 0)]`;
- `Graph.lines()`: an indented tree, one node a line, a shared node expanded once;
- `side_by_side(a, b)`: both indented trees in two columns, the first divergent line marked.

Whether a difference is one of the documented ones, and the verdict, are in `graph_compare.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ACCUMULATE = "AccumulateGrad"


@dataclass(frozen=True)
class GNode:
    """One node: its name, the leaf's shape and input name (AccumulateGrad only), its edges."""

    name: str
    edges: tuple[tuple[int | None, int], ...] = ()  # (node number or None, input_nr)
    shape: tuple[int, ...] | None = None
    label: str | None = None


@dataclass(frozen=True)
class Graph:
    """A backward graph as data: `nodes[0]` is the root, numbered in depth-first order."""

    nodes: tuple[GNode, ...]
    root_nr: int = 0  # which output of the root node the tensor is

    def __len__(self) -> int:
        return len(self.nodes)

    def names(self) -> list[str]:
        return [n.name for n in self.nodes]

    def lines(self) -> list[str]:
        return [line.text() for line in tree_lines(self)]

    def indented(self) -> str:
        return "\n".join(self.lines())

    def outline(self, max_chars: int = 100_000) -> str:
        return outline_of(self, max_chars)


def node_name(node: Any) -> str:
    """`MulBackward0` or `AccumulateGrad`, without the `torch::autograd::` of some C++ nodes."""
    if hasattr(node, "variable"):
        return ACCUMULATE
    return node.name().removeprefix("torch::autograd::")  # CopyBackwards, GraphRoot, ...


def graph_of(tensor: Any, names: dict[int, str] | None = None) -> Graph:
    """Normalise the graph that ends in `tensor` (a minigrad or a torch tensor).

    `names` maps `id(leaf tensor)` to a label (the input's name) shown on AccumulateGrad nodes.
    A leaf that requires grad is its own one-node graph; a tensor without grad, an empty one.
    """
    names = names or {}
    root = getattr(tensor, "grad_fn", None)
    if root is None:
        if getattr(tensor, "requires_grad", False):
            return Graph((GNode(ACCUMULATE, (), tuple(tensor.shape), names.get(id(tensor))),))
        return Graph(())
    return graph_of_node(root, names, getattr(tensor, "output_nr", 0))


def graph_of_node(root: Any, names: dict[int, str] | None = None, root_nr: int = 0) -> Graph:
    """Normalise the graph below a node (iteratively: any depth)."""
    names = names or {}
    number: dict[int, int] = {}
    order: list[Any] = []
    stack = [root]
    while stack:  # pre-order: a node is numbered when first reached, first edge first
        node = stack.pop()
        if id(node) in number:
            continue
        number[id(node)] = len(order)
        order.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
    nodes = []
    for node in order:
        edges = tuple((None if n is None else number[id(n)], int(nr))
                      for n, nr in node.next_functions)
        if hasattr(node, "variable"):
            var = node.variable
            nodes.append(GNode(ACCUMULATE, edges, tuple(var.shape), names.get(id(var))))
        else:
            nodes.append(GNode(node_name(node), edges))
    return Graph(tuple(nodes), int(root_nr))


def outline(tensor_or_node: Any) -> str:
    """The one-line tree of a tensor's graph (or of the graph below a node)."""
    if hasattr(tensor_or_node, "next_functions"):
        return graph_of_node(tensor_or_node).outline()
    return graph_of(tensor_or_node).outline()


def _leaf_text(node: GNode) -> str:
    return f"{ACCUMULATE}(variable.shape={node.shape})"


def outline_of(graph: Graph, max_chars: int = 100_000) -> str:
    """`Name[(child, input_nr), ...]` with shared nodes written out at every use."""
    if not graph.nodes:
        return "None"
    texts: dict[int, str] = {}
    for i in post_order(graph):
        node = graph.nodes[i]
        if node.name == ACCUMULATE and not node.edges:
            texts[i] = _leaf_text(node)
            continue
        parts = [f"({'None' if c is None else texts[c]}, {nr})" for c, nr in node.edges]
        size = len(node.name) + 2 + sum(len(p) + 2 for p in parts)
        if size > max_chars:
            raise ValueError(f"the graph's tree is longer than {max_chars} characters (shared "
                             "nodes are repeated at every use); print Graph.indented() instead")
        texts[i] = f"{node.name}[{', '.join(parts)}]"
    return texts[0]


def post_order(graph: Graph) -> list[int]:
    """Node numbers, every node after all of its children."""
    done: set[int] = set()
    out: list[int] = []
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        i, expanded = stack.pop()
        if expanded:
            if i not in done:
                done.add(i)
                out.append(i)
            continue
        if i in done:
            continue
        stack.append((i, True))
        stack.extend((c, False) for c, _ in graph.nodes[i].edges if c is not None and c not in done)
    return out


# ------------------------------------------------------------------ indented trees and diff
@dataclass(frozen=True)
class TreeLine:
    """One line of an indented tree; equal lines mean equal graphs up to that point."""

    depth: int
    input_nr: int
    name: str  # node name, or "None" for an edge to no node
    shape: tuple[int, ...] | None = None
    label: str | None = field(default=None, compare=True)
    same_as: int | None = None  # a shared node met again: the line where it was expanded
    n_edges: int = 0  # compared too: a node with another edge count is itself the divergence

    def text(self) -> str:
        pad = "  " * self.depth
        nr = f" [output {self.input_nr}]" if self.input_nr else ""
        if self.name == "None":
            return f"{pad}None{nr}"
        leaf = ""
        if self.shape is not None:
            leaf = f" {self.label} {self.shape}" if self.label else f" {self.shape}"
        seen = f"  (same node as line {self.same_as + 1})" if self.same_as is not None else ""
        return f"{pad}{self.name}{leaf}{nr}{seen}"


def tree_lines(graph: Graph) -> list[TreeLine]:
    """The graph as an indented tree, depth first; a node met again is not expanded again."""
    if not graph.nodes:
        return []
    lines: list[TreeLine] = []
    first_line: dict[int, int] = {}
    stack: list[tuple[int | None, int, int]] = [(0, graph.root_nr, 0)]
    while stack:
        i, nr, depth = stack.pop()
        if i is None:
            lines.append(TreeLine(depth, nr, "None"))
            continue
        node = graph.nodes[i]
        if i in first_line:
            lines.append(TreeLine(depth, nr, node.name, node.shape, node.label, first_line[i]))
            continue
        first_line[i] = len(lines)
        lines.append(TreeLine(depth, nr, node.name, node.shape, node.label,
                              n_edges=len(node.edges)))
        stack.extend((c, cnr, depth + 1) for c, cnr in reversed(node.edges))
    return lines


@dataclass(frozen=True)
class Divergence:
    """The first place where two graphs differ: the line number and both nodes there."""

    line: int  # 0-based index into both trees' lines
    left: TreeLine | None
    right: TreeLine | None
    path: tuple[str, ...]  # node names from the root down to the divergent node's parent

    def describe(self, left_name: str = "minigrad", right_name: str = "torch") -> str:
        def what(t: TreeLine | None) -> str:
            if t is None:
                return "nothing (its tree ends earlier)"
            return t.text().strip()

        where = f"under {' -> '.join(self.path)}" if self.path else "at the root"
        return (f"first divergent node (line {self.line + 1}, {where}): "
                f"{left_name} has {what(self.left)}, {right_name} has {what(self.right)}")


def first_divergence(a: Graph, b: Graph) -> Divergence | None:
    """Where the two depth-first walks first disagree, or None if the graphs are equal."""
    la, lb = tree_lines(a), tree_lines(b)
    for k in range(max(len(la), len(lb))):
        x = la[k] if k < len(la) else None
        y = lb[k] if k < len(lb) else None
        if x != y:
            ref = la if x is not None else lb
            return Divergence(k, x, y, _path(ref, k))
    if a.root_nr != b.root_nr:
        return Divergence(0, la[0] if la else None, lb[0] if lb else None, ())
    return None


def _path(lines: list[TreeLine], k: int) -> tuple[str, ...]:
    path: list[str] = []
    depth = lines[k].depth
    for line in reversed(lines[:k]):
        if line.depth < depth:
            path.append(line.name)
            depth = line.depth
    return tuple(reversed(path))


def side_by_side(a: Graph, b: Graph, titles: tuple[str, str] = ("minigrad", "torch"),
                 max_lines: int = 80) -> str:
    """Both indented trees in two columns; `!` marks the first divergent line."""
    la, lb = a.lines(), b.lines()
    div = first_divergence(a, b)
    width = max([len(titles[0])] + [len(s) for s in la]) + 2
    rows = [f"  {titles[0]:<{width}}| {titles[1]}", f"  {'-' * width}+{'-' * (width + 2)}"]
    for k in range(max(len(la), len(lb))):
        if k >= max_lines:
            rows.append(f"  ... ({max(len(la), len(lb)) - max_lines} more lines)")
            break
        mark = "!" if div is not None and k == div.line else " "
        left = la[k] if k < len(la) else ""
        right = lb[k] if k < len(lb) else ""
        rows.append(f"{mark} {left:<{width}}| {right}")
    return "\n".join(rows)
