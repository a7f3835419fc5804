"""Max, average and adaptive pooling against PyTorch: outputs, gradients, indices, nodes,
reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest
from layer_parity import assert_layer_matches

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.testing import gradgradcheck

RNG = np.random.default_rng(3)


def normal(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": (2, 3), "stride": 1, "dilation": 2}, {"kernel_size": 2, "ceil_mode": True},
])
def test_max_pool2d_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.MaxPool2d(**kwargs), normal(2, 3, 7, 8), torch_mod,
                         modes=("train",), steps=1)


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": 2, "divisor_override": 3},
])
def test_avg_pool2d_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.AvgPool2d(**kwargs), normal(2, 3, 7, 8), torch_mod,
                         modes=("train",), steps=1)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.MaxPool1d(3, 2, 1), lambda lib: lib.nn.MaxPool1d(2, dilation=2),
    lambda lib: lib.nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda lib: lib.nn.AvgPool1d(2),
])
def test_1d_pools_match_pytorch(make, torch_mod):
    assert_layer_matches(make, normal(2, 3, 9), torch_mod, modes=("train",), steps=1)
    assert_layer_matches(make, normal(3, 9), torch_mod, modes=("train",), steps=1)


@pytest.mark.parametrize("size", [(3, 2), 1, (None, 3), 4, (5, 7)])
def test_adaptive_pools_match_pytorch(size, torch_mod):
    for make in (lambda lib: lib.nn.AdaptiveAvgPool2d(size),
                 lambda lib: lib.nn.AdaptiveMaxPool2d(size)):
        assert_layer_matches(make, normal(2, 3, 7, 5), torch_mod, modes=("train",), steps=1)
        assert_layer_matches(make, normal(3, 7, 5), torch_mod, modes=("train",), steps=1)


def test_unbatched_pools_match_pytorch(torch_mod):
    for make in (lambda lib: lib.nn.MaxPool2d(2), lambda lib: lib.nn.AvgPool2d(3, 2, 1)):
        assert_layer_matches(make, normal(3, 6, 6), torch_mod, modes=("train",), steps=1)


def test_indices_are_pytorch_s(torch_mod):
    torch = torch_mod
    x = normal(2, 3, 7, 8)
    for ours, theirs in [
        (F.max_pool2d(mg.tensor(x), 3, 2, 1, return_indices=True),
         torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, 1, return_indices=True)),
        (F.max_pool2d(mg.tensor(x[0]), 2, return_indices=True),
         torch.nn.functional.max_pool2d(torch.tensor(x[0]), 2, return_indices=True)),
        (F.adaptive_max_pool2d(mg.tensor(x), (3, 5), return_indices=True),
         torch.nn.functional.adaptive_max_pool2d(torch.tensor(x), (3, 5), return_indices=True)),
        (nn.MaxPool1d(3, 2, return_indices=True)(mg.tensor(x[0, 0])),
         torch.nn.MaxPool1d(3, 2, return_indices=True)(torch.tensor(x[0, 0]))),
    ]:
        assert ours[1].dtype == mg.int64 and ours[1].grad_fn is None
        np.testing.assert_array_equal(ours[1].array, theirs[1].numpy())


def test_the_gradient_goes_to_the_first_max_and_nan_wins(torch_mod):
    x = np.array([[[[1.0, 3.0, 3.0, 0.0], [2.0, 0.0, np.nan, 1.0]]]])
    ours, theirs = mg.tensor(x, requires_grad=True), torch_mod.tensor(x, requires_grad=True)
    a, b = F.max_pool2d(ours, 2), torch_mod.nn.functional.max_pool2d(theirs, 2)
    np.testing.assert_array_equal(a.array, b.detach().numpy())
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_array_equal(ours.grad.array, theirs.grad.numpy())


def test_nodes_are_pytorch_s(torch_mod):
    for lib in (mg, torch_mod):
        f = lib.nn.functional
        x = lib.tensor(normal(1, 2, 6, 6), requires_grad=True)
        names = [f.max_pool2d(x, 2).grad_fn.name(), f.avg_pool2d(x, 2).grad_fn.name(),
                 f.adaptive_avg_pool2d(x, 3).grad_fn.name(),
                 f.adaptive_avg_pool2d(x, 1).grad_fn.name(),
                 f.adaptive_max_pool2d(x, 3).grad_fn.name()]
        assert names == ["MaxPool2DWithIndicesBackward0", "AvgPool2DBackward0",
                         "AdaptiveAvgPool2DBackward0", "MeanBackward1",
                         "AdaptiveMaxPool2DBackward0"]
        one_d = f.max_pool1d(x[0], 2).grad_fn
        assert one_d.name() == "SqueezeBackward1"
        assert one_d.next_functions[0][0].name() == "MaxPool2DWithIndicesBackward0"


def test_double_backward_of_pools():
    x = mg.tensor(RNG.permutation(2 * 3 * 36).reshape(2, 3, 6, 6) * 0.1, requires_grad=True)
    for f in (lambda x: F.max_pool2d(x, 3, 2, 1), lambda x: F.avg_pool2d(x, 3, 2, 1, True),
              lambda x: F.adaptive_avg_pool2d(x, (4, 3)),
              lambda x: F.adaptive_max_pool2d(x, (4, 3))):
        assert gradgradcheck(f, (x,))


def test_reprs_are_pytorch_s():
    assert repr(nn.MaxPool2d(2)) == (
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)")
    assert repr(nn.MaxPool1d(3, 2, 1, 2, True, True)) == (
        "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)")
    assert repr(nn.AvgPool2d(2)) == "AvgPool2d(kernel_size=2, stride=2, padding=0)"
    assert repr(nn.AvgPool1d(3, 2, 1)) == (
        "AvgPool1d(kernel_size=(3,), stride=(2,), padding=(1,))")
    assert repr(nn.AdaptiveAvgPool2d((2, 3))) == "AdaptiveAvgPool2d(output_size=(2, 3))"
    assert repr(nn.AdaptiveMaxPool2d(1)) == "AdaptiveMaxPool2d(output_size=1)"


@pytest.mark.parametrize("call, message", [
    (lambda: F.max_pool2d(mg.randn(2, 3, 8, 8), 9),
     r"Given input size: \(3x8x8\). Calculated output size: \(3x0x0\). Output size is too "
     r"small"),
    (lambda: F.max_pool2d(mg.randn(2, 3, 8, 8), 2, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and "
     "dilation=1"),
    (lambda: F.avg_pool2d(mg.randn(2, 3, 8, 8), 2, padding=2),
     "pad should be at most half of effective kernel size"),
    (lambda: F.max_pool2d(mg.randn(8), 2),
     r"non-empty 3D or 4D \(batch mode\) tensor expected for input"),
    (lambda: F.max_pool2d(mg.randn(2, 3, 8, 8), 2, stride=0), "stride should not be zero"),
    (lambda: F.max_pool1d(mg.randn(1, 2, 3, 8), 2),
     r"max_pool1d: Expected 2D or 3D \(batch mode\) tensor with optional 0 dim batch size "
     r"for input, but got:\[1, 2, 3, 8\]"),
    (lambda: F.avg_pool1d(mg.randn(1, 2, 3, 8), 2),
     "Expected 2 to 3 dimensions, but got 4-dimensional tensor"),
    (lambda: F.adaptive_avg_pool2d(mg.randn(8), 2),
     r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[8\]"),
    (lambda: F.adaptive_max_pool2d(mg.randn(8), 2),
     r"adaptive_max_pool2d\(\): Expected 3D or 4D tensor, but got: \[8\]"),
])
def test_misuse_gets_pytorch_s_error(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()
