"""The backward player: one HTML page that steps through a Trace's backward pass on its graph.

`page(trace)` draws the graph with graphviz (`viz.draw`: each node's SVG `<title>` is its
node id), takes each step's narration from `explain` in English and in Chinese, works out
what every step changes (the node run, the edges its gradients travel along, the leaves'
`.grad`) and inlines all of it, with the script and style of `player_assets`, into one file
that loads nothing from the network. The script in the page only switches between these
precomputed steps, so a graph of a few hundred nodes steps without lag.

`Trace.to_html(path)` writes the page; `Trace._repr_html_` shows it in Jupyter (`jupyter`).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import numpy as np

from minigrad.teach.explain import PHRASES, SMALL, fast_repr, number, width
from minigrad.teach.player_assets import SCRIPT, STYLE

__all__ = ["jupyter", "page"]

# The page's own words; the narration itself comes from explain.py. "{k}"/"{n}" are filled in
# by the script. The language switch shows the language it switches to.
UI: dict[str, dict[str, str]] = {
    "en": {
        "title": "minigrad · backward player",
        "prev": "◀ Previous", "next": "Next ▶", "play": "▶ Play", "pause": "❚❚ Pause",
        "lang": "中文", "fit": "Fit to window", "actual": "Actual size", "speed": "speed",
        "before": "Before backward", "step": "Step {k} of {n}", "of": "/ {n}",
        "start": "Nothing has run yet. Press Next (or →) to run the first step.",
        "finished": "Backward finished: every step has run.",
        "no_steps": "No backward pass was run, so there is nothing to step through.",
        "leaves": "Leaves' .grad so far", "changed": "changed in this step",
        "legend_current": "running now", "legend_done": "already run",
        "legend_sent": "gradient sent now", "legend_incoming": "gradient coming in",
        "keys": "Keys: ← → step · space play/pause · Home/End · click a node to jump to it",
        "no_graph": "The graph could not be drawn: graphviz's `dot` program was not found "
                    "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz). "
                    "The steps still work; or pass a drawing: trace.to_html(path, svg=...).",
    },
    "zh": {
        "title": "minigrad · 反向传播播放器",
        "prev": "◀ 上一步", "next": "下一步 ▶", "play": "▶ 播放", "pause": "❚❚ 暂停",
        "lang": "English", "fit": "适应窗口", "actual": "原始大小", "speed": "速度",
        "before": "反向传播开始之前", "step": "第 {k} 步（共 {n} 步）", "of": "/ {n}",
        "start": "还没有任何节点运行。按「下一步」（或 →）运行第一步。",
        "finished": "反向传播结束：所有步骤都已运行。",
        "no_steps": "没有运行反向传播，所以没有可以逐步查看的步骤。",
        "leaves": "叶子节点目前的 .grad", "changed": "本步有变化",
        "legend_current": "正在运行", "legend_done": "已运行",
        "legend_sent": "本步传出的梯度", "legend_incoming": "传入的梯度",
        "keys": "按键：← → 单步 · 空格 播放/暂停 · Home/End · 点击节点跳到它运行的那一步",
        "no_graph": "无法画出计算图：没有找到 graphviz 的 `dot` 程序（Debian/Ubuntu："
                    "apt-get install graphviz；macOS：brew install graphviz）。"
                    "逐步讲解照常可用；也可以传入画好的图：trace.to_html(path, svg=...)。",
    },
}


def page(trace: Any, svg: str | None = None, lang: str = "en") -> str:
    """The whole player page for `trace` as one self-contained HTML string.

    `svg`: a drawing of the trace made elsewhere (e.g. `viz.pipe(trace.to_dot())`), whose node
    `<title>`s are the trace's node ids; by default it is drawn here ("" leaves it out). Without
    graphviz's `dot` the page says so in place of the graph, and the steps still work.
    """
    if lang not in UI:
        raise ValueError(f"to_html(): lang must be one of {sorted(UI)}, not {lang!r}")
    if svg is None:
        svg = _draw(trace)
    data = {"lang": lang, "ui": UI, "steps": _steps(trace), "reveal": _reveals(trace),
            "leaves": _leaves(trace), "text": {code: _narration(trace, code) for code in UI}}
    ui = UI[lang]
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
        f"<style>{_closed(STYLE, 'style')}</style>",
        "</head>",
        '<body data-step="0">',
        f'<header>{_words("h1", "title", ui)}<p id="pass-header"></p>{_button("lang", ui)}'
        "</header>",
        "<main>",
        '<div class="left">',
        f'<div class="graph-box{"" if svg else " empty"}"><div id="graph">\n{graph}\n</div>',
        _button("zoom", ui, "actual") if svg else "", "</div>",
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
        "</div>",
        "</main>",
        f'<script type="application/json" id="player-data">{_json(data)}</script>',
        f"<script>{_closed(SCRIPT, 'script')}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def jupyter(trace: Any, height: int = 760) -> str:
    """The page inside an iframe (its own document: its ids, styles and keys stay its own)."""
    return (f'<iframe srcdoc="{html.escape(page(trace), quote=True)}" sandbox="allow-scripts" '
            f'style="width: 100%; height: {height}px; border: 1px solid #ddd; border-radius: 6px"'
            ' title="minigrad backward player"></iframe>')


# -- the drawing ------------------------------------------------------------------------------
def _draw(trace: Any) -> str | None:
    """The SVG of the trace's graph at its natural size (the page scales it), or None."""
    from minigrad.teach import viz

    try:
        graph = trace.to_dot()
        graph.graph_attr.pop("size", None)  # no 12-inch cap: the page zooms instead
        return viz.pipe(graph, "svg").decode("utf-8")
    except (ImportError, viz.GraphvizNotFound):
        return None


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
                        if (node.id, u) in sent_to]
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


def _words(tag: str, key: str, ui: dict[str, str], attrs: str = "") -> str:
    """An element whose text the script swaps when the language changes (`data-ui`)."""
    return f'<{tag}{attrs} data-ui="{key}">{html.escape(ui[key])}</{tag}>'


def _button(action: str, ui: dict[str, str], key: str | None = None) -> str:
    key = key or action
    return f'<button type="button" data-action="{action}" data-ui="{key}">' \
        f"{html.escape(ui[key])}</button>"


def _controls(ui: dict[str, str], steps: int) -> str:
    """Previous, play/pause, next, the step slider and count, the playing speed."""
    speeds = "".join(f'<option value="{ms}"{" selected" if ms == 1000 else ""}>{name}</option>'
                     for ms, name in ((2000, "½×"), (1000, "1×"), (500, "2×"), (200, "5×")))
    return "".join([
        '<nav id="controls">',
        _button("prev", ui), _button("play", ui), _button("next", ui),
        f'<input type="range" id="step-slider" data-action="seek" min="0" max="{steps}" '
        'value="0" aria-label="step">',
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
