"""Drawing: DOT text without graphviz's binary; real SVG/PNG with it (the `dot_bin` fixture)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from player_traces import classic  # (loss = sum(x * y) * 3, as in the demo)

import minigrad
from minigrad.teach import viz


def small_net():
    minigrad.manual_seed(0)
    model = minigrad.nn.Linear(3, 2)
    x = minigrad.tensor([[1.0, 2.0, 3.0]])
    return model, x


def test_draw_shows_names_steps_and_gradients():
    src = classic().to_dot().source
    for text in ["MulBackward0", "SumBackward0", "t1 = x * y", "out = t2 * 3",
                 "step 1", "step 3", "step 4", "grad [12., 15., 18.]", "grad [3., 6., 9.]",
                 "= [1., 2., 3.]", "fillcolor=darkolivegreen1", "fillcolor=lightblue"]:
        assert text in src, text
    # ids are the trace's node ids: stable, in forward order
    assert re.findall(r"^\t(n\d+\w*) \[", src, re.M) == ["n1", "n2", "n3", "n4", "n5", "n5_out"]
    assert "\tn1 -> n3" in src and "\tn2 -> n3" in src and "\tn5 -> n5_out" in src


def test_intermediate_tensors_carry_their_gradient_on_the_edge():
    src = classic().to_dot().source
    assert 'n3 -> n4 [label="t1 (3,)\n= [ 4., 10., 18.]\ngrad [3., 3., 3.]"]' in src


def test_parameter_names_from_params_on_a_tensor_and_on_a_trace():
    model, x = small_net()
    loss = model(x).sum()
    src = viz.draw(loss, params=dict(model.named_parameters())).source
    assert "weight\n(2, 3)" in src and "bias\n(2,)" in src
    assert "AddmmBackward0" in src and "TBackward0" in src
    assert "step" not in src  # drawn from the graph alone: no backward ran
    t = minigrad.trace(lambda: model(x).sum())
    src = t.to_dot(params=model).source
    assert "weight\n(2, 3)" in src and "grad (2, 3) norm" in src


def test_options_hide_values_and_gradients_and_show_saved_tensors():
    t = classic()
    src = t.to_dot(show_grads=False, show_values=False).source
    assert "grad " not in src and "\n= " not in src
    src = t.to_dot(show_saved=True).source
    assert 'n3_s0 [label="saved x\n(3,)" fillcolor=orange]' in src
    assert "n3_s0 -> n3 [arrowhead=none style=dashed]" in src


def test_large_tensors_show_shape_and_norm():
    w = minigrad.tensor(np.ones((8, 8), np.float32), requires_grad=True, name="w")
    src = minigrad.trace(lambda: (w * 2).sum()).to_dot().source
    assert "grad (8, 8) norm 16" in src


def test_graphviz_is_imported_only_when_drawing():
    code = ("import sys, minigrad; before = 'graphviz' in sys.modules; "
            "x = minigrad.tensor([1.], requires_grad=True); minigrad.viz.draw(x * 2); "
            "print(before, 'graphviz' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "True"]


def test_dot_text_is_written_without_the_binary(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` anywhere
    path = classic().render(tmp_path / "graph.dot")
    assert path.read_text().startswith("digraph {")


def test_missing_dot_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    t = classic()
    with pytest.raises(viz.GraphvizNotFound, match="apt-get install graphviz"):
        t.render(tmp_path / "graph.svg")
    assert t._repr_svg_() is None


def test_render_real_svg_with_node_titles(dot_bin, tmp_path):
    t = classic()
    path = t.render(tmp_path / "graph.svg")
    svg = path.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    titles = re.findall(r'<g id="node\d+" class="node">\s*<title>(\w+)</title>', svg)
    assert sorted(titles) == sorted([n.id for n in t.nodes] + ["n5_out"])

    assert "MulBackward0" in svg and "step 3" in svg
    assert t._repr_svg_().lstrip().startswith("<?xml")


def test_render_png(dot_bin, tmp_path):
    model, x = small_net()
    path = viz.render(model(x).sum(), tmp_path / "net.png", params=model)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_draw_refuses_other_things():
    with pytest.raises(TypeError, match="Tensor or a Trace"):
        viz.draw([1, 2, 3])


def demo_svg(tmp_path, lang: str = "en") -> str:
    from minigrad.__main__ import main

    assert main(["demo", "--out", str(tmp_path), "--lang", lang, "--no-timing"]) == 0
    return (tmp_path / "graph.svg").read_text(encoding="utf-8")


def text_y(svg: str, text: str) -> float:
    """The y of the SVG text element that reads `text`."""
    return float(re.search(r'<text [^>]*y="([-\d.]+)"[^>]*>' + re.escape(text) + "</text>",
                           svg).group(1))


def test_demo_picture_has_a_legend_the_constant_and_steps_in_reading_order(dot_bin, tmp_path,
                                                                           capsys):
    svg = demo_svg(tmp_path)
    assert "How to read this graph" in svg and "Gradients flow back against the arrows" in svg
    assert "<title>n5_c1</title>" in svg and ">constant</text>" in svg  # the 3 of `t2 * 3`
    assert text_y(svg, "step 1") < text_y(svg, "step 2") < text_y(svg, "step 3")
    tooltips = set(re.findall(r'xlink:title="([^"]*)"', svg))
    source = Path(minigrad.__file__).with_name("__main__.py").read_text().splitlines()
    line = source.index("    t = trace(lambda: (x * y).sum() * 3)") + 1
    assert f"__main__.py:{line}: t = trace(lambda: (x * y).sum() * 3)" in tooltips
    assert not any("runpy" in t for t in tooltips)


def test_demo_picture_in_chinese(dot_bin, tmp_path, capsys):
    svg = demo_svg(tmp_path, "zh")
    assert "第 1 步" in svg and "step 1" not in svg and "怎样读这张图" in svg
    assert ">常数</text>" in svg and "梯度 [12., 15., 18.]" in svg


def test_the_picture_to_read_has_constants_a_legend_and_the_output_on_top():
    src = classic().to_dot(legend=True).source
    assert "rankdir=BT" in src and "size=\"" not in src and "How to read this graph" in src
    assert 'n5_c1 [label="3\nconstant" fillcolor=white style="dashed,filled"]' in src
    assert "n5_c1 -> n5 [style=dashed]" in src
    assert "第 3 步" in classic().to_dot(lang="zh").source
    plain = classic().to_dot().source  # (the DOT for code and the player: torchviz's layout)
    assert 'size="12,12"' in plain and "legend" not in plain and "_c1" not in plain
    with pytest.raises(ValueError, match="lang must be one of"):
        classic().to_dot(lang="fr")
