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

import html
import os
import sys
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.teach.display import Drawing
from minigrad.teach.drawing_parts import COLORS, compact, edge_gradients, fit, shape_text
from minigrad.teach.labels import frame_names, user_frame
from minigrad.teach.make_dot import make_dot  # torchviz's drawing, as torchviz draws it
from minigrad.teach.recorder import Recorder
from minigrad.teach.records import TraceRecords
from minigrad.teach.view_phrases import VIEW_PHRASES

__all__ = ["GraphvizNotFound", "draw", "make_dot", "render"]

INSTALL_HINT = (
    "rendering needs graphviz's `dot` program, which was not found on PATH. Install it "
    "(Debian/Ubuntu: `apt-get install graphviz`, macOS: `brew install graphviz`, conda: "
    "`conda install graphviz`), or save the DOT text instead: "
    "`Path('graph.dot').write_text(trace.to_dot().source)`."
)
NODE_STYLE = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                  height="0.2", fontname="monospace")
# the picture to read on its own (legend=True): no size cap, the drawing grows with the graph
# and the viewer zooms; the output at the top
READER_STYLE = dict(rankdir="BT", fontname="monospace", fontsize="10")
EDGE_STYLE = dict(fontname="monospace", fontsize="10")
LIGHT = 300  # flat graphs with more nodes get one-line labels (see draw)


class GraphvizNotFound(RuntimeError):
    """The `dot` program is missing: the message says how to install it."""


def draw(tensor_or_trace: Any, params: Any = None, show_grads: bool = True,
         show_values: bool = True, show_saved: bool = False, depth: int | None = None,
         collapse: bool = True, lang: str = "en", legend: bool | None = None,
         words: dict[str, str] | None = None) -> Any:
    """The graph of a Tensor (as recorded, without running backward) or of a Trace.

    `params` (dict name -> tensor, e.g. `dict(model.named_parameters())`, or a module)
    names the parameters. `depth=k` draws one box per module at depth k (`module_drawing`),
    with runs of identical blocks collapsed into one "x N" box unless `collapse=False`.
    `lang="zh"` writes the drawing's words in Chinese. Arrows run as in torchviz, from a
    tensor to the op that used it (so that torchviz users read them as they are used to).
    `legend=True` (the default for module views, the demo and Jupyter) makes a picture to be
    read on its own: a legend says what colours and arrows mean, constants are drawn, the
    output is at the top so that reading down follows the backward steps 1, 2, 3, and there
    is no size cap (the drawing grows with the graph). Without it (the default for the flat
    graph) the DOT is torchviz's layout, output at the bottom, as code, the lessons and the
    HTML player (which has its own legend) expect. Graphs of more
    than LIGHT nodes get one-line labels (the layout of a few hundred full labels takes
    minutes), and say so. `words` replaces some of the drawing's words (a forward-mode view
    says "tangent" where a gradient is drawn). Returns a `graphviz.Digraph`; `.source` is the
    DOT text.
    """
    import graphviz

    if lang not in VIEW_PHRASES:
        raise ValueError(f"draw(): lang must be one of {sorted(VIEW_PHRASES)}, not {lang!r}")
    words = {**VIEW_PHRASES[lang], **(words or {})}
    trace = _as_trace(tensor_or_trace, params)
    if legend is None:
        legend = depth is not None
    dot = graphviz.Digraph(node_attr=NODE_STYLE, graph_attr=READER_STYLE if legend else
                           dict(size="12,12"), edge_attr=EDGE_STYLE if legend else None)
    if depth is not None:
        from minigrad.teach.module_drawing import draw_modules

        draw_modules(dot, trace, depth, collapse, words, show_grads)
        _outputs_of(dot, trace, show_grads, show_values, words["grad"])
        if legend:
            add_legend(dot, words, modules=True, steps=bool(trace.backwards))
        return dot
    names = _param_names(trace, params)
    steps = trace.step_numbers()
    edge_grads = edge_gradients(trace)
    light = len(trace.nodes) > LIGHT
    if light:
        show_values = show_grads = show_saved = False
        dot.attr(label=words["light"].format(n=len(trace.nodes)), labelloc="t")
        # speed: network-simplex passes capped (dot's ranking and positioning): a 370-node
        # unrolled LSTMCell took 8.8 s of CPU in `dot` with one-line labels, 0.9 s with this
        dot.attr(nslimit="2", nslimit1="2")
    for n in trace.nodes:
        numbers = steps.get(n.id, [])
        when = [words["steps" if len(numbers) > 1 else "step"].format(
            i=", ".join(map(str, numbers)))] if numbers else []
        if n.is_leaf:
            leaf = next((x for x in trace.leaves if x.node == n.id), None)
            label = names.get(n.id, n.label)
            lines = [label] if light else [label, shape_text(n.shape)]
            if show_values and n.value is not None:
                lines.append("= " + compact(n.value))
            if show_grads and leaf is not None and leaf.grad is not None:
                lines.append(f"{words['grad']} " + compact(leaf.grad))
            kind = "param" if (leaf is not None and leaf.is_param) or n.id in names else "leaf"
            dot.node(n.id, fit(lines + when), fillcolor=COLORS[kind])
            continue
        lines = [n.name] if light else [n.name, f"{n.label} = {n.source}"]
        dot.node(n.id, fit(lines + when), fillcolor=COLORS["op"],
                 tooltip=fit([n.line or f"{n.label} = {n.source}"]))
        for i, src in enumerate(n.inputs):
            if src is None:
                if legend and not light and i < len(n.args) and n.args[i] not in ("", "?"):
                    _constant(dot, n, i, words)
                continue
            label = "" if light else _edge_label(trace.node(src), edge_grads.get((n.id, i)),
                                                 show_grads, show_values, words)
            dot.edge(src, n.id, **({"label": label} if label else {}))
        if show_saved:
            for k, (what, value) in enumerate(n.saved):
                sid = f"{n.id}_s{k}"
                dot.node(sid, fit([f"saved {what}", shape_text(np.shape(value))]),
                         fillcolor=COLORS["saved"])
                dot.edge(sid, n.id, style="dashed", arrowhead="none")
    _outputs_of(dot, trace, show_grads, show_values, words["grad"])
    if legend:
        add_legend(dot, words, modules=False, steps=bool(trace.backwards))
    return dot


def _outputs_of(dot: Any, trace: Any, show_grads: bool, show_values: bool,
                grad_word: str = "grad") -> None:
    """A green box for each output a backward pass started from (or, without one, each op
    nothing used)."""
    for b in trace.backwards or [None]:
        roots = b.roots if b is not None else _outputs(trace)
        seeds = b.seeds if b is not None else [None] * len(roots)
        for root, seed in zip(roots, seeds):
            _output_box(dot, trace.node(root), seed, show_grads, show_values, grad_word)


def _constant(dot: Any, node: Any, i: int, words: dict[str, str]) -> None:
    """A constant input (`3` in `t2 * 3`): a white dashed box, no gradient goes to it."""
    cid = f"{node.id}_c{i}"
    dot.node(cid, fit([node.args[i], words["constant"]]), fillcolor="white",
             style="dashed,filled")
    dot.edge(cid, node.id, style="dashed")


def add_legend(dot: Any, words: dict[str, str], modules: bool, steps: bool = True) -> None:
    """One node that says what the colours and the arrows mean (and, when a backward pass
    ran, how the steps go)."""
    rows = [(COLORS["leaf"], words["legend_leaf"]), (COLORS["op"], words["legend_op"]),
            (COLORS["output"], words["legend_output"])]
    rows.append((COLORS["module"], words["legend_module"]) if modules else
                ("white", words["legend_constant"]))
    cells = "".join(f'<tr><td bgcolor="{color}" width="18"> </td>'
                    f'<td align="left">{html.escape(text)}</td></tr>' for color, text in rows)
    text = words["legend_arrow"] + ("\n" + words["legend_steps"] if steps else "")
    arrow = "".join(html.escape(part) + '<br align="left"/>' for part in text.split("\n"))
    table = (f'<<table border="0" cellborder="1" cellspacing="0" cellpadding="3">'
             f'<tr><td colspan="2"><b>{html.escape(words["legend"])}</b></td></tr>{cells}'
             f'<tr><td colspan="2" align="left">{arrow}</td></tr></table>>')
    dot.node("legend", table, shape="plaintext", style="", fillcolor="")


def render(tensor_or_trace: Any, path: str | os.PathLike, format: str | None = None,
           **options: Any) -> Drawing:
    """Draw into `path` as "svg", "png", ... (from the suffix by default), or "dot" text.
    Returns the path as a `Drawing`, which a notebook shows as the picture."""
    path = Drawing(path)
    fmt = (format or path.suffix.lstrip(".") or "svg").lower()
    graph = tensor_or_trace
    if not hasattr(graph, "pipe"):
        graph = draw(tensor_or_trace, **options)
        if fmt not in ("dot", "gv"):  # (an image grows with the graph: no 12-inch cap)
            graph.graph_attr.pop("size", None)
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


def _edge_label(src: Any, grad: Any, show_grads: bool, show_values: bool,
                words: dict[str, str]) -> str:
    lines = []
    if not src.is_leaf:
        lines.append(f"{src.label} {shape_text(src.shape)}")
        if show_values and src.value is not None:
            lines.append("= " + compact(src.value))
    if show_grads and grad is not None:
        lines.append(f"{words['grad']} " + compact(grad))
    return fit(lines)


def _output_box(dot: Any, node: Any, seed: Any, show_grads: bool, show_values: bool,
                grad_word: str = "grad") -> None:
    lines = [node.label, shape_text(node.shape)]
    if show_values and node.value is not None:
        lines.append("= " + compact(node.value))
    if show_grads and seed is not None:
        lines.append(f"{grad_word} " + compact(seed))
    dot.node(f"{node.id}_out", fit(lines), fillcolor=COLORS["output"])
    dot.edge(node.id, f"{node.id}_out")


def _outputs(trace: Any) -> list[str]:
    """Without a backward pass: the op nodes nothing else uses."""
    used = {i for n in trace.nodes for i in n.inputs if i is not None}
    return [n.id for n in trace.nodes if n.id not in used and not n.is_leaf]
