"""Real models at readable size: depth views' box counts, "x N" collapse, focus boundaries,
the summary table's order and warnings, source lines; measured on `tests/teach/models.py`."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.teach import models
from tests.teach.test_modules import module_boxes


@pytest.fixture(scope="module")
def resnet():
    return models.resnet_trace()


def drawn_nodes(src: str) -> list[str]:
    """Every node of the DOT text but the legend."""
    return [n for n in re.findall(r"^\t(\w+) \[", src, re.M)
            if n not in ("legend", "graph", "node", "edge")]


def test_resnet18_depth_1_is_one_box_per_stage(resnet):
    assert len(resnet.nodes) == 134  # (the size the issue measured)
    src = resnet.to_dot(depth=1).source
    assert [b.split()[0] for b in module_boxes(src)] == [
        "conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4", "avgpool", "fc"]
    assert len(drawn_nodes(src)) <= 15
    assert "layer3  Sequential\n33,088 params\nin (2, 16, 4, 4) → out (2, 32, 2, 2)" in src


def test_resnet18_depth_2_collapses_identical_blocks(resnet):
    src = resnet.to_dot(depth=2).source
    boxes = module_boxes(src)
    assert "layer1.0–1  BasicBlock  x 2" in boxes  # (layer2.0 downsamples: not like layer2.1)
    assert "layer2.0  BasicBlock" in boxes and "layer2.1  BasicBlock" in boxes
    assert len(drawn_nodes(src)) <= 40
    assert all(f"subgraph cluster_layer{k}" in src for k in range(1, 5))
    assert "x 2" not in resnet.to_dot(depth=2, collapse=False).source


def test_transformer_layers_collapse_and_an_lstm_is_one_box():
    src = models.transformer_trace().to_dot(depth=2).source
    assert "encoder.layers.0–1  TransformerEncoderLayer  x 2" in module_boxes(src)
    lstm = models.lstm_trace()
    assert [b.split()[0] for b in module_boxes(lstm.to_dot(depth=1).source)] == [
        "embed", "lstm", "head"]
    cnn = models.cnn_trace().to_dot(depth=2).source
    assert [b.split()[0] for b in module_boxes(cnn)] == [
        "features.0", "features.1", "features.2", "features.3", "features.4", "features.5",
        "classifier.0", "classifier.1"]


def test_focus_explains_only_that_stage(resnet):
    part = resnet.focus("layer3")
    assert {n.module for n in part.nodes if not n.is_leaf} <= {
        m for m in resnet.modules if m.startswith("layer3.")}
    assert set(part.modules) == {m for m in resnet.modules if m.startswith("layer3")}
    (inp,) = [leaf for leaf in part.leaves if not leaf.is_param]  # what layer2 gave it
    sent = [g for s in resnet.steps if resnet.node(s.node).module.startswith("layer3")
            for src, g in zip(resnet.node(s.node).inputs, s.grad_inputs) if src == inp.node]
    np.testing.assert_allclose(inp.grad, sum(sent), rtol=1e-6)
    (root,) = part.backwards[0].roots  # what it gave layer4, seeded with layer4's gradient
    step = next(s for s in resnet.steps if s.node == root)
    assert part.backwards[0].seeds[0] is step.grad_outputs[0]
    text = part.explanation(timing=False)
    assert "layer4" not in text and "layer2" not in text and "layer3.1.conv2.weight" in text
    assert "layer3.1  BasicBlock" in part.to_dot(depth=2).source
    assert "layer3.1.conv2.weight" in part.to_html()  # (the player plays it)


def test_summary_puts_the_vanishing_layer_on_top():
    text = models.sigmoid_trace().explanation(timing=False)
    lines = text.splitlines()
    assert lines[0] == ("Gradients by module, suspects first (11 modules with parameters, "
                        "56 backward steps):")
    assert lines[1].split() == ["module", "type", "params", "|grad|", "|grad|/|weight|",
                                "steps", "warning"]
    first = lines[2].split()
    assert first[:2] == ["0", "Linear"] and "vanishing:" in lines[2]
    flagged = [row.split()[0] for row in lines[2:13] if "vanishing" in row]
    assert flagged == ["0", "2", "4", "6", "8", "10", "12"]  # deepest first, as it shrinks
    assert lines[12].split()[0] == "20" and "vanishing" not in lines[12]
    zh = models.sigmoid_trace().explanation("zh", timing=False).splitlines()
    assert zh[0].startswith("各模块的梯度，可疑的排在最前")
    assert "梯度消失：只有模块 20 的 1/" in zh[2]


def test_summary_flags_none_and_frozen_gradients():
    import minigrad as mg

    mg.manual_seed(0)
    model = models.sigmoid_net(layers=3, width=4)
    model[0].weight.requires_grad_(False)  # frozen: not in the graph, still in the module
    x = mg.randn(3, 4)
    t = mg.trace(lambda: model(x).sum())
    t.leaf("4.weight").grad = None  # (as a recording where backward never reached it)
    lines = t.explanation(timing=False, summary=True).splitlines()
    assert lines[2].split()[0] == "4" and "no gradient (None)" in lines[2]
    assert lines[3].split()[0] == "0" and "frozen: some parameters have requires_grad=False" \
        in lines[3]
    assert "warning" in lines[1] and all("vanishing" not in line for line in lines[2:6])


def test_source_lines_in_the_forward_listing_and_each_step():
    text = models.sigmoid_trace().explanation(timing=False)
    assert "(at models.py:" in text  # forward listing: the line that ran the model
    step = text[text.index("  step 3 "):]
    assert step.splitlines()[1].strip().startswith("at models.py:")
    block = models.resnet_trace().explanation(timing=False)
    assert "at models.py:35: out = self.bn2(self.conv2(out))" in block
    assert "\n ▸ layer4.1.bn2  BatchNorm2d\n" in block  # steps grouped by module


def test_a_310_node_lstm_cell_is_drawn_with_light_labels(dot_bin, tmp_path):
    """(Its time is read from `python -m compare trace-cost --only lstm-cell`.)"""
    t = models.lstm_cell_trace(steps=20)
    assert 300 < len(t.nodes) <= 320  # (over LIGHT = 300: one-line labels)
    svg = t.render(tmp_path / "lstm.svg").read_text()
    assert "drawn with light labels" in svg
    assert len(drawn_nodes(t.to_dot(depth=1).source)) <= 5


def test_a_drawn_file_grows_with_the_graph(dot_bin, tmp_path, resnet):
    svg = resnet.render(tmp_path / "resnet.svg").read_text()
    height = float(re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', svg).group(1))
    assert height > 12 * 72 * 2  # (it was capped at 12 inches: a 214x864 pt sliver)


@pytest.mark.parametrize("make, part", [(models.transformer_trace, "encoder.layers.1"),
                                        (models.lstm_trace, "lstm"),
                                        (models.cnn_trace, "classifier")])
def test_focus_on_a_part_of_each_model(make, part):
    t = make()
    focused = t.focus(part)
    made = {n.module for n in focused.nodes if not n.is_leaf}
    assert made and all(m == part or m.startswith(part + ".") for m in made)
    ids = {n.id for n in focused.nodes}
    assert all(i in ids for n in focused.nodes for i in n.inputs if i is not None)
    outside = [n.label for n in focused.nodes if n.attrs.get("boundary") == "input"]
    assert outside and all(focused.leaf(label).grad is not None for label in outside)
    assert {s.node for s in focused.steps} <= ids and focused.explanation(timing=False)
