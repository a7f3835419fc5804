"""The backward player: one HTML page that steps through a Trace's backward pass on its graph.

`page(trace)` draws the graph (`player_drawing`: graphviz's drawing for a small graph, the
player's own layered layout for a big one; each node's SVG `<title>` is its node id), takes
each step's narration from `explain` in English and in Chinese, works out what every step
changes (the node run, the edges its gradients travel along, the leaves' `.grad`) and inlines
all of it, with the script and style of `player_assets` and the words of `player_words`, into
one file that loads nothing from the network. The script in the page only switches between
these precomputed steps, so a graph of a thousand nodes steps without lag.

`Trace.to_html(path)` writes the page; `Trace._repr_html_` shows it in Jupyter (`jupyter`).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import numpy as np

from minigrad.teach.display import iframe
from minigrad.teach.explain import PHRASES, SMALL, fast_repr, number, width
from minigrad.teach.player_assets import SCRIPT, STYLE
from minigrad.teach.player_assets.memory_bar import MEMORY_SCRIPT, MEMORY_STYLE
from minigrad.teach.player_drawing import drawing
from minigrad.teach.player_memory import memory_data, memory_section
from minigrad.teach.player_words import UI

__all__ = ["jupyter", "page"]

def page(trace: Any, svg: str | None = None, lang: str = "en",
         words: dict[str, dict[str, str]] | None = None) -> str:
    """The whole player page for `trace` as one self-contained HTML string.

    `svg`: a drawing of the trace made elsewhere (e.g. `viz.pipe(trace.to_dot())`), whose node
    `<title>`s are the trace's node ids; by default it is drawn here ("" leaves it out), and
    the page says how: by graphviz, or by its own layout (a big graph, no `dot`, `dot` slow).
    `words` replaces some of the page's words per language (the forward-mode player's).
    """
    if lang not in UI:
        raise ValueError(f"to_html(): lang must be one of {sorted(UI)}, not {lang!r}")
    ui_all = {code: {**UI[code], **(words or {}).get(code, {})} for code in UI}
    note = ""
    if svg is None:
        svg, key, values = drawing(trace)
        note = _words("p", key, ui_all[lang], ' id="layout-note"', values)
    data = {"lang": lang, "ui": ui_all, "steps": _steps(trace), "reveal": _reveals(trace),
            "leaves": _leaves(trace), "text": {code: _narration(trace, code) for code in UI},
            "memory": memory_data(trace)}
    ui = ui_all[lang]
    if svg:
        graph = _inline_svg(svg)
    else:
        graph = f'<p class="no-graph" data-ui="no_graph">{html.escape(ui["no_graph"])}</p>'
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else lang}">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(ui['title'])}</title>",
        f"<style>{_closed(STYLE, 'style')}{_closed(MEMORY_STYLE, 'style')}</style>",
        "</head>",
        '<body data-step="0">',
        f'<header>{_words("h1", "title", ui)}<p id="pass-header"></p>{_button("lang", ui)}'
        "</header>",
        "<main>",
        '<div class="left">',
        _zoom(ui) if svg else "",
        f'<div class="graph-box{"" if svg else " empty"}"><div id="graph">\n{graph}\n</div>',
        "</div>",
        note,
        _controls(ui, len(trace.steps)),
        _legend(ui) if svg else "",
        _words("p", "keys", ui, ' class="keys"'),
        "</div>",
        '<div class="right">',
        '<section id="step-panel" aria-live="polite"><h2 id="step-title"></h2>',
        '<p id="step-hint"></p><pre id="step-text"></pre></section>',
        f'<section id="leaves">{_words("h2", "leaves", ui)}',
        '<div class="table-box"><table id="leaf-grads"><tbody></tbody></table></div>',
        "</section>",
        memory_section(lang),
        "</div>",
        "</main>",
        f'<script type="application/json" id="player-data">{_json(data)}</script>',
        f"<script>{_closed(SCRIPT + MEMORY_SCRIPT, 'script')}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def jupyter(trace: Any, height: int = 760) -> str:
    """The page inside a sandboxed iframe (its own document: its ids, styles and keys stay
    its own)."""
    return iframe(page(trace), height)


# -- the drawing ------------------------------------------------------------------------------
def _inline_svg(svg: str) -> str:
    """graphviz's SVG file as an element for HTML: no XML prologue, DOCTYPE or comments."""
    svg = re.sub(r"<\?xml.*?\?>|<!DOCTYPE[^>]*>|<!--.*?-->", "", svg, flags=re.S)
    svg = re.sub(r'(<g id="graph0" class="graph"[^>]*>\s*)<title>[^<]*</title>\s*', r"\1", svg)
    return svg.strip()


# -- what each step changes -------------------------------------------------------------------
def _steps(trace: Any) -> list[dict[str, Any]]:
    """Per step: the node run, the edges its gradients go out along and came in along, and
    the `.grad` accumulations (row, before, after)."""
    nodes = {n.id: n for n in trace.nodes}
    users: dict[str, list[str]] = {}
    for n in trace.nodes:
        for src in dict.fromkeys(i for i in n.inputs if i is not None):
            users.setdefault(src, []).append(n.id)
    rows = _rows(trace)
    out = []
    for p, backward in enumerate(trace.backwards):
        sent_to: set[tuple[str, str]] = set()  # (input, user) pairs a gradient went along
        for s in backward.steps:
            node = nodes[s.node]
            sent = []
            for i, src in enumerate(node.inputs):
                if src is not None and i < len(s.grad_inputs) and s.grad_inputs[i] is not None:
                    sent.append(f"{src}->{node.id}")
                    sent_to.add((src, node.id))
            incoming = [f"{node.id}->{u}" for u in users.get(node.id, [])
                        if (node.id, u) in sent_to or getattr(backward, "forward", False)]
            if node.id in backward.roots:
                incoming.append(f"{node.id}->{node.id}_out")
            out.append({"node": node.id, "name": node.name, "pass": p,
                        "sent": list(dict.fromkeys(sent)), "incoming": incoming,
                        "acc": [[rows[a.leaf], _value(a.before), _value(a.after)]
                                for a in s.accumulations]})
    return out


def _reveals(trace: Any) -> list[list[Any]]:
    """[SVG title, step]: the drawing's "grad ..." labels stay hidden until that step (the
    last one running the node that computes them: an edge's op, or a leaf's AccumulateGrad)."""
    last: dict[str, int] = {}
    for k, s in enumerate(trace.steps, start=1):
        last[s.node] = k
    reveal = []
    for n in trace.nodes:
        if n.id not in last:
            continue
        if n.is_leaf:
            reveal.append([n.id, last[n.id]])
        for src in dict.fromkeys(i for i in n.inputs if i is not None):
            reveal.append([f"{src}->{n.id}", last[n.id]])
    return reveal


def _rows(trace: Any) -> dict[str, int]:
    """Leaf label -> row of the leaves' table (tensors with retain_grad() come after)."""
    rows = {leaf.label: k for k, leaf in enumerate(trace.leaves)}
    for s in trace.steps:
        for a in s.accumulations:
            rows.setdefault(a.leaf, len(rows))
    return rows


def _leaves(trace: Any) -> list[dict[str, Any]]:
    """The table's rows: label, shape and `.grad` before the first step."""
    first: dict[str, Any] = {}
    for s in trace.steps:
        for a in s.accumulations:
            first.setdefault(a.leaf, a)
    by_label = {leaf.label: leaf for leaf in trace.leaves}
    out = []
    for label in _rows(trace):
        leaf = by_label.get(label)
        grad = first[label].before if label in first else (leaf.grad if leaf else None)
        shape = leaf.shape if leaf is not None else np.shape(first[label].after)
        out.append({"label": label, "shape": str(tuple(int(d) for d in shape)),
                    "node": leaf.node if leaf is not None else None, "grad": _value(grad)})
    return out


def _value(a: Any) -> Any:
    """A gradient as the narration shows it: values when small, else shape and statistics
    (then one text per language)."""
    if a is None:
        return None
    a = np.asarray(a)
    if a.size <= SMALL:
        return fast_repr(a)
    with np.errstate(all="ignore"):
        f = a.astype(np.float64)
        mean, absmax = number(f.mean()), number(np.abs(f).max())
    shape = str(tuple(int(d) for d in a.shape))
    return {code: PHRASES[code]["stats"].format(shape=shape, mean=mean, absmax=absmax)
            for code in UI}


# -- the narration, step by step ----------------------------------------------------------------
def _narration(trace: Any, lang: str) -> dict[str, Any]:
    """explain()'s text cut into: the forward part, each pass's heading, each step's lines
    (without the "step k" in front: the page shows that), and the ending (leaves, summary)."""
    lines = trace.explanation(lang=lang, timing=False).split("\n")
    blocks: list[list[str]] = []  # a block starts at an unindented line
    for line in lines:
        if line and not line[0].isspace() or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    blocks = [_trim(b) for b in blocks]
    passes = len(trace.backwards)
    headings, steps = [], []
    for backward, block in zip(trace.backwards, blocks[1:1 + passes]):
        headings.append(block[0])
        chunks: list[list[str]] = []
        for line in block[1:]:
            if re.match(r"  \S", line):  # "  step 3  MulBackward0 ..." starts a step
                chunks.append([line])
            elif chunks:
                chunks[-1].append(line)
        if len(chunks) != len(backward.steps):  # the narration's layout changed: say less
            chunks = [[f"  {s.index}  {trace.node(s.node).name}"] for s in backward.steps]
        steps += [_dedent(chunk, trace.node(s.node).name)
                  for chunk, s in zip(chunks, backward.steps)]
    ending = ["\n".join(b) for b in blocks[1 + passes:]]
    return {"intro": "\n".join(blocks[0]) if blocks else "", "passes": headings,
            "steps": steps, "ending": "\n".join(ending)}


def _trim(block: list[str]) -> list[str]:
    while block and not block[-1].strip():
        block = block[:-1]
    return block


def _dedent(chunk: list[str], name: str) -> str:
    """A step's lines with the "  step k  " column taken off, so they start with the node."""
    first = chunk[0]
    at = first.find(name)
    if at < 0:
        return "\n".join(line.strip() if k == 0 else line[2:] for k, line in enumerate(chunk))
    cut = width(first[:at])  # the narration indents continuation lines this many columns
    rest = [line[cut:] if line[:cut].isspace() else line.lstrip() for line in chunk[1:]]
    return "\n".join([first[at:]] + rest)


# -- assembling ---------------------------------------------------------------------------------
def _closed(text: str, tag: str) -> str:
    """The script or style as it goes between its tags (where "</tag" would end it early)."""
    if f"</{tag}" in text.lower():
        raise ValueError(f"the player's {tag} must not contain </{tag}")
    return text


def _words(tag: str, key: str, ui: dict[str, str], attrs: str = "",
           values: dict[str, Any] | None = None) -> str:
    """An element whose text the script swaps when the language changes (`data-ui`), filled
    in with `values` (kept in `data-fill` for the other language)."""
    if values:
        attrs += f' data-fill="{html.escape(_json(values), quote=True)}"'
    text = ui[key].format(**values) if values else ui[key]
    return f'<{tag}{attrs} data-ui="{key}">{html.escape(text)}</{tag}>'


def _button(action: str, ui: dict[str, str], key: str | None = None, attrs: str = "") -> str:
    key = key or action
    return f'<button type="button" data-action="{action}"{attrs} data-ui="{key}">' \
        f"{html.escape(ui[key])}</button>"


def _zoom(ui: dict[str, str]) -> str:
    """The whole graph in the box, its width in the box (scroll down), the step's node and
    edges in the box (zoomed anew at each step), or its natural size."""
    buttons = "".join(_button("zoom", ui, f"zoom_{how}", f' data-zoom="{how}"')
                      for how in ("whole", "width", "step", "actual"))
    return f'<div class="zoom" role="group" data-ui-label="zoom" aria-label="' \
        f'{html.escape(ui["zoom"])}">{buttons}</div>'


def _controls(ui: dict[str, str], steps: int) -> str:
    """Previous, play/pause, next, the step slider and count, the playing speed."""
    speeds = "".join(f'<option value="{ms}"{" selected" if ms == 1000 else ""}>{name}</option>'
                     for ms, name in ((2000, "½×"), (1000, "1×"), (500, "2×"), (200, "5×")))
    return "".join([
        '<nav id="controls">',
        _button("prev", ui), _button("play", ui), _button("next", ui),
        f'<input type="range" id="step-slider" data-action="seek" min="0" max="{steps}" '
        f'value="0" data-ui-label="slider" aria-label="{html.escape(ui["slider"])}">',
        '<span id="step-count">0</span>',
        f'<label class="speed">{_words("span", "speed", ui)}',
        f'<select data-action="speed">{speeds}</select></label>',
        "</nav>"])


def _legend(ui: dict[str, str]) -> str:
    keys = "".join(f'<span class="key {name}"><i></i>{_words("span", "legend_" + name, ui)}'
                   "</span>" for name in ("current", "done", "sent", "incoming"))
    return f'<div class="legend">{keys}</div>'


def _json(data: Any) -> str:
    """JSON safe inside <script>: no "<" (so no "</script>" or "<!--"), no line separators."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace("\u2028", "\\u2028")
            .replace("\u2029", "\\u2029"))
