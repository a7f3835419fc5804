"""BatchNorm1d/2d, LayerNorm and GroupNorm against PyTorch: outputs, gradients and running
statistics in train and eval mode, buffers in the state_dict, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest
from layer_parity import assert_layer_matches

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.testing import gradgradcheck

RNG = np.random.default_rng(5)


def normal(*shape):
    return RNG.standard_normal(shape) * 2 + 0.5


@pytest.mark.parametrize("kwargs", [{}, {"momentum": 0.3, "eps": 1e-3}, {"momentum": None},
                                    {"affine": False}, {"bias": False},
                                    {"track_running_stats": False}])
@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (5, 3)), ("BatchNorm1d", (4, 3, 6)),
                                        ("BatchNorm2d", (3, 3, 4, 5))])
def test_batch_norm_matches_pytorch_in_train_and_eval(cls, shape, kwargs, torch_mod):
    assert_layer_matches(lambda lib: getattr(lib.nn, cls)(3, **kwargs), normal(*shape),
                         torch_mod)


@pytest.mark.parametrize("kwargs", [{}, {"elementwise_affine": False}, {"bias": False},
                                    {"eps": 1e-2}])
def test_layer_norm_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.LayerNorm(5, **kwargs), normal(2, 3, 5), torch_mod)
    assert_layer_matches(lambda lib: lib.nn.LayerNorm((4, 5), **kwargs), normal(3, 4, 5),
                         torch_mod)


@pytest.mark.parametrize("kwargs", [{}, {"affine": False}, {"bias": False}])
def test_group_norm_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.GroupNorm(2, 4, **kwargs), normal(3, 4, 5, 2),
                         torch_mod)
    assert_layer_matches(lambda lib: lib.nn.GroupNorm(3, 6, **kwargs), normal(2, 6, 4),
                         torch_mod)


def test_running_statistics_after_a_train_step(torch_mod):
    x = normal(6, 3, 4)
    bn = nn.BatchNorm1d(3, momentum=0.2).double()
    bn(mg.tensor(x))
    n = 6 * 4
    mean = x.mean((0, 2))
    var = x.var((0, 2)) * n / (n - 1)
    np.testing.assert_allclose(bn.running_mean.array, 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.array, 0.8 + 0.2 * var, rtol=1e-12)
    assert bn.num_batches_tracked.item() == 1 and bn.num_batches_tracked.dtype == mg.int64
    bn.eval()
    before = bn.running_mean.array.copy()
    bn(mg.tensor(x))
    assert np.array_equal(bn.running_mean.array, before)  # eval: used, not updated
    assert bn.num_batches_tracked.item() == 1


def test_buffers_are_in_the_state_dict_and_load_from_pytorch(torch_mod):
    bn = nn.BatchNorm2d(3)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    theirs = torch_mod.nn.BatchNorm2d(3)
    theirs(torch_mod.randn(4, 3, 2, 2))
    bn.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    np.testing.assert_allclose(bn.running_var.array, theirs.running_var.numpy())
    assert bn.num_batches_tracked.item() == 1
    assert list(nn.BatchNorm1d(3, track_running_stats=False).state_dict()) == ["weight", "bias"]
    assert list(nn.LayerNorm(5, bias=False).state_dict()) == ["weight"]


def test_initialisation_is_ones_and_zeros():
    for layer in (nn.BatchNorm2d(3), nn.LayerNorm((2, 3)), nn.GroupNorm(1, 3)):
        assert np.all(layer.weight.array == 1) and np.all(layer.bias.array == 0)
    bn = nn.BatchNorm1d(4)
    assert np.all(bn.running_mean.array == 0) and np.all(bn.running_var.array == 1)


def test_nodes_are_pytorch_s(torch_mod):
    for lib in (mg, torch_mod):
        f = lib.nn.functional
        x = lib.tensor(normal(4, 3, 2), requires_grad=True)
        w = lib.tensor(normal(3), requires_grad=True)
        y = f.batch_norm(x, None, None, w, None, training=True)
        assert y.grad_fn.name() == "NativeBatchNormBackward0"
        assert [n is None for n, _ in y.grad_fn.next_functions] == [False, False, True]
        assert f.layer_norm(x, (2,)).grad_fn.name() == "NativeLayerNormBackward0"
        assert f.group_norm(x, 3).grad_fn.name() == "NativeGroupNormBackward0"


def test_double_backward_of_norms():
    x = mg.tensor(normal(4, 3, 2), requires_grad=True)
    w = mg.tensor(normal(3), requires_grad=True)
    b = mg.tensor(normal(3), requires_grad=True)
    mean, var = mg.tensor(normal(3)), mg.tensor(np.array([0.5, 1.0, 2.0]))
    assert gradgradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, True), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.batch_norm(x, mean, var, w, b, False), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.group_norm(x, 3, w, b), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, (2,), w[:2], b[:2]), (x, w, b))


def test_reprs_are_pytorch_s():
    assert repr(nn.BatchNorm2d(3)) == ("BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, "
                                       "bias=True, track_running_stats=True)")
    assert repr(nn.BatchNorm1d(3, affine=False, track_running_stats=False)) == (
        "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
        "track_running_stats=False)")
    assert repr(nn.LayerNorm(5)) == "LayerNorm((5,), eps=1e-05, elementwise_affine=True, " \
        "bias=True)"
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"


@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.BatchNorm2d(4)(mg.randn(2, 3, 8, 8)), RuntimeError,
     "running_mean should contain 3 elements not 4"),
    (lambda: nn.BatchNorm2d(3)(mg.randn(2, 3, 8)), ValueError, r"expected 4D input \(got 3D "
     r"input\)"),
    (lambda: nn.BatchNorm1d(3)(mg.randn(2, 3, 8, 8)), ValueError,
     r"expected 2D or 3D input \(got 4D input\)"),
    (lambda: nn.BatchNorm1d(3)(mg.randn(1, 3)), ValueError,
     r"Expected more than 1 value per channel when training, got input size "),
    (lambda: nn.LayerNorm(5)(mg.randn(2, 3, 8, 8)), RuntimeError,
     r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], but got input of "
     r"size"),
    (lambda: nn.GroupNorm(2, 3), ValueError, r"num_channels \(3\) must be divisible by "
     r"num_groups \(2\)"),
    (lambda: nn.GroupNorm(2, 4)(mg.randn(2, 3, 8, 8)), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups"),
])
def test_misuse_gets_pytorch_s_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_failed_call_updates_no_running_statistic():
    bn = nn.BatchNorm1d(3)
    with pytest.raises(ValueError):
        bn(mg.randn(1, 3))
    assert bn.num_batches_tracked.item() == 0
    assert np.all(bn.running_mean.array == 0)
