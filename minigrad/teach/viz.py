"""Drawing the graph with graphviz, in the manner of torchviz's `make_dot`, and beyond it.

`draw(tensor_or_trace)` gives a `graphviz.Digraph`: leaf tensors as blue boxes with their
names and shapes (parameter names from `params`), op nodes as grey boxes with their PyTorch
names, the output in green; then what torchviz does not show: each op's source form and
backward step number, every tensor's gradient (values when small, else shape and norm) and,
optionally, the saved tensors (orange, dashed edges). Node names in the DOT are the Trace's
node ids (`n12`), so the SVG's `<title>` of each node is its id.

Only drawing imports `graphviz` (the Python package builds DOT text by itself); rendering an
image (`render`, `Trace._repr_svg_`) needs graphviz's `dot` program.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from minigrad.printing import format_values
from minigrad.teach.labels import frame_names, user_frame
from minigrad.teach.recorder import Recorder
from minigrad.teach.records import TraceRecords
from minigrad.tensor import Tensor

__all__ = ["GraphvizNotFound", "draw", "render"]

INSTALL_HINT = (
    "rendering needs graphviz's `dot` program, which was not found on PATH. Install it "
    "(Debian/Ubuntu: `apt-get install graphviz`, macOS: `brew install graphviz`, conda: "
    "`conda install graphviz`), or save the DOT text instead: "
    "`Path('graph.dot').write_text(trace.to_dot().source)`."
)
NODE_STYLE = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                  height="0.2", fontname="monospace")
COLORS = {"op": "lightgrey", "leaf": "lightblue", "param": "lightblue",
          "output": "darkolivegreen1", "saved": "orange"}


class GraphvizNotFound(RuntimeError):
    """The `dot` program is missing: the message says how to install it."""


def draw(tensor_or_trace: Any, params: Any = None, show_grads: bool = True,
         show_values: bool = True, show_saved: bool = False) -> Any:
    """The graph of a Tensor (as recorded, without running backward) or of a Trace.

    `params` (dict name -> tensor, e.g. `dict(model.named_parameters())`, or a module)
    names the parameters. Returns a `graphviz.Digraph`; `.source` is the DOT text.
    """
    import graphviz

    trace = _as_trace(tensor_or_trace, params)
    names = _param_names(trace, params)
    steps = trace.step_numbers()
    edge_grads = _edge_gradients(trace)
    dot = graphviz.Digraph(node_attr=NODE_STYLE, graph_attr=dict(size="12,12"))
    for n in trace.nodes:
        numbers = steps.get(n.id, [])
        when = [f"step{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
                ] if numbers else []
        if n.is_leaf:
            leaf = next((x for x in trace.leaves if x.node == n.id), None)
            label = names.get(n.id, n.label)
            lines = [label, _shape(n.shape)]
            if show_values and n.value is not None:
                lines.append("= " + _compact(n.value))
            if show_grads and leaf is not None and leaf.grad is not None:
                lines.append("grad " + _compact(leaf.grad))
            kind = "param" if (leaf is not None and leaf.is_param) or n.id in names else "leaf"
            dot.node(n.id, _fit(lines + when), fillcolor=COLORS[kind])
            continue
        lines = [n.name, f"{n.label} = {n.source}"] + when
        dot.node(n.id, _fit(lines), fillcolor=COLORS["op"],
                 tooltip=_fit([n.line or f"{n.label} = {n.source}"]))
        for i, src in enumerate(n.inputs):
            if src is None:
                continue
            label = _edge_label(trace.node(src), edge_grads.get((n.id, i)), show_grads,
                                show_values)
            dot.edge(src, n.id, **({"label": label} if label else {}))
        if show_saved:
            for k, (what, value) in enumerate(n.saved):
                sid = f"{n.id}_s{k}"
                dot.node(sid, _fit([f"saved {what}", _shape(np.shape(value))]),
                         fillcolor=COLORS["saved"])
                dot.edge(sid, n.id, style="dashed", arrowhead="none")
    for b in trace.backwards or [None]:
        roots = b.roots if b is not None else _outputs(trace)
        seeds = b.seeds if b is not None else [None] * len(roots)
        for root, seed in zip(roots, seeds):
            _output_box(dot, trace.node(root), seed, show_grads, show_values)
    return dot


def render(tensor_or_trace: Any, path: str | os.PathLike, format: str | None = None,
           **options: Any) -> Path:
    """Draw into `path` as "svg", "png", ... (from the suffix by default), or "dot" text."""
    path = Path(path)
    fmt = (format or path.suffix.lstrip(".") or "svg").lower()
    graph = tensor_or_trace if hasattr(tensor_or_trace, "pipe") else draw(tensor_or_trace,
                                                                           **options)
    if fmt in ("dot", "gv"):
        path.write_text(graph.source, encoding="utf-8")
    else:
        path.write_bytes(pipe(graph, fmt))
    return path


def pipe(graph: Any, fmt: str = "svg") -> bytes:
    """The image bytes of a Digraph; GraphvizNotFound (with the install hint) without `dot`."""
    import graphviz

    try:
        return graph.pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizNotFound(INSTALL_HINT) from None


def svg_or_none(graph: Any) -> str | None:
    """SVG text for Jupyter, or None when `dot` is missing (Jupyter then shows the repr)."""
    try:
        return pipe(graph, "svg").decode("utf-8")
    except GraphvizNotFound:
        return None


# -- pieces -----------------------------------------------------------------------------------
def _as_trace(obj: Any, params: Any) -> TraceRecords:
    """A Trace as it is; a Tensor's graph recorded as it stands (no backward runs)."""
    if isinstance(obj, TraceRecords):
        return obj
    if isinstance(obj, Tensor):
        recorder = Recorder(params)
        recorder.add_roots([obj])
        records = TraceRecords()
        records._load(recorder.build(frame_names(user_frame(sys._getframe()))))
        return records
    raise TypeError(f"draw() takes a Tensor or a Trace, not {type(obj).__name__}")


def _param_names(trace: Any, params: Any) -> dict[str, str]:
    """Leaf node id -> parameter name, for params given at drawing time."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = dict(params.named_parameters())
    by_id = {id(t): name for name, t in params.items()}
    names = {}
    for node_id, ref in trace.live_leaves.items():
        t = ref()
        if t is not None and id(t) in by_id:
            names[node_id] = by_id[id(t)]
    return names


def _edge_gradients(trace: Any) -> dict[tuple[str, int], Any]:
    """(op id, input index) -> the gradient the op sent along that edge (last pass)."""
    grads = {}
    for step in trace.steps:
        for i, g in enumerate(step.grad_inputs):
            if g is not None:
                grads[(step.node, i)] = g
    return grads


def _edge_label(src: Any, grad: Any, show_grads: bool, show_values: bool) -> str:
    lines = []
    if not src.is_leaf:
        lines.append(f"{src.label} {_shape(src.shape)}")
        if show_values and src.value is not None:
            lines.append("= " + _compact(src.value))
    if show_grads and grad is not None:
        lines.append("grad " + _compact(grad))
    return _fit(lines)


def _output_box(dot: Any, node: Any, seed: Any, show_grads: bool, show_values: bool) -> None:
    lines = [node.label, _shape(node.shape)]
    if show_values and node.value is not None:
        lines.append("= " + _compact(node.value))
    if show_grads and seed is not None:
        lines.append("grad " + _compact(seed))
    dot.node(f"{node.id}_out", _fit(lines), fillcolor=COLORS["output"])
    dot.edge(node.id, f"{node.id}_out")


def _outputs(trace: Any) -> list[str]:
    """Without a backward pass: the op nodes nothing else uses."""
    used = {i for n in trace.nodes for i in n.inputs if i is not None}
    return [n.id for n in trace.nodes if n.id not in used and not n.is_leaf]


MAX_LINE = 200  # characters per line of a box (graphviz refuses strings of ~16 kB)


def _fit(lines: list[str]) -> str:
    """A box's lines, each cut to MAX_LINE characters: any label can be drawn."""
    return "\n".join(line if len(line) <= MAX_LINE else line[:MAX_LINE - 1] + "…"
                     for line in lines)


def _shape(shape: Any) -> str:
    return "?" if shape is None else str(tuple(int(n) for n in shape))


def _compact(a: Any) -> str:
    """`[3., 3., 3.]` when small, else `(128, 256) norm 1.234`."""
    a = np.asarray(a)
    if a.size <= 6 and a.ndim <= 1:
        return format_values(a)
    with np.errstate(all="ignore"):
        norm = float(np.sqrt(np.sum(np.square(a.astype(np.float64)))))
    return f"{_shape(a.shape)} norm {norm:.4g}"
