"""The player's own drawing of a graph, for when graphviz's is not to be had (no `dot`, a graph
too big for it to lay out quickly, or `dot` taking too long).

A layered layout, in three steps a reader can follow:
1. layers: every output box is layer 0, and every other node sits one layer above the highest
   of its users (longest path from the outputs), so arrows always point down; a top-level
   module's nodes are lifted, if need be, into a band of layers above the modules run after;
2. order: within a layer, nodes are sorted by the mean position of their neighbours, a few
   times downwards and upwards (the barycenter heuristic), which untangles most crossings;
   nodes of one top-level module stay side by side;
3. coordinates: each node goes below the mean of its inputs (so a chain is one straight
   column), pushed right just enough not to overlap its left neighbour.

The SVG it writes is shaped like graphviz's, which the player's script and style expect: one
`<g class="node">` per node whose `<title>` is the node id, one `<g class="edge">` per edge
titled "input->user", sizes in points. A light box stands behind each top-level module.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

__all__ = ["layered_svg"]

CHAR = 6.1  # points per character of 10 pt monospace
LINE = 12.5  # points per line of text
PAD = 6  # points between a box's text and its edge
GAP_X = 16  # points between boxes side by side
GAP_Y = 34  # points between layers
MARGIN = 12
MAX_CHARS = 34  # a longer line is cut with "…" (the panel shows it in full)
SWEEPS = 3
# viz.py's colours (graphviz names: lightgrey, lightblue, darkolivegreen1) as SVG takes them
COLORS = {"op": "#d3d3d3", "leaf": "#add8e6", "param": "#add8e6", "output": "#caff70"}


@dataclass
class Box:
    """A node's box: its lines of text, colour, layer and (once placed) centre and top."""

    id: str
    lines: list[str]
    fill: str
    module: str = ""
    layer: int = 0
    x: float = 0.0
    y: float = 0.0
    inputs: list[str] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0

    def __post_init__(self) -> None:
        self.width = max(len(line) for line in self.lines) * CHAR + 2 * PAD
        self.height = len(self.lines) * LINE + PAD


def layered_svg(trace: Any) -> str:
    """The trace's graph laid out in layers, as SVG text shaped like graphviz's."""
    boxes = _boxes(trace)
    if not boxes:  # nothing was recorded
        return _svg(trace, boxes, 2 * MARGIN, 2 * MARGIN)
    layers = _layers(boxes)
    _order(boxes, layers)
    width, height = _place(boxes, layers)
    return _svg(trace, boxes, width, height)


# -- what is drawn ------------------------------------------------------------------------------
def _boxes(trace: Any) -> dict[str, Box]:
    """A box per node and per output, with the edges between them (inputs above, users below)."""
    steps = trace.step_numbers()
    boxes: dict[str, Box] = {}
    params = {leaf.node for leaf in trace.leaves if leaf.is_param}
    for n in trace.nodes:
        numbers = steps.get(n.id, [])
        when = [f"step{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
                ] if numbers else []
        if n.is_leaf:
            lines = [_cut(n.label, keep_end=True), _shape(n.shape)] + when
            fill = COLORS["param" if n.id in params else "leaf"]
        else:
            lines = [n.name, f"{n.label} = {n.source}"] + when
            fill = COLORS["op"]
        boxes[n.id] = Box(n.id, [_cut(line) for line in lines], fill, _top(n.module),
                          inputs=list(dict.fromkeys(i for i in n.inputs if i is not None)))
    roots = [r for b in trace.backwards for r in b.roots] or _outputs(trace)
    for root in dict.fromkeys(roots):
        node = trace.node(root)
        out = f"{root}_out"
        boxes[out] = Box(out, [_cut(node.label), _shape(node.shape)], COLORS["output"],
                         inputs=[root])
    for box in boxes.values():
        for src in box.inputs:
            boxes[src].users.append(box.id)
    return boxes


def _outputs(trace: Any) -> list[str]:
    """Without a backward pass: the op nodes nothing else uses (as viz draws them)."""
    used = {i for n in trace.nodes for i in n.inputs if i is not None}
    return [n.id for n in trace.nodes if n.id not in used and not n.is_leaf]


# -- 1. layers ----------------------------------------------------------------------------------
def _layers(boxes: dict[str, Box]) -> list[list[str]]:
    """Each node's layer (see `_longest_paths`), with each top-level module in a band of
    layers of its own, above the modules that run after it. Returns the layers from the top
    of the drawing (the deepest inputs) down to the outputs."""
    _longest_paths(boxes)
    members: dict[str, list[Box]] = {}
    for box in boxes.values():
        if box.module:
            members.setdefault(box.module, []).append(box)
    modules = list(members)
    lowest: dict[str, int] = {}  # node id -> the layer it may not go below
    for k in range(len(modules) - 1, 0, -1):  # from the module run last, back to the first
        later = max(b.layer for m in modules[k:] for b in members[m])
        inside = members[modules[k - 1]]
        rise = later + 1 - min(b.layer for b in inside)
        if rise > 0:
            for b in inside:
                lowest[b.id] = b.layer + rise
            _longest_paths(boxes, lowest)
    layers: list[list[str]] = [[] for _ in range(max(b.layer for b in boxes.values()) + 1)]
    for box in boxes.values():  # forward order: a first, fair guess at the order in a layer
        layers[box.layer].append(box.id)
    return layers[::-1]


def _longest_paths(boxes: dict[str, Box], lowest: dict[str, int] | None = None) -> None:
    """Longest path from the outputs: nodes nothing uses are layer 0 (or their `lowest`),
    every other node one above its highest user, found by counting each node's users down
    to zero (no recursion, however deep the graph)."""
    lowest = lowest or {}
    for box in boxes.values():
        box.layer = lowest.get(box.id, 0)
    waiting = {b.id: len(b.users) for b in boxes.values()}
    ready = [b.id for b in boxes.values() if not b.users]
    while ready:
        box = boxes[ready.pop()]
        for src in box.inputs:
            boxes[src].layer = max(boxes[src].layer, box.layer + 1)
            waiting[src] -= 1
            if waiting[src] == 0:
                ready.append(src)


# -- 2. order within each layer -----------------------------------------------------------------
def _order(boxes: dict[str, Box], layers: list[list[str]]) -> None:
    """Barycenter sweeps: sort each layer by where its neighbours above (going down) or below
    (going up) sit, as a fraction of their layer's width; nodes of a top-level module are kept
    together, in the order the modules first appear."""
    modules = {m: k for k, m in enumerate(dict.fromkeys(b.module for b in boxes.values()))}
    where: dict[str, float] = {}

    def remember(layer: list[str]) -> None:
        for i, node in enumerate(layer):
            where[node] = (i + 0.5) / len(layer)

    for layer in layers:
        remember(layer)
    for _ in range(SWEEPS):
        for sweep, side in ((layers, "inputs"), (layers[::-1], "users")):
            for layer in sweep:
                def key(node: str, side: str = side) -> tuple[int, float]:
                    near = getattr(boxes[node], side)
                    mean = sum(where[n] for n in near) / len(near) if near else where[node]
                    return modules[boxes[node].module], mean

                layer.sort(key=key)
                remember(layer)


# -- 3. coordinates -----------------------------------------------------------------------------
def _place(boxes: dict[str, Box], layers: list[list[str]]) -> tuple[float, float]:
    """Centres and tops in points; returns the drawing's width and height."""
    top = MARGIN + LINE + 4  # room for a module's label above the first layer
    for layer in layers:
        wanted, weight = [], []
        for node in layer:
            # below the inputs that are ops (a weight's box moves over its op later on)
            above = [n for n in boxes[node].inputs if boxes[n].inputs] or boxes[node].inputs
            wanted.append(sum(boxes[n].x for n in above) / len(above) if above else None)
            weight.append(len(above))
        _spread(boxes, layer, wanted, weight)
        for node in layer:
            boxes[node].y = top
        top += max(boxes[n].height for n in layer) + GAP_Y
    # going back up, the inputs with nothing above them (leaves) move over their users
    for layer in layers[-2::-1]:
        wanted, weight = [], []
        for node in layer:
            box = boxes[node]
            moves = bool(box.users) and not box.inputs
            wanted.append(sum(boxes[n].x for n in box.users) / len(box.users) if moves
                          else box.x)
            weight.append(0 if moves else 1)
        _spread(boxes, layer, wanted, weight)
    left = min(b.x - b.width / 2 for b in boxes.values())
    for box in boxes.values():
        box.x += MARGIN - left
    width = max(b.x + b.width / 2 for b in boxes.values()) + MARGIN
    return width, top - GAP_Y + MARGIN


def _spread(boxes: dict[str, Box], layer: list[str], wanted: list[float | None],
            weight: list[int]) -> None:
    """Put the layer's nodes as near their wanted centres as their order allows: the
    weightiest first, each then staying between the ones already placed, with room left for
    those still to come (the priority method). A node that wants nothing goes next to its
    left neighbour."""
    sizes = [boxes[node].width for node in layer]
    starts = [0.0]  # starts[i]: where box i would begin if all were packed from 0
    for size in sizes:
        starts.append(starts[-1] + size + GAP_X)

    def room(i: int, j: int) -> float:
        """How far apart the centres of boxes i < j must be."""
        return starts[j] - starts[i] + (sizes[j] - sizes[i]) / 2

    xs: list[float | None] = [None] * len(layer)
    for i in sorted(range(len(layer)), key=lambda i: (wanted[i] is None, -weight[i])):
        left = next((j for j in range(i - 1, -1, -1) if xs[j] is not None), None)
        right = next((j for j in range(i + 1, len(layer)) if xs[j] is not None), None)
        low = -float("inf") if left is None else xs[left] + room(left, i)
        high = float("inf") if right is None else xs[right] - room(i, right)
        want = wanted[i]
        if want is None:
            want = low if left is not None else high if right is not None else sizes[i] / 2
        xs[i] = min(max(want, low), high)
    for node, x in zip(layer, xs):
        boxes[node].x = x


# -- the SVG ------------------------------------------------------------------------------------
def _svg(trace: Any, boxes: dict[str, Box], width: float, height: float) -> str:
    parts = [f'<svg class="layered" width="{width:.1f}pt" height="{height:.1f}pt" '
             f'viewBox="0 0 {width:.1f} {height:.1f}" xmlns="http://www.w3.org/2000/svg">',
             '<g id="graph0" class="graph" font-family="monospace" font-size="10">']
    parts += _module_boxes(trace, boxes)
    count = 0
    for box in boxes.values():
        for src in box.inputs:
            count += 1
            parts.append(_edge(count, boxes[src], box))
    for k, box in enumerate(boxes.values(), start=1):
        parts.append(_node(k, box))
    parts += ["</g>", "</svg>"]
    return "\n".join(parts)


def _node(k: int, box: Box) -> str:
    left, right = box.x - box.width / 2, box.x + box.width / 2
    top, bottom = box.y, box.y + box.height
    points = f"{left:.1f},{top:.1f} {right:.1f},{top:.1f} {right:.1f},{bottom:.1f} " \
        f"{left:.1f},{bottom:.1f} {left:.1f},{top:.1f}"
    texts = "".join(f'<text text-anchor="middle" x="{box.x:.1f}" '
                    f'y="{top + PAD / 2 + LINE * (i + 0.75):.1f}">{html.escape(line)}</text>'
                    for i, line in enumerate(box.lines))
    return (f'<g id="node{k}" class="node"><title>{html.escape(box.id)}</title>'
            f'<polygon fill="{box.fill}" stroke="black" points="{points}"/>{texts}</g>')


def _edge(k: int, src: Box, user: Box) -> str:
    """A curve from the bottom of the input's box to an arrowhead on top of the user's."""
    x1, y1 = src.x, src.y + src.height
    x2, y2 = user.x, user.y - 7
    bend = max(12.0, (y2 - y1) / 2)
    path = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + bend:.1f} {x2:.1f},{y2 - bend:.1f} " \
        f"{x2:.1f},{y2:.1f}"
    head = f"{x2 - 3.5:.1f},{y2:.1f} {x2 + 3.5:.1f},{y2:.1f} {x2:.1f},{user.y:.1f} " \
        f"{x2 - 3.5:.1f},{y2:.1f}"
    return (f'<g id="edge{k}" class="edge"><title>{html.escape(f"{src.id}->{user.id}")}'
            f'</title><path fill="none" stroke="black" d="{path}"/>'
            f'<polygon fill="black" stroke="black" points="{head}"/></g>')


def _module_boxes(trace: Any, boxes: dict[str, Box]) -> list[str]:
    """A light box behind the nodes of each top-level module, labelled "path · Type"."""
    out = []
    modules = getattr(trace, "modules", {})
    for module in dict.fromkeys(b.module for b in boxes.values() if b.module):
        inside = [b for b in boxes.values() if b.module == module]
        left = min(b.x - b.width / 2 for b in inside) - 8
        right = max(b.x + b.width / 2 for b in inside) + 8
        top = min(b.y for b in inside) - LINE - 4
        bottom = max(b.y + b.height for b in inside) + 6
        kind = modules[module].type if module in modules else ""
        label = f"{module} · {kind}" if kind else module
        out.append(f'<g class="module"><title>{html.escape(module)}</title>'
                   f'<rect x="{left:.1f}" y="{top:.1f}" width="{right - left:.1f}" '
                   f'height="{bottom - top:.1f}" rx="6" fill="#eef3fb" stroke="#c5d3ea"/>'
                   f'<text x="{left + 6:.1f}" y="{top + LINE - 2:.1f}" fill="#4a5f80">'
                   f"{html.escape(label)}</text></g>")
    return out


def _top(module: str) -> str:
    return module.split(".")[0] if module else ""


def _shape(shape: Any) -> str:
    return "?" if shape is None else str(tuple(int(n) for n in shape))


def _cut(line: str, keep_end: bool = False) -> str:
    """At most MAX_CHARS characters; a parameter's name keeps its end ("…layer1.0.weight")."""
    if len(line) <= MAX_CHARS:
        return line
    return "…" + line[1 - MAX_CHARS:] if keep_end else line[:MAX_CHARS - 1] + "…"
