"""minigrad's graph against PyTorch's: equal, different only in a documented way (a
`DesignDifference` of `KNOWN_DIFFERENCES`), or different. A documented difference is checked by
folding each region of its nodes into one node in both graphs and comparing again.
"""

from __future__ import annotations

from dataclasses import dataclass

from compare.graph import Divergence, GNode, Graph, first_divergence, post_order, side_by_side


@dataclass(frozen=True)
class DesignDifference:
    """A documented way minigrad's graph may differ from PyTorch's, and why.

    Two graphs differ "by design" when they become equal after each connected region of
    `parts` nodes around an `anchors` node is replaced, in both, by one node whose edges are
    the region's inputs (in a canonical order): the difference is inside that composition
    only. The entry applies when a region of either graph contains one of `requires`.
    """

    name: str
    anchors: frozenset[str]
    parts: frozenset[str]
    requires: frozenset[str]
    reason: str


_PRODUCTS = frozenset({"MmBackward0", "MvBackward0", "DotBackward0", "BmmBackward0"})
_MATMUL_PIECES = _PRODUCTS | frozenset({
    "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward4",
    "ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0", "ExpandBackward0",
    "CloneBackward0", "TransposeBackward0", "TBackward0",
})

KNOWN_DIFFERENCES: tuple[DesignDifference, ...] = (
    DesignDifference(
        "batched matmul", _PRODUCTS, _MATMUL_PIECES, frozenset({"BmmBackward0"}),
        "PyTorch 2.13 decides per call whether to fold a batched product into one mm/mv "
        "(transposing a 1-D/2-D left operand's partner, squeezing batch dims of size 1, "
        "`_reshape_alias` for expanded strides), depending on strides and requires_grad; "
        "minigrad always expands both sides to the broadcast batch and runs one bmm (see "
        "minigrad/ops/products.py, `matmul`). Same products, so the same gradients; only the "
        "shape nodes around the product differ.",
    ),
    DesignDifference(
        "vector·matrix", _PRODUCTS, _MATMUL_PIECES, frozenset(),
        "PyTorch 2.13 computes 1-D @ 2-D as unsqueeze(0) -> mm -> squeeze and N-D @ 1-D/2-D "
        "by folding the batch into rows (view -> mv/mm -> _unsafe_view); minigrad composes "
        "the same pieces (minigrad/ops/products.py, `matmul`), and where a reshape is a view in "
        "one engine and a copy in the other, only those shape nodes differ.",
    ),
)


def design_difference(a: Graph, b: Graph) -> DesignDifference | None:
    """The documented difference that explains why `a` and `b` differ, if one does."""
    for known in KNOWN_DIFFERENCES:
        ca, names_a = collapse(a, known)
        cb, names_b = collapse(b, known)
        if known.requires and not known.requires & (names_a | names_b):
            continue
        if (names_a or names_b) and first_divergence(ca, cb) is None:
            return known
    return None


def collapse(graph: Graph, known: DesignDifference) -> tuple[Graph, set[str]]:
    """`graph` with each region of `known.parts` around an anchor folded into one node,
    and the names of the nodes that were folded."""
    nodes = graph.nodes
    parents: dict[int, list[int]] = {}
    for i, node in enumerate(nodes):
        for c, _ in node.edges:
            if c is not None:
                parents.setdefault(c, []).append(i)
    region_of: dict[int, int] = {}  # node -> the region's entry node
    for start, node in enumerate(nodes):
        if node.name not in known.anchors or start in region_of:
            continue
        region = {start}
        todo = [start]
        while todo:  # grow through neighbouring pieces, up and down
            i = todo.pop()
            near = [c for c, _ in nodes[i].edges if c is not None] + parents.get(i, [])
            for j in near:
                if j not in region and nodes[j].name in known.parts:
                    region.add(j)
                    todo.append(j)
        entries = [i for i in region if not any(p in region for p in parents.get(i, []))]
        if len(entries) != 1:
            continue  # not one composition with one result: leave it alone
        for i in region:
            region_of[i] = entries[0]
    if not region_of:
        return graph, set()
    folded = {nodes[i].name for i in region_of}
    return _rebuild(graph, region_of, f"<{known.name}>"), folded


def _signatures(graph: Graph) -> list[int]:
    """A structural hash of each node's subtree, to order a folded region's inputs."""
    sig = [0] * len(graph.nodes)
    for i in post_order(graph):
        node = graph.nodes[i]
        sig[i] = hash((node.name, node.shape, node.label,
                       tuple((None if c is None else sig[c], nr) for c, nr in node.edges)))
    return sig


def _rebuild(graph: Graph, region_of: dict[int, int], label: str) -> Graph:
    """Renumber the graph with every region replaced by its entry node, named `label`."""
    nodes = graph.nodes
    sig = _signatures(graph)

    def outer_edges(entry: int) -> list[tuple[int | None, int]]:
        out, seen, stack = [], set(), [entry]
        while stack:  # the region's edges to the outside
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            for c, nr in nodes[i].edges:
                if c is not None and region_of.get(c) == entry:
                    stack.append(c)
                elif c is not None:
                    out.append((c, nr))
        # the engines may feed the operands in either order (PyTorch transposes to fold)
        return sorted(set(out), key=lambda e: (sig[e[0]], e[1]))

    new_edges: dict[int, list[tuple[int | None, int]]] = {}
    number: dict[int, int] = {}
    order: list[int] = []
    stack = [region_of.get(0, 0)]
    while stack:
        i = stack.pop()
        if i in number:
            continue
        number[i] = len(order)
        order.append(i)
        edges = outer_edges(i) if region_of.get(i) == i else list(nodes[i].edges)
        edges = [(None if c is None else region_of.get(c, c), nr) for c, nr in edges]
        new_edges[i] = edges
        stack.extend(c for c, _ in reversed(edges) if c is not None)
    out = []
    for i in order:
        old = nodes[i]
        name = label if region_of.get(i) == i else old.name
        edges = tuple((None if c is None else number[c], nr) for c, nr in new_edges[i])
        out.append(GNode(name, edges, old.shape, old.label))
    return Graph(tuple(out), graph.root_nr)


# ------------------------------------------------------------------ the comparison
@dataclass
class GraphComparison:
    """minigrad's graph against PyTorch's: equal, different by design, or different."""

    minigrad: Graph
    torch: Graph
    divergence: Divergence | None
    by_design: DesignDifference | None = None

    @property
    def equal(self) -> bool:
        return self.divergence is None

    @property
    def ok(self) -> bool:
        return self.equal or self.by_design is not None

    def verdict(self) -> str:
        if self.equal:
            return f"equal ({len(self.minigrad)} nodes)"
        if self.by_design is not None:
            return f"differs by design ({self.by_design.name})"
        return "DIFFERENT"

    def __str__(self) -> str:
        head = f"graph shape: {self.verdict()}"
        if self.equal:
            return head
        lines = [head]
        if self.by_design is not None:
            lines.append(f"  why: {self.by_design.reason}")
        lines.append("  " + self.divergence.describe())
        lines.append(side_by_side(self.minigrad, self.torch))
        return "\n".join(lines)


def compare_graphs(mg: Graph, th: Graph) -> GraphComparison:
    div = first_divergence(mg, th)
    return GraphComparison(mg, th, div, design_difference(mg, th) if div is not None else None)
