"""Conv1d, Conv2d, ConvTranspose2d and F.conv*/unfold/fold/pad against PyTorch: outputs and
gradients in train and eval mode, the graph's nodes, initialisation, reprs, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from layer_parity import assert_layer_matches

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.testing import gradgradcheck

RNG = np.random.default_rng(7)


def normal(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("kwargs", [
    {}, {"stride": 2}, {"padding": 1}, {"padding": "same", "dilation": 2},
    {"padding": "valid", "bias": False}, {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1)},
    {"groups": 2, "stride": 2},
])
def test_conv2d_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.Conv2d(4, 6, (3, 2), **kwargs), normal(2, 4, 7, 6),
                         torch_mod)


def test_conv2d_unbatched_and_even_kernel_same_padding(torch_mod):
    assert_layer_matches(lambda lib: lib.nn.Conv2d(3, 2, 4, padding="same"), normal(3, 5, 6),
                         torch_mod)


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 2}, {"padding": "same"},
                                    {"groups": 3, "dilation": 2, "bias": False}])
def test_conv1d_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.Conv1d(3, 6, 3, **kwargs), normal(2, 3, 11),
                         torch_mod)


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "output_padding": 1},
                                    {"stride": 3, "padding": 1, "dilation": 2},
                                    {"groups": 2, "bias": False}])
def test_conv_transpose2d_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.ConvTranspose2d(4, 6, 3, **kwargs),
                         normal(2, 4, 4, 5), torch_mod)


def test_conv_transpose2d_output_size(torch_mod):
    torch = torch_mod
    x = normal(1, 2, 4, 4)
    theirs = torch.nn.ConvTranspose2d(2, 3, 3, stride=2).double()
    ours = nn.ConvTranspose2d(2, 3, 3, stride=2).double()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    want = theirs(torch.tensor(x), output_size=[10, 10])
    got = ours(mg.tensor(x), output_size=[10, 10])
    np.testing.assert_allclose(got.array, want.detach().numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match=r"requested an output size of \[12, 12\], but valid "
                       r"sizes range from \[9, 9\] to \[10, 10\]"):
        ours(mg.tensor(x), output_size=[12, 12])


def test_one_convolution_node_with_pytorch_edges(torch_mod):
    torch = torch_mod
    for lib in (mg, torch):
        x = lib.tensor(normal(1, 2, 5, 5), requires_grad=True)
        w = lib.tensor(normal(3, 2, 3, 3), requires_grad=True)
        b = lib.tensor(normal(3), requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, b)
        assert y.grad_fn.name() == "ConvolutionBackward0"
        assert [n.name().split("::")[-1] for n, _ in y.grad_fn.next_functions] == \
            ["AccumulateGrad"] * 3
        nobias = lib.nn.functional.conv2d(x, w)
        assert nobias.grad_fn.next_functions[2] == (None, 0)
        up = lib.nn.functional.conv_transpose2d(x, w.transpose(0, 1))
        assert up.grad_fn.name() == "ConvolutionBackward0"
        assert lib.nn.functional.conv2d(x[0], w).grad_fn.name() == "SqueezeBackward1"


def test_double_backward_of_convolutions():
    x = mg.tensor(normal(2, 2, 5, 5), requires_grad=True)
    w = mg.tensor(normal(4, 1, 3, 3), requires_grad=True)
    assert gradgradcheck(lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2),
                                    (x, w))
    wt = mg.tensor(normal(2, 3, 2, 2), requires_grad=True)
    assert gradgradcheck(
        lambda x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1), (x, wt))


def test_init_is_kaiming_uniform_as_pytorch():
    mg.manual_seed(0)
    conv = nn.Conv2d(3, 8, 5)
    bound = 1 / np.sqrt(3 * 25)  # kaiming_uniform_(a=sqrt(5)): 1/sqrt(fan_in), bias too
    assert conv.weight.shape == (8, 3, 5, 5) and conv.bias.shape == (8,)
    for p in (conv.weight, conv.bias):
        assert np.abs(p.array).max() <= bound and np.abs(p.array).max() > 0.8 * bound
    assert [n for n, _ in conv.named_parameters()] == ["weight", "bias"]
    up = nn.ConvTranspose2d(3, 8, 2, groups=1)
    assert up.weight.shape == (3, 8, 2, 2)
    assert np.abs(up.bias.array).max() <= 1 / np.sqrt(8 * 4)


def test_reprs_are_pytorch_s():
    assert repr(nn.Conv2d(3, 4, 3)) == "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(nn.Conv2d(3, 4, (3, 2), stride=2, padding=1, dilation=2, bias=False)) == (
        "Conv2d(3, 4, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
        "bias=False)")
    assert repr(nn.Conv1d(2, 4, 3, padding="same", groups=2)) == (
        "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=same, groups=2)")
    assert repr(nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1)) == (
        "ConvTranspose2d(3, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))")


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.conv2d(mg.randn(3, 8), mg.randn(4, 3, 3, 3)), RuntimeError,
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: "
     r"\[3, 8\]"),
    (lambda: F.conv1d(mg.randn(2, 3, 4, 5), mg.randn(4, 3, 3)), RuntimeError,
     r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d"),
    (lambda: F.conv2d(mg.randn(2, 3, 8, 8), mg.randn(4, 2, 3, 3)), RuntimeError,
     r"Given groups=1, weight of size \[4, 2, 3, 3\], expected input\[2, 3, 8, 8\] to have 2 "
     r"channels, but got 3 channels instead"),
    (lambda: F.conv2d(mg.randn(2, 3, 8, 8), mg.randn(4, 3, 9, 9)), RuntimeError,
     r"Calculated padded input size per channel: \(8 x 8\). Kernel size: \(9 x 9\). Kernel "
     r"size can't be greater than actual input size"),
    (lambda: F.conv2d(mg.randn(2, 4, 8, 8), mg.randn(3, 2, 3, 3), groups=2), RuntimeError,
     r"Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of "
     r"size \[\[3, 2, 3, 3\]\] instead"),
    (lambda: F.conv2d(mg.randn(2, 3, 8, 8), mg.randn(4, 3, 3, 3), padding="same", stride=2),
     RuntimeError, "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv2d(mg.randn(2, 3, 8, 8), mg.randn(4, 3, 3, 3), padding="foo"),
     RuntimeError, "Invalid padding string: 'foo'"),
    (lambda: F.conv2d(mg.randn(2, 3, 8, 8), mg.randn(4, 3, 3, 3), padding=-1), RuntimeError,
     "negative padding is not supported"),
    (lambda: F.conv2d(mg.randn(2, 3, 8, 8), mg.randn(4, 3, 3, 3), mg.randn(3)), RuntimeError,
     r"Given weight of size \[4, 3, 3, 3\], expected bias to be 1-dimensional with 4 "
     r"elements, but got bias of size \[3\] instead"),
    (lambda: F.conv2d(mg.randn(1, 3, 5, 5), mg.randn(2, 3, 3, 3, dtype=mg.float64)),
     RuntimeError, "expected scalar type Float but found Double"),
    (lambda: F.conv_transpose2d(mg.randn(2, 3, 8, 8), mg.randn(4, 3, 3, 3)), RuntimeError,
     r"Given transposed=1, weight of size \[4, 3, 3, 3\], expected input\[2, 3, 8, 8\] to "
     r"have 4 channels, but got 3 channels instead"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible by groups"),
    (lambda: nn.Conv2d(3, 4, 3, padding="foo"), ValueError,
     "Invalid padding string 'foo', should be one of"),
    (lambda: nn.Conv2d(3, 4, 3, padding="same", stride=2), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv2d(3, 4, 3, padding_mode="foo"), ValueError, "padding_mode must be one of"),
    (lambda: nn.Conv2d(3, 4, 3)(mg.randn(2, 5, 8, 8)), RuntimeError,
     r"expected input\[2, 5, 8, 8\] to have 3 channels, but got 5 channels instead"),
    (lambda: F.pad(mg.randn(2, 3), (1,)), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: F.pad(mg.randn(2, 3), (1, 1), mode="foo"), NotImplementedError,
     "Unrecognised padding mode foo"),
    (lambda: F.fold(mg.randn(1, 5, 4), (3, 3), 2), RuntimeError,
     r"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
     r"but got input.size\(1\)=5 and kernel_size=\(2, 2\)."),
])
def test_misuse_gets_pytorch_s_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_failed_call_leaves_the_weights_and_grads_as_they_were():
    conv = nn.Conv2d(3, 4, 3)
    conv(mg.randn(1, 3, 5, 5)).sum().backward()
    before = [p.array.copy() for p in conv.parameters()]
    grads = [p.grad.array.copy() for p in conv.parameters()]
    with pytest.raises(RuntimeError):
        conv(mg.randn(1, 2, 5, 5))
    for p, b, g in zip(conv.parameters(), before, grads):
        assert np.array_equal(p.array, b) and np.array_equal(p.grad.array, g)


@pytest.mark.parametrize("name, call", [
    ("unfold", lambda F, x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2)),
    ("fold", lambda F, x: F.fold(F.unfold(x, 2), (6, 7), 2)),
    ("pad", lambda F, x: F.pad(x, (1, 2, -1, 3), value=0.5)),
])
def test_unfold_fold_pad_match_pytorch(name, call, torch_mod):
    x = normal(2, 3, 6, 7)
    ours, theirs = mg.tensor(x, requires_grad=True), torch_mod.tensor(x, requires_grad=True)
    a, b = call(F, ours), call(torch_mod.nn.functional, theirs)
    assert a.grad_fn.name() == b.grad_fn.name()
    np.testing.assert_allclose(a.array, b.detach().numpy(), rtol=1e-12)
    g = normal(*a.shape)
    a.backward(mg.tensor(g))
    b.backward(torch_mod.tensor(g))
    np.testing.assert_allclose(ours.grad.array, theirs.grad.numpy(), rtol=1e-12)


def test_saved_columns_are_freed_after_backward():
    x = mg.randn(2, 3, 8, 8, requires_grad=True)
    y = nn.Conv2d(3, 4, 3)(x)
    node = y.grad_fn
    assert any(isinstance(s, mg.Tensor) and s.shape == (2, 27, 36) for s in node.saved_values)
    y.sum().backward()
    assert node.saved_values == ()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
