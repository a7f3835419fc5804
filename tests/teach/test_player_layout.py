"""The player's own drawing (minigrad/teach/player_layout.py) and when the page uses it: a
layered layout for graphs too big for graphviz, without `dot`, or when `dot` is too slow."""

from __future__ import annotations

import html
import json
import re
import time

import numpy as np
import pytest
from player_traces import chain, classic, mlp

import minigrad
from minigrad.teach import player_drawing, player_layout
from minigrad.teach.records import TraceBackward, TraceModule, TraceNode, TraceStep
from minigrad.teach.trace import Trace


def boxes(svg: str) -> dict[str, tuple[float, float, float, float]]:
    """Node id -> (left, top, right, bottom) of its box in the drawing."""
    out = {}
    for title, points in re.findall(r'<g id="node\d+" class="node">\s*<title>([^<]*)</title>'
                                    r'\s*<polygon [^>]*points="([^"]*)"', svg):
        xy = np.array([[float(v) for v in p.split(",")] for p in points.split()])
        out[title] = (xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max())
    return out


def edges(svg: str) -> list[str]:
    """The edges' titles ("n4->n5"), unescaped as the browser reads them."""
    titles = re.findall(r'<g id="edge\d+" class="edge">\s*<title>([^<]*)</title>', svg)
    return [html.unescape(title) for title in titles]


def note_of(page: str) -> str:
    return html.unescape(re.search(r"<p id=\"layout-note\"[^>]*>(.*?)</p>", page, re.S).group(1))


# -- the layout ---------------------------------------------------------------------------------
def test_every_node_and_edge_is_drawn_as_graphviz_names_them():
    t = classic()
    svg = player_layout.layered_svg(t)
    root = t.backwards[0].roots[0]
    assert set(boxes(svg)) == {n.id for n in t.nodes} | {f"{root}_out"}
    expected = {f"{src}->{n.id}" for n in t.nodes for src in n.inputs if src is not None}
    assert set(edges(svg)) == expected | {f"{root}->{root}_out"}
    assert re.match(r'<svg class="layered" width="[\d.]+pt" height="[\d.]+pt" '
                    r'viewBox="0 0 [\d.]+ [\d.]+"', svg)
    for n in t.nodes:  # each op's name and each step number is written in its box
        group = re.search(rf"<title>{n.id}</title>(.*?)</g>", svg, re.S).group(1)
        assert f">{n.name if not n.is_leaf else n.label}</text>" in group
        assert f">step {t.step_numbers()[n.id][0]}</text>" in group


def test_layers_run_from_the_inputs_down_to_the_output_and_boxes_do_not_overlap():
    t = mlp()
    svg = player_layout.layered_svg(t)
    at = boxes(svg)
    for edge in edges(svg):
        src, user = edge.split("->")
        assert at[src][3] < at[user][1], edge  # every arrow points down
    ordered = sorted(at.values())
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            overlap_x = a[0] < b[2] and b[0] < a[2]
            overlap_y = a[1] < b[3] and b[1] < a[3]
            assert not (overlap_x and overlap_y), (a, b)
    width, height = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    assert all(0 <= a[0] and a[2] <= width and 0 <= a[1] and a[3] <= height for a in ordered)


def test_a_chain_is_drawn_straight_down():
    t = chain(5)
    at = boxes(player_layout.layered_svg(t))
    ops = [n.id for n in t.nodes if n.name == "TanhBackward0"]
    centres = [(at[i][0] + at[i][2]) / 2 for i in ops]
    assert max(centres) - min(centres) < 1  # one column: no zigzag
    assert [at[i][1] for i in ops] == sorted(at[i][1] for i in ops)


def test_boxes_are_coloured_as_viz_colours_them_in_colours_svg_knows():
    t = classic()
    fills = dict(re.findall(r'<title>([^<]*)</title><polygon fill="([^"]*)"',
                            player_layout.layered_svg(t)))
    root = t.backwards[0].roots[0]
    leaf = t.leaves[0].node
    assert (fills[root], fills[leaf], fills[f"{root}_out"]) == ("#d3d3d3", "#add8e6", "#caff70")


def test_a_trace_of_nothing_is_an_empty_drawing(monkeypatch):
    monkeypatch.setattr(player_drawing, "find_dot", lambda: None)
    with minigrad.trace() as t:
        pass
    page = t.to_html()
    assert '<svg class="layered"' in page and boxes(page) == {}


def test_labels_that_look_like_html_are_escaped():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="<b>x&")
    svg = player_layout.layered_svg(minigrad.trace(lambda: (x * x).sum()))
    assert "<b>" not in svg and "&lt;b&gt;x&amp;" in svg


def test_top_level_modules_get_a_box_around_their_nodes():
    nodes = [TraceNode("n1", "AccumulateGrad", "fc1.weight", shape=(2,), module="fc1"),
             TraceNode("n2", "MulBackward0", "t1", inputs=["n1", None], args=["w", "3"],
                       shape=(2,), module="fc1"),
             TraceNode("n3", "TanhBackward0", "t2", inputs=["n2"], shape=(2,), module="act"),
             TraceNode("n4", "SumBackward0", "out", inputs=["n3"], shape=())]
    steps = [TraceStep(k + 1, n) for k, n in enumerate(["n4", "n3", "n2", "n1"])]
    t = Trace.from_records(nodes, [], [TraceBackward(["n4"], [None], steps)],
                           modules=[TraceModule("", "Net"), TraceModule("fc1", "Linear"),
                                    TraceModule("act", "Tanh")])
    svg = player_layout.layered_svg(t)
    at = boxes(svg)
    found = re.findall(r'<g class="module"><title>([^<]*)</title><rect x="([\d.]+)" '
                       r'y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    assert [f[0] for f in found] == ["fc1", "act"]
    for name, x, y, w, h in found:
        x, y, w, h = map(float, (x, y, w, h))
        inside = [i for i, n in zip(("n1", "n2", "n3"), nodes) if n.module == name]
        for i in inside:
            left, top, right, bottom = at[i]
            assert x <= left and right <= x + w and y <= top and bottom <= y + h, (name, i)
    assert ">fc1 · Linear</text>" in svg and ">act · Tanh</text>" in svg


def module_rects(svg: str) -> dict[str, tuple[float, float, float, float]]:
    """Module path -> (left, top, right, bottom) of its box."""
    found = re.findall(r'<g class="module"><title>([^<]*)</title><rect x="([\d.]+)" '
                       r'y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    return {name: (float(x), float(y), float(x) + float(w), float(y) + float(h))
            for name, x, y, w, h in found}


def test_each_top_level_module_gets_a_band_of_its_own():
    """Linear, Tanh, Linear: the second Linear's weight goes through TBackward0 alongside the
    first Linear and the Tanh; its box is lifted below them, so the boxes do not overlap."""
    t = mlp()
    for n in t.nodes:
        made = n.label + " " + n.source
        n.module = ("0" if "0." in made or n.label in ("t1", "t2") else
                    "1" if n.name == "TanhBackward0" else
                    "2" if "2." in made or n.label in ("t4", "t5") else "")
    t.modules = {path: TraceModule(path, kind) for path, kind in
                 (("", "Sequential"), ("0", "Linear"), ("1", "Tanh"), ("2", "Linear"))}
    svg = player_layout.layered_svg(t)
    rects = module_rects(svg)
    assert list(rects) == ["0", "1", "2"]
    ordered = list(rects.values())
    for upper, lower in zip(ordered, ordered[1:]):
        assert upper[3] < lower[1], (upper, lower)  # one band below the other
    at = boxes(svg)
    for n in t.nodes:
        if n.module:
            left, top, right, bottom = rects[n.module]
            assert left <= at[n.id][0] and at[n.id][2] <= right
            assert top <= at[n.id][1] and at[n.id][3] <= bottom


# -- which drawing the page uses ----------------------------------------------------------------
def test_a_small_graph_is_drawn_by_graphviz_and_the_page_says_so(dot_bin):
    page = classic().to_html()
    assert 'class="layered"' not in page and "<svg" in page
    assert note_of(page) == "Drawn by graphviz (dot)."


def test_a_big_graph_is_laid_out_by_the_player_without_running_dot(monkeypatch):
    def no_dot_please(*args, **kwargs):
        raise AssertionError("dot must not run for a big graph")

    monkeypatch.setattr(player_drawing, "graphviz_svg", no_dot_please)
    t = chain(250)
    assert len(t.nodes) > 1000
    start = time.perf_counter()
    page = t.to_html()
    seconds = time.perf_counter() - start
    print(f"to_html of {len(t.nodes)} nodes: {seconds:.2f} s")
    assert '<svg class="layered"' in page
    assert len(boxes(page)) == len(t.nodes) + 1
    assert note_of(page).startswith(f"Laid out by minigrad's own layered layout: "
                                    f"{len(t.nodes)} nodes")
    words = json.loads(html.unescape(re.search(r'data-fill="([^"]*)"', page).group(1)))
    assert words == {"nodes": len(t.nodes), "limit": player_drawing.GRAPHVIZ_MAX_NODES}


def test_without_dot_the_player_lays_the_graph_out_itself(monkeypatch):
    monkeypatch.setattr(player_drawing, "find_dot", lambda: None)
    page = classic().to_html(lang="zh")
    assert '<svg class="layered"' in page
    assert "apt-get install graphviz" in note_of(page) and "没有找到" in note_of(page)


def test_when_dot_is_too_slow_the_player_lays_the_graph_out_itself(monkeypatch, tmp_path):
    slow = tmp_path / "dot"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setattr(player_drawing, "find_dot", lambda: str(slow))
    monkeypatch.setattr(player_drawing, "GRAPHVIZ_SECONDS", 0.5)
    start = time.perf_counter()
    page = classic().to_html()
    assert time.perf_counter() - start < 20
    assert '<svg class="layered"' in page
    assert "graphviz took longer than 0.5 s" in note_of(page)


def test_when_dot_fails_the_player_lays_the_graph_out_itself(monkeypatch, tmp_path):
    failing = tmp_path / "dot"
    failing.write_text("#!/bin/sh\necho 'Error: syntax error in line 1' >&2\nexit 1\n")
    failing.chmod(0o755)
    monkeypatch.setattr(player_drawing, "find_dot", lambda: str(failing))
    page = classic().to_html()
    assert '<svg class="layered"' in page
    assert "graphviz's `dot` program failed on this graph" in note_of(page)


@pytest.mark.parametrize("svg", ["", "<svg><g id='graph0' class='graph'></g></svg>"])
def test_a_drawing_given_or_left_out_needs_no_layout(monkeypatch, svg):
    monkeypatch.setattr(player_drawing, "find_dot", lambda: None)
    page = classic().to_html(svg=svg)
    assert 'class="layered"' not in page and 'id="layout-note"' not in page
