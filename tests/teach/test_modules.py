"""Modules in every trace: each op knows the module that ran it (`TraceNode.module`), the
trace lists the modules (`Trace.modules`), and the views built on them (depth boxes, "x N",
focus, the summary) work from records alone, built by hand as well as from minigrad models."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.teach.trace import Trace, TraceBackward, TraceLeaf, TraceModule, TraceNode, TraceStep
from tests.teach import models


def module_boxes(dot_source: str) -> list[str]:
    """The labels' first lines of the module boxes in DOT text."""
    return re.findall(r'\[label="([^"\n]*)\n[^"]*" fillcolor=lightyellow', dot_source)


def test_module_paths_are_recorded_as_torchvision_names_them():
    t = models.resnet_trace()
    assert list(t.modules)[:8] == ["", "conv1", "bn1", "relu", "maxpool", "layer1", "layer1.0",
                                   "layer1.0.conv1"]
    assert t.modules["layer2.0.downsample.0"].type == "Conv2d"
    assert t.modules["layer2.0.conv1"].params == ["layer2.0.conv1.weight"]
    assert t.modules["layer1.0.relu"].calls == 2  # (a BasicBlock uses its ReLU twice)
    convs = [n for n in t.nodes if n.name == "ConvolutionBackward0"]
    assert convs[0].module == "conv1" and convs[-1].module == "layer4.1.conv2"
    assert {n.module for n in t.nodes if n.name == "AddBackward0"} == {
        f"layer{k}.{b}" for k in range(1, 5) for b in (0, 1)}
    leaf = next(n for n in t.nodes if n.label == "layer3.1.bn2.bias")
    assert leaf.is_leaf and leaf.module == "layer3.1.bn2"  # (a parameter: its owner)
    assert next(n for n in t.nodes if n.name == "MeanBackward0").module == ""  # (outside)


def test_an_unrolled_cell_is_one_module_called_many_times():
    t = models.lstm_cell_trace(steps=5)
    assert t.modules["cell"].calls == 5 and t.modules["head"].calls == 1
    assert t.modules["cell"].params == ["cell.weight_ih", "cell.weight_hh", "cell.bias_ih",
                                        "cell.bias_hh"]


def test_a_loss_module_next_to_the_model_is_named_by_its_class():
    model, loss_fn = nn.Linear(3, 1), nn.MSELoss()
    x = mg.randn(4, 3)
    t = mg.trace(lambda: loss_fn(model(x), mg.zeros(4, 1)))
    assert [(m.path, m.type) for m in t.modules.values()] == [("", "Linear"),
                                                             ("MSELoss", "MSELoss")]
    assert t.node(t.backwards[0].roots[0]).module == "MSELoss"


def test_no_stack_is_kept_when_nobody_listens():
    seen = []

    class Spy(nn.Module):
        def forward(self, x):
            seen.append(len(stack))
            return x * 2

    stack: list = []  # (no trace yet: nothing may be pushed anywhere)
    Spy()(mg.ones(2))
    with mg.trace() as t:
        stack = t._recorder.module_calls.stack
        nn.Sequential(Spy())(mg.ones(2, requires_grad=True))
    assert seen == [0, 2] and stack == []


def test_a_module_call_is_announced_by_two_events_also_when_it_raises():
    class Fails(nn.Module):
        def forward(self, x):
            raise ValueError("no")

    got = []
    with mg.events.listen(got.append):
        nn.Sequential(nn.Identity())(mg.ones(2))
        with pytest.raises(ValueError, match="no"):
            Fails()(mg.ones(2))
    assert [(type(e).__name__, type(e.module).__name__) for e in got] == [
        ("ModuleBegin", "Sequential"), ("ModuleBegin", "Identity"), ("ModuleEnd", "Identity"),
        ("ModuleEnd", "Sequential"), ("ModuleBegin", "Fails"), ("ModuleEnd", "Fails")]


def test_without_a_listener_modules_run_as_before(monkeypatch):
    def refuse(*args):
        raise AssertionError("the call stack was kept while nobody listened")

    monkeypatch.setattr(nn.Module, "_call_announced", refuse)
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    assert model(mg.ones(1, 3)).shape == (1, 2)  # (one truth test, no push, no pop)
    with pytest.raises(AssertionError, match="nobody listened"), mg.events.listen(print):
        model(mg.ones(1, 3))


def test_a_trace_without_modules_still_draws_and_explains():
    x = mg.tensor([1.0, 2.0], requires_grad=True, name="x")
    t = mg.trace(lambda: (x * 3).sum())
    assert t.modules == {} and "x" in t.to_dot(depth=1).source
    assert not t.explanation(summary=True).startswith("Gradients by module")
    with pytest.raises(ValueError, match="no module 'fc'"):
        t.focus("fc")


def hand_made() -> Trace:
    """`out = fc(block(x)).sum()`, as another engine might fill the records."""
    g = np.ones(2, np.float32)
    nodes = [TraceNode("n1", "AccumulateGrad", "x", shape=(2,), value=g),
             TraceNode("n2", "AccumulateGrad", "block.w", shape=(2,), value=g),
             TraceNode("n3", "MulBackward0", "t1", inputs=["n1", "n2"], args=["x", "block.w"],
                       shape=(2,), module="block.lin"),
             TraceNode("n4", "ReluBackward0", "t2", inputs=["n3"], args=["t1"], shape=(2,),
                       module="block.act"),
             TraceNode("n5", "SumBackward0", "out", inputs=["n4"], args=["t2"], shape=(),
                       module="head")]
    steps = [TraceStep(1, "n5", [np.float32(1)], [g]), TraceStep(2, "n4", [g], [g]),
             TraceStep(3, "n3", [g], [g, g]), TraceStep(4, "n1", [g]), TraceStep(5, "n2", [g])]
    modules = [TraceModule("block", "Block"), TraceModule("block.lin", "Mul", ["block.w"]),
               TraceModule("block.act", "ReLU"), TraceModule("head", "Sum")]
    leaves = [TraceLeaf("x", "n1", (2,), g, g), TraceLeaf("block.w", "n2", (2,), g, g, True)]
    return Trace.from_records(nodes, leaves, [TraceBackward(["n5"], [np.float32(1)], steps)],
                              engine="PyTorch", modules=modules)


def test_views_work_from_records_built_by_hand():
    t = hand_made()
    assert module_boxes(t.to_dot(depth=1).source) == ["block  Block", "head  Sum"]
    assert sorted(module_boxes(t.to_dot(depth=2).source)) == ["block.act  ReLU",
                                                              "block.lin  Mul", "head  Sum"]
    assert "cluster_block" in t.to_dot(depth=2).source
    part = t.focus("block")
    assert [n.id for n in part.nodes] == ["n1", "n2", "n3", "n4"]
    # (x is an input from outside: its own step 4 is not the block's)
    assert part.backwards[0].roots == ["n4"] and [s.index for s in part.steps] == [2, 3, 5]
    assert [leaf.label for leaf in part.leaves] == ["x", "block.w"]
    assert "block.lin  Mul" in part.explanation(summary=True)


def test_focus_refuses_an_unknown_module():
    with pytest.raises(ValueError, match="no module 'layer9'.*'layer1'"):
        models.resnet_trace().focus("layer9")
