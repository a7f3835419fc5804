"""compare.trace_torch on a torch nn.Module: which module made each node (TraceNode.module,
Trace.modules), read with forward hooks that are gone again afterwards."""

from __future__ import annotations

import pytest

import compare
from compare.torch_models import resnet18, transformer_encoder


def _no_module_hooks(model) -> bool:
    from torch.nn.modules import module

    return all(not m._forward_hooks and not m._forward_pre_hooks
               and not m._forward_hooks_always_called for m in model.modules()) and not (
        module._global_forward_hooks or module._global_forward_pre_hooks
        or module._global_forward_hooks_always_called)


@pytest.fixture(scope="module")
def resnet_trace(torch_mod):
    torch_mod.manual_seed(0)
    model = resnet18()
    x, y = torch_mod.randn(2, 3, 32, 32), torch_mod.tensor([1, 2])
    t = compare.trace_torch(lambda: torch_mod.nn.functional.cross_entropy(model(x), y),
                            params=model)
    return t, model


def test_resnet_modules_have_torchvisions_paths_types_and_params(resnet_trace):
    t, model = resnet_trace
    paths = list(t.modules)
    assert paths[:5] == ["", "conv1", "bn1", "relu", "maxpool"]
    block = t.modules["layer2.0.conv1"]
    assert (block.type, block.params, block.calls) == ("Conv2d", ["layer2.0.conv1.weight"], 1)
    assert t.modules["layer2.0.downsample.0"].params == ["layer2.0.downsample.0.weight"]
    assert t.modules["layer2.0.bn1"].params == ["layer2.0.bn1.weight", "layer2.0.bn1.bias"]
    assert t.modules["layer2.0"].type == "BasicBlock" and t.modules["layer2.0"].params == []
    assert t.modules[""].type == "ResNet"
    # the one ReLU module of a block runs twice per forward, as torchvision's does
    assert t.modules["layer2.0.relu"].calls == 2
    assert sorted(p for m in t.modules.values() for p in m.params) == sorted(
        name for name, _ in model.named_parameters())
    assert _no_module_hooks(model)


def test_resnet_nodes_name_the_innermost_module(resnet_trace):
    t, _ = resnet_trace
    by_module = {}
    for n in t.nodes:
        by_module.setdefault(n.module, []).append(n)
    (conv,) = [n for n in by_module["layer2.0.conv1"] if not n.is_leaf]
    assert conv.name == "ConvolutionBackward0" and "layer2.0.conv1.weight" in conv.args
    assert [n.name for n in by_module["layer2.0.bn1"] if not n.is_leaf] == \
        ["NativeBatchNormBackward0"]
    # the residual sum is the block's own op, outside its children
    assert [n.name for n in by_module["layer2.0"]] == ["AddBackward0"]
    assert [n.name for n in by_module["fc"] if not n.is_leaf] == ["TBackward0", "AddmmBackward0"]
    # the flatten in ResNet.forward belongs to the model; the loss was computed outside it
    assert "ViewBackward0" in [n.name for n in by_module[""]]
    assert t.nodes[-1].name == "NllLossBackward0" and t.nodes[-1].module == ""
    # a parameter's AccumulateGrad belongs to the module that holds the parameter
    leaf = next(n for n in t.nodes if n.label == "layer3.1.bn2.weight")
    assert leaf.is_leaf and leaf.module == "layer3.1.bn2"
    assert all(n.module in t.modules for n in t.nodes)


def test_transformer_modules(torch_mod):
    torch_mod.manual_seed(0)
    model = transformer_encoder()
    tokens = torch_mod.randint(0, 50, (2, 5))
    t = compare.trace_torch(lambda: model(tokens).square().mean(), params=model)
    attn = t.modules["encoder.layers.1.self_attn"]
    assert attn.type == "MultiheadAttention"
    assert attn.params == ["encoder.layers.1.self_attn.in_proj_weight",
                           "encoder.layers.1.self_attn.in_proj_bias"]
    # MultiheadAttention uses out_proj's weight itself: out_proj's forward never runs, so
    # its weight's AccumulateGrad belongs to the nearest module that did run
    assert "encoder.layers.1.self_attn.out_proj" not in t.modules
    leaf = next(n for n in t.nodes if n.label == "encoder.layers.1.self_attn.out_proj.weight")
    assert leaf.module == "encoder.layers.1.self_attn"
    assert any(n.module == "encoder.layers.1.self_attn" and not n.is_leaf for n in t.nodes)
    assert any(n.module == "encoder.layers.0.norm2" and n.name == "NativeLayerNormBackward0"
               for n in t.nodes)
    assert t.nodes[-1].module == ""  # .square().mean() after the model


def test_a_module_called_twice_and_hooks_gone_after_an_error(torch_mod):
    nn = torch_mod.nn
    shared = nn.Linear(3, 3)
    model = nn.ModuleDict({"shared": shared, "head": nn.Linear(3, 1)})
    x = torch_mod.randn(4, 3)
    t = compare.trace_torch(lambda: model["head"](shared(shared(x))).sum(), params=model)
    assert t.modules["shared"].calls == 2 and t.modules["head"].calls == 1
    assert [n.module for n in t.nodes if n.name == "AddmmBackward0"] == \
        ["shared", "shared", "head"]

    def broken():
        shared(x)
        raise ValueError("bad forward")

    with pytest.raises(ValueError, match="bad forward"):
        compare.trace_torch(broken, params=model)
    assert _no_module_hooks(model)


def test_a_module_of_another_model_counts_as_part_of_the_one_that_called_it(torch_mod):
    nn = torch_mod.nn
    outside = nn.Linear(3, 3)  # not a submodule of the traced model
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    x = torch_mod.randn(4, 3)

    def forward():
        h = model[0](x)
        model[1].register_forward_hook(lambda m, a, out: None)  # a user's hook stays
        return model[1](outside(h)).sum()

    t = compare.trace_torch(forward, params=model)
    assert set(t.modules) == {"0", "1"}
    assert [n.module for n in t.nodes if n.name == "AddmmBackward0"] == ["0", "", "1"]
    assert len(model[1]._forward_hooks) == 1


def test_tensor_form_cannot_see_modules(torch_mod):
    model = torch_mod.nn.Linear(3, 1)
    t = compare.trace_torch(model(torch_mod.randn(2, 3)).sum(), params=model)
    assert t.modules == {} and all(n.module == "" for n in t.nodes)


def test_focus_on_a_pytorch_models_trace_explains_that_module_only():
    torch = pytest.importorskip("torch")
    from compare import trace_torch

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Sigmoid(), torch.nn.Linear(3, 1))
    x = torch.randn(5, 4)
    t = trace_torch(lambda: net(x).sum(), params=net)
    part = t.focus("0")  # (a trace_torch Trace is built lazily; its part is a plain Trace)
    assert {n.module for n in part.nodes if not n.is_leaf} == {"0"}
    assert part.explanation(timing=False).startswith("Forward pass (recorded by PyTorch)")


def test_members_read_in_one_walk_are_pytorchs_named_members(torch_mod):
    """A shared submodule, a tied weight, a bias set to None, a buffer: named as PyTorch
    names them, each once."""
    from compare.torch_modules import Members

    nn = torch_mod.nn
    shared = nn.Linear(3, 3, bias=False)
    model = nn.Sequential(nn.Embedding(5, 3), shared, nn.BatchNorm1d(3), shared,
                          nn.Linear(3, 5))
    model[4].weight = model[0].weight  # tied
    found = Members(model)
    assert list(found.modules) == [n for n, _ in model.named_modules()]
    assert [(n, id(p)) for n, p in found.params.items()] == [
        (n, id(p)) for n, p in model.named_parameters()]
    assert [(n, id(b)) for n, b in found.buffers.items()] == [
        (n, id(b)) for n, b in model.named_buffers()]
    assert "1.bias" not in found.params and "4.weight" not in found.params


def test_a_node_made_by_a_call_that_gives_no_tensor_has_that_calls_line(torch_mod):
    x = torch_mod.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def f():
        y = x * 2
        y[0] = 5.0
        return y.sum()

    t = compare.trace_torch(f)
    copy = next(n for n in t.nodes if n.name == "CopySlices")
    assert copy.line is not None and copy.line.endswith("y[0] = 5.0"), copy.line
