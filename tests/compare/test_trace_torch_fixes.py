"""compare.trace_torch on what real models do: Linear's constant input, user hooks, autocast,
checkpointing, and the layers' settings (stride, padding, ...), each checked against torch."""

from __future__ import annotations

import numpy as np
import pytest

import compare
import minigrad


def _op(t, name):
    (node,) = [n for n in t.nodes if n.name == name]
    return node


# -- Linear: AddmmBackward0's inputs are (bias, input, weight^T) ------------------------------
def test_linear_input_is_named_in_the_callable_form_as_in_the_tensor_form(torch_mod):
    torch_mod.manual_seed(0)
    fc = torch_mod.nn.Linear(3, 2)
    x = torch_mod.randn(4, 3)
    by_call = compare.trace_torch(lambda: fc(x).sum(), params=fc)
    by_tensor = compare.trace_torch(fc(x).sum(), params=fc)
    assert _op(by_call, "AddmmBackward0").source == "x @ t1 + bias"
    assert _op(by_tensor, "AddmmBackward0").source == "x @ t1 + bias"
    assert "const(" not in by_call.explanation(timing=False)


def test_numbers_stay_as_written(torch_mod):
    x = torch_mod.tensor([1.0, 2.0], requires_grad=True)
    t = compare.trace_torch(lambda: (x * 3).sum())
    assert _op(t, "MulBackward0").source == "x * 3"


# -- hooks that change a gradient are narrated, as minigrad narrates its own ------------------
def test_tensor_hooks_are_narrated_like_minigrads(torch_mod):
    def double(g):
        return g * 2

    def plus_one(g):
        return g + 1

    def program(lib, x):
        y = x * 3
        y.register_hook(double)
        x.register_hook(plus_one)
        return (y * y).sum()

    xt = torch_mod.tensor([1.0, 2.0], requires_grad=True)
    xm = minigrad.tensor([1.0, 2.0], requires_grad=True)
    ours = minigrad.trace(lambda: program(minigrad, xm))
    theirs = compare.trace_torch(lambda: program(torch_mod, xt))
    assert xt.grad.tolist() == xm.grad.tolist() == [37.0, 73.0]

    def hook_lines(t, lang="en"):
        return [line.strip() for line in t.explanation(lang=lang, timing=False).splitlines()
                if "hook" in line or "钩子" in line]

    for lang in ("en", "zh"):
        assert hook_lines(theirs, lang) == hook_lines(ours, lang) != []
    assert hook_lines(theirs)[0].endswith("tensor hook double changed the gradient: "
                                          "tensor([ 6., 12.]) -> tensor([12., 24.])")
    (hook,) = [h for s in theirs.steps for h in s.hooks if h.name == "plus_one"]
    assert hook.before[0].tolist() == [36.0, 72.0] and hook.after[0].tolist() == [37.0, 73.0]


def test_a_hook_that_changes_nothing_is_said_to_have_run(torch_mod):
    x = torch_mod.tensor([1.0, 2.0], requires_grad=True)

    def look(g):
        return None

    y = x.exp()
    y.register_hook(look)
    t = compare.trace_torch(y.sum())
    assert "tensor hook look ran (gradient unchanged)" in t.explanation(timing=False)


# -- autocast: the dtype a tensor was cast to is named -----------------------------------------
def test_bfloat16_autocast_is_labelled_bfloat16(torch_mod):
    torch_mod.manual_seed(0)
    fc = torch_mod.nn.Linear(4, 3)
    x = torch_mod.randn(2, 4)
    with torch_mod.autocast("cpu", dtype=torch_mod.bfloat16):
        out = fc(x)
    assert out.dtype == torch_mod.bfloat16
    t = compare.trace_torch(out.float().sum(), params=fc)
    sources = [n.source for n in t.nodes if n.name == "ToCopyBackward0"]
    assert sources == ["bias.to(bfloat16)", "weight.to(bfloat16)", "out.to(float32)"]
    assert "weight.to(float32)" not in t.explanation(timing=False)
    # the values are bfloat16's, shown as float32 arrays (numpy has no bfloat16): recomputed
    # with bfloat16's rounding where torch kept none, as torch computed them in a callable
    weight_bf16 = [n for n in t.nodes if n.source == "weight.to(bfloat16)"][0].value
    assert np.array_equal(weight_bf16, fc.weight.detach().to(torch_mod.bfloat16).float())

    def step():
        with torch_mod.autocast("cpu", dtype=torch_mod.bfloat16):
            return fc(x).float().sum()

    by_call = compare.trace_torch(step, params=fc)
    assert [n.source for n in by_call.nodes if n.name == "ToCopyBackward0"] == \
        ["bias.to(bfloat16)", "weight.to(bfloat16)", "t4.to(float32)"]
    assert np.array_equal(_op(by_call, "AddmmBackward0").value, out.detach().float().numpy())


# -- checkpointing ----------------------------------------------------------------------------
def _checkpointed(torch, reentrant):
    from torch.utils.checkpoint import checkpoint

    nn = torch.nn
    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(3, 4), nn.Linear(4, 1)

        def forward(self, x):
            h = checkpoint(lambda z: torch.tanh(self.a(z)), x, use_reentrant=reentrant)
            return self.b(h)

    return Net(), torch.randn(2, 3, requires_grad=True)


def test_non_reentrant_checkpoint_shows_the_segment_and_its_parameters(torch_mod):
    model, x = _checkpointed(torch_mod, reentrant=False)
    t = compare.trace_torch(lambda: model(x).sum(), params=model)
    assert sorted(leaf.label for leaf in t.leaves) == ["a.bias", "a.weight", "b.bias",
                                                      "b.weight", "x"]
    assert "TanhBackward0" in [t.node(s.node).name for s in t.steps]
    for leaf in t.leaves:
        if leaf.is_param:
            assert np.array_equal(leaf.grad, dict(model.named_parameters())[leaf.label].grad)


def test_reentrant_checkpoint_says_which_parameters_it_hides_and_why(torch_mod):
    model, x = _checkpointed(torch_mod, reentrant=True)
    t = compare.trace_torch(model(x).sum(), params=model)
    node = _op(t, "CheckpointFunctionBackward")
    text = t.explanation(timing=False)
    assert "runs its own backward" in node.formula and "a.weight, a.bias" in node.formula
    assert "use_reentrant=False" in node.formula and node.formula in text
    assert model.a.weight.grad is not None  # torch computed it, out of sight


# -- layers read as calls with their settings -------------------------------------------------
def test_layer_nodes_read_as_calls_with_their_settings(torch_mod):
    from compare.torch_models import resnet18

    torch_mod.manual_seed(0)
    model = resnet18()
    x = torch_mod.randn(2, 3, 32, 32)
    F = torch_mod.nn.functional
    t = compare.trace_torch(lambda: F.cross_entropy(model(x), torch_mod.tensor([1, 2])),
                            params=model)
    source = {n.module: n.source for n in t.nodes if not n.is_leaf}
    assert source["conv1"] == "conv2d(x, conv1.weight, stride=2, padding=3)"
    assert source["layer2.0.conv2"] == "conv2d(t23, layer2.0.conv2.weight, padding=1)"
    assert source["layer2.0.downsample.0"] == \
        "conv2d(t18, layer2.0.downsample.0.weight, stride=2)"
    assert source["maxpool"] == "max_pool2d(t3, kernel_size=3, stride=2, padding=1)"
    assert source["bn1"] == ("batch_norm(t1, bn1.running_mean, bn1.running_var, bn1.weight, "
                             "bn1.bias, training=True)")
    assert source["avgpool"] == "t66.mean(dim=(2, 3), keepdim=True)"  # torch's (1, 1) pool
    by_tensor = compare.trace_torch(F.cross_entropy(model(x), torch_mod.tensor([1, 2])),
                                    params=model)
    assert [n.source for n in by_tensor.nodes] == [n.source for n in t.nodes]


@pytest.mark.parametrize("call, expected", [
    (lambda F, x, w: F.conv2d(x, w, dilation=2, groups=1), "conv2d(x, w, dilation=2)"),
    (lambda F, x, w: F.conv_transpose2d(x, w.transpose(0, 1), stride=2, output_padding=1),
     "conv_transpose2d(x, t1, stride=2, output_padding=1)"),
    (lambda F, x, w: F.conv1d(x[:, :, 0], w[:, :, 0], padding=(1,)),
     "conv1d(t1, t2, padding=1)"),
    (lambda F, x, w: F.max_pool2d(x, (3, 2), ceil_mode=True),
     "max_pool2d(x, kernel_size=(3, 2), ceil_mode=True)"),
    (lambda F, x, w: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
     "avg_pool2d(x, kernel_size=3, stride=2, padding=1, count_include_pad=False)"),
    (lambda F, x, w: F.adaptive_avg_pool2d(x, (2, 3)), "adaptive_avg_pool2d(x, (2, 3))"),
    (lambda F, x, w: F.adaptive_max_pool2d(x, 2), "adaptive_max_pool2d(x, (2, 2))"),
    (lambda F, x, w: F.layer_norm(x, (8,), eps=1e-3), "layer_norm(x, (8,), eps=0.001)"),
    (lambda F, x, w: F.group_norm(x, 3), "group_norm(x, 3)"),
    (lambda F, x, w: F.batch_norm(x, None, None, training=True, momentum=0.5),
     "batch_norm(x, None, None, training=True, momentum=0.5)"),
])
def test_each_layer_call(torch_mod, call, expected):
    torch_mod.manual_seed(0)
    x = torch_mod.randn(2, 3, 8, 8, requires_grad=True)
    w = torch_mod.randn(4, 3, 3, 3, requires_grad=True)
    t = compare.trace_torch(lambda: call(torch_mod.nn.functional, x, w).sum())
    node = t.nodes[-2]
    assert node.source == expected
    # the source is PyTorch's own call: run on the traced values, it gives the node's output
    scope = {n.label: torch_mod.from_numpy(n.value) for n in t.nodes if n.value is not None}
    scope.update(vars(torch_mod.nn.functional))
    again = eval(node.source, scope)  # noqa: S307 - the test's own expected strings
    np.testing.assert_allclose(again.detach().numpy(), node.value, rtol=1e-5, atol=1e-6)
