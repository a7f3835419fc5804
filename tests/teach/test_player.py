"""The backward player page (minigrad/player.py) without a browser: its structure, the data
each step carries, the narration cut per step, the fallback without graphviz, no network."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from player_traces import chain, classic

import minigrad
from minigrad.teach import player

ROOT = Path(__file__).resolve().parents[2]


def data_of(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="player-data">(.*?)</script>', page,
                      re.S)
    assert found, "the page carries its steps as JSON"
    return json.loads(found.group(1))


def ids(t):
    return {leaf.label: leaf.node for leaf in t.leaves}


# -- the page -----------------------------------------------------------------------------------
def test_page_has_graph_controls_panel_and_starts_at_step_0(dot_bin):
    t = classic()
    page = t.to_html()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for action in ("prev", "next", "play", "lang"):
        assert len(re.findall(f'<button type="button" data-action="{action}"', page)) == 1
    assert 'id="step-slider"' in page and f'max="{len(t.steps)}"' in page
    assert 'id="step-panel"' in page and '<body data-step="0">' in page
    svg = re.search(r"<svg\b.*?</svg>", page, re.S).group(0)
    titles = re.findall(r'<g id="node\d+" class="node">\s*<title>([^<]*)</title>', svg)
    assert set(titles) == {n.id for n in t.nodes} | {t.backwards[0].roots[0] + "_out"}
    # the SVG file's prologue is gone (its DOCTYPE names a URL); the drawing is not capped
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page and "<!--" not in page


def test_each_step_carries_its_node_edges_and_accumulations():
    t = classic()
    data = data_of(t.to_html(svg=""))
    leaf = ids(t)
    mul, total, times3 = [n.id for n in t.nodes if not n.is_leaf]
    assert [s["node"] for s in data["steps"]] == [s.node for s in t.steps]
    assert [s["node"] for s in data["steps"]] == [times3, total, mul, leaf["x"], leaf["y"]]
    first, _, third, fourth, _ = data["steps"]
    assert first["sent"] == [f"{total}->{times3}"]
    assert first["incoming"] == [f"{times3}->{times3}_out"]  # the seed, from the output box
    assert third["sent"] == [f"{leaf['x']}->{mul}", f"{leaf['y']}->{mul}"]
    assert third["incoming"] == [f"{mul}->{total}"]
    assert fourth["sent"] == [] and fourth["incoming"] == [f"{leaf['x']}->{mul}"]
    assert fourth["acc"] == [[0, None, "tensor([12., 15., 18.])"]]
    assert data["leaves"] == [
        {"label": "x", "shape": "(3,)", "node": leaf["x"], "grad": None},
        {"label": "y", "shape": "(3,)", "node": leaf["y"], "grad": None}]
    # the drawing's "grad ..." labels appear with the step that computes them
    assert sorted(data["reveal"]) == sorted([
        [leaf["x"], 4], [leaf["y"], 5], [f"{leaf['x']}->{mul}", 3], [f"{leaf['y']}->{mul}", 3],
        [f"{mul}->{total}", 2], [f"{total}->{times3}", 1]])


def test_each_step_has_the_narration_of_explain_in_both_languages():
    t = classic()
    text = data_of(t.to_html(svg=""))["text"]
    en, zh = text["en"], text["zh"]
    assert en["intro"].startswith("Forward pass: 3 operations")
    assert en["passes"] == ["Backward pass from out (seed gradient 1, since out is a scalar): "
                            "5 steps"]
    assert en["steps"][2].split("\n") == [
        "MulBackward0   t1 = x * y",
        "at player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)",
        "incoming  d out/d t1 = tensor([3., 3., 3.])",
        "rule      d(a*b)/da = b ;  d(a*b)/db = a",
        "to x      [3., 3., 3.] * y = tensor([12., 15., 18.])",
        "to y      [3., 3., 3.] * x = tensor([3., 6., 9.])"]
    assert en["steps"][3] == "AccumulateGrad x.grad = tensor([12., 15., 18.])   (was None)"
    assert en["ending"].startswith("Leaves: x.grad = tensor([12., 15., 18.])")
    assert zh["steps"][2].split("\n")[2] == "传入梯度  d out/d t1 = tensor([3., 3., 3.])"
    assert zh["passes"][0].startswith("反向传播")
    # every line of every step is the explanation's own line, cut at the same column
    for lang, cut in (("en", text["en"]), ("zh", text["zh"])):
        narration = t.explanation(lang=lang, timing=False)
        for step in cut["steps"]:
            for line in step.split("\n"):
                assert line in narration, (lang, line)


def test_narration_is_cut_right_with_blank_lines_hooks_and_two_passes():
    x = minigrad.tensor(np.arange(8.0, dtype=np.float32).reshape(2, 2, 2), requires_grad=True,
                        name="x")
    w = minigrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    with minigrad.trace() as t:
        for _ in range(2):
            h = x * w
            h.register_hook(lambda g: g * 2)
            h.sum().backward()
    data = data_of(t.to_html(svg=""))
    assert len(data["steps"]) == len(t.steps) == 8
    assert [s["pass"] for s in data["steps"]] == [0] * 4 + [1] * 4
    for lang in ("en", "zh"):
        text = data["text"][lang]
        assert len(text["passes"]) == 2 and len(text["steps"]) == 8
        for step, s in zip(text["steps"], t.steps):
            assert step.startswith(t.node(s.node).name)
    mul = data["text"]["en"]["steps"][1]
    # a 3-d tensor prints with a blank line between its matrices: it stays inside the step
    assert any(not line.strip() for line in mul.split("\n"))
    assert mul.rstrip().endswith("(summed over dims 0, 1 to match w's shape (2,))")
    assert "tensor hook" in mul and "changed the gradient" in mul
    # the second pass adds to what the first left in .grad
    x_acc = [s["acc"][0] for s in data["steps"] if s["acc"] and s["acc"][0][0] == 0]
    assert x_acc[0][1] is None and x_acc[1][1] == x_acc[0][2]


def test_big_gradients_show_statistics_in_each_language():
    w = minigrad.tensor(np.ones((5, 6), dtype=np.float32), requires_grad=True, name="w")
    t = minigrad.trace(lambda: (w * 2).sum())
    data = data_of(t.to_html(svg=""))
    after = data["steps"][-1]["acc"][0][2]
    assert after == {"en": "shape (5, 6), mean 2, |max| 2",
                     "zh": "形状 (5, 6)，均值 2，最大绝对值 2"}


def test_a_trace_without_backward_has_no_steps():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    t = minigrad.trace(x * 2, backward=False)
    data = data_of(t.to_html(svg=""))
    assert data["steps"] == [] and data["text"]["en"]["passes"] == []
    assert "No backward pass was run." in data["text"]["en"]["ending"]


def test_language_and_labels_that_look_like_html():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="</script><b>x")
    t = minigrad.trace(lambda: (x * x).sum())
    page = t.to_html(svg="", lang="zh")
    assert page.count("</script>") == 2  # the data script and the player script
    assert '<html lang="zh-CN">' in page and 'data-ui="next">下一步 ▶</button>' in page
    assert data_of(page)["leaves"][0]["label"] == "</script><b>x"
    with pytest.raises(ValueError, match="lang must be one of"):
        t.to_html(lang="fr")


# -- no graphviz, a drawing given, Jupyter, the demo --------------------------------------------
def test_a_drawing_left_out_says_so_and_the_steps_remain():
    t = classic()
    page = t.to_html(svg="")
    assert "<svg" not in page and 'class="no-graph"' in page
    assert 'The drawing was left out (svg=&quot;&quot;)' in page
    assert '<button type="button" data-action="zoom"' not in page
    assert len(data_of(page)["steps"]) == 5


def test_every_word_of_the_page_is_in_both_languages_and_chinese_reads_as_chinese():
    assert set(player.UI["en"]) == set(player.UI["zh"])
    cjk = re.compile(r"[\u4e00-\u9fff]")
    code_only = {"prev", "next", "play", "pause", "of", "drawn_sep",  # arrows, "/ {n}", "、"
                 "grad_suffix"}  # (".grad", code)
    for key, text in player.UI["zh"].items():
        if key not in code_only and key != "lang":
            assert cjk.search(text), (key, text)
        for name in re.findall(r"\{(\w+)\}", player.UI["en"][key]):
            assert "{" + name + "}" in text, (key, name)
    assert player.UI["zh"]["title"] == "minigrad · 反向传播逐步演示"
    page = classic().to_html(svg="", lang="zh")
    assert "<title>minigrad · 反向传播逐步演示</title>" in page
    assert 'aria-label="步骤"' in page


def test_a_drawing_given_is_inlined_without_its_prologue():
    t = classic()
    svg = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
           '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n'
           ' "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<!-- by hand -->\n'
           '<svg width="10pt" height="10pt" xmlns="http://www.w3.org/2000/svg">\n'
           '<g id="graph0" class="graph">\n<title>%3</title>\n'
           '<g id="node1" class="node"><title>n1</title></g></g></svg>\n')
    page = t.to_html(svg=svg)
    assert '<g id="graph0" class="graph">\n<g id="node1" class="node"><title>n1</title>' in page
    assert "DTD" not in page and "by hand" not in page and "%3" not in page


def test_to_html_writes_the_file_and_jupyter_gets_it_in_an_iframe(tmp_path):
    t = classic()
    path = tmp_path / "player.html"
    page = t.to_html(path)
    assert path.read_text(encoding="utf-8") == page
    shown = t._repr_html_()
    srcdoc = re.fullmatch(r'<iframe srcdoc="([^"]*)" sandbox="allow-scripts" .*</iframe>', shown,
                          re.S)
    assert srcdoc and html.unescape(srcdoc.group(1)) == page


def test_demo_writes_the_player_and_says_where(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "minigrad", "demo", "--no-timing", "--out",
                           "out"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "player.html").read_text(encoding="utf-8")
    assert 'id="step-panel"' in page and len(data_of(page)["steps"]) == 5
    assert f"Backward player written to {Path('out') / 'player.html'}" in done.stdout


# -- nothing from the network -------------------------------------------------------------------
# an attribute that loads something (src, href, xlink:href, srcset, poster, action, data) or a
# CSS url()/@import, pointing at http(s) or a protocol-relative address
REMOTE = re.compile(
    r"""\b(?:src|srcset|href|xlink:href|poster|action|data)\s*=\s*["']?\s*(?:https?:)?//"""
    r"""|url\(\s*["']?\s*(?:https?:)?//|@import""", re.I)
NAMESPACE = re.compile(r"""\bxmlns(?::\w+)?\s*=\s*["']https?://www\.w3\.org/[^"']*["']""")


def no_network(page: str) -> None:
    assert not REMOTE.search(page), REMOTE.search(page)
    assert not re.search(r"<(?:link|iframe|img|object|embed)\b", page, re.I)
    assert not re.search(r"<script\b[^>]*\bsrc\b", page, re.I)
    rest = NAMESPACE.sub("", page)
    assert not re.search(r"https?://", rest), re.search(r".{60}https?://.{60}", rest, re.S)


def test_the_page_loads_nothing_from_the_network(dot_bin):
    no_network(classic().to_html())
    minigrad.manual_seed(0)
    model = minigrad.nn.Sequential(minigrad.nn.Linear(3, 4), minigrad.nn.Tanh(),
                                   minigrad.nn.Linear(4, 1))
    x = minigrad.randn(2, 3)
    no_network(minigrad.trace(lambda: model(x).pow(2).mean(), params=model).to_html())
    big = chain(80)  # over 300 nodes: the player's own drawing
    page = big.to_html()
    assert '<svg class="layered"' in page
    no_network(page)


def test_the_page_without_a_drawing_loads_nothing_from_the_network():
    no_network(classic().to_html(svg=""))


def test_the_no_network_check_catches_remote_loads():
    for bad in ('<script src="https://cdn.example/x.js"></script>',
                '<link rel="stylesheet" href="http://x/y.css">',
                "<style>@import 'a.css';</style>",
                "<style>b { background: url(//x/i.png) }</style>",
                '<image xlink:href="https://x/i.png"/>'):
        with pytest.raises(AssertionError):
            no_network(bad)
    no_network('<svg xmlns="http://www.w3.org/2000/svg" '
               'xmlns:xlink="http://www.w3.org/1999/xlink"></svg>')


def test_assets_keep_the_test_hooks():
    script = player.SCRIPT
    for hook in ("prev:", "next:", "play:", "lang:", "dataset.step", '"current"'):
        assert hook in script
    assert "http" not in script and "fetch(" not in script
