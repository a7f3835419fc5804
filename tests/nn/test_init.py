"""nn.init against PyTorch: the same gains, bounds and statistics (sample means and stds of big
draws within a few standard errors of the target, as torch's own draws are), deterministic
fills equal to torch's, errors in PyTorch's words, seeding, and nothing recorded."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.nn import init

SHAPE = (300, 200)  # fan_in 200, fan_out 300: 60,000 draws


def _weight(shape=SHAPE):
    return nn.Parameter(mg.empty(*shape))


@pytest.mark.parametrize("name, kwargs, std, bound", [
    ("uniform_", {"a": -0.3, "b": 0.5}, 0.8 / math.sqrt(12), None),
    ("normal_", {"mean": 0.2, "std": 0.7}, 0.7, None),
    ("xavier_uniform_", {"gain": 2.0}, 2.0 * math.sqrt(2 / 500), 2.0 * math.sqrt(6 / 500)),
    ("xavier_normal_", {}, math.sqrt(2 / 500), None),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, 1 / math.sqrt(3 * 200), 1 / math.sqrt(200)),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, math.sqrt(2 / 300),
     math.sqrt(6 / 300)),
    ("kaiming_normal_", {"a": 0.1, "mode": "FAN_OUT"}, math.sqrt(2 / 1.01 / 300), None),
    ("trunc_normal_", {"std": 0.02}, 0.02, None),  # (a, b are absolute: -2, 2)
    ("trunc_normal_", {"mean": 0.5, "std": 1.0, "a": 0.0, "b": 0.2}, None, None),
])
def test_statistics_match_pytorchs(name, kwargs, std, bound, torch_mod):
    mg.manual_seed(0)
    torch_mod.manual_seed(0)
    ours = getattr(init, name)(_weight(), **kwargs)
    theirs = getattr(torch_mod.nn.init, name)(torch_mod.empty(*SHAPE), **kwargs).numpy()
    x = ours.array
    assert isinstance(ours, nn.Parameter) and ours.grad_fn is None and ours.requires_grad
    assert x.dtype == np.float32
    n = x.size
    # both samples' mean and std agree to a few standard errors
    assert abs(x.mean() - theirs.mean()) < 5 * theirs.std() / math.sqrt(n) + 1e-7
    assert abs(x.std() - theirs.std()) < 5 * theirs.std() / math.sqrt(n / 2) + 1e-7
    if std is not None:
        assert abs(x.std() - std) < 5 * std / math.sqrt(n / 2)
    if bound is not None:
        assert np.abs(x).max() <= bound * (1 + 1e-6) and np.abs(theirs).max() <= bound * 1.000001
    if name == "trunc_normal_":
        low, high = kwargs.get("a", -2.0), kwargs.get("b", 2.0)
        assert x.min() >= low and x.max() <= high


def test_fills_equal_pytorchs(torch_mod):
    torch = torch_mod
    for ours, theirs in [
        (init.eye_(mg.empty(3, 5)), torch.nn.init.eye_(torch.empty(3, 5))),
        (init.dirac_(mg.empty(4, 2, 3, 3), groups=2),
         torch.nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2)),
        (init.dirac_(mg.empty(3, 3, 5)), torch.nn.init.dirac_(torch.empty(3, 3, 5))),
        (init.constant_(mg.empty(2, 2), 0.3), torch.nn.init.constant_(torch.empty(2, 2), 0.3)),
        (init.ones_(mg.empty(2)), torch.nn.init.ones_(torch.empty(2))),
        (init.zeros_(mg.empty(2)), torch.nn.init.zeros_(torch.empty(2))),
    ]:
        np.testing.assert_array_equal(ours.array, theirs.numpy())
    for name, param in [("linear", None), ("conv_transpose2d", None), ("sigmoid", None),
                        ("tanh", None), ("relu", None), ("leaky_relu", None),
                        ("leaky_relu", 0.2), ("leaky_relu", 1), ("selu", None)]:
        assert init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)


def test_orthogonal_is_orthogonal_and_scaled():
    for shape in [(4, 6), (6, 4), (3, 2, 2)]:
        w = init.orthogonal_(_weight(shape), gain=2.0).array.reshape(shape[0], -1)
        small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
        np.testing.assert_allclose(small, 4 * np.eye(len(small)), atol=1e-5)


def test_seeded_and_reproducible():
    def draw():
        mg.manual_seed(7)
        return [init.kaiming_normal_(_weight((5, 4))).array.copy(),
                init.trunc_normal_(_weight((5, 4))).array.copy(),
                init.orthogonal_(_weight((5, 4))).array.copy()]

    for a, b in zip(draw(), draw()):
        np.testing.assert_array_equal(a, b)


def test_errors_and_warnings_in_pytorchs_words():
    with pytest.raises(ValueError, match="^Fan in and fan out can not be computed for tensor "
                                         "with fewer than 2 dimensions$"):
        init.xavier_uniform_(mg.empty(3))
    with pytest.raises(ValueError, match=r"^Mode fan not supported, please use one of "
                                         r"\['fan_in', 'fan_out'\]$"):
        init.kaiming_uniform_(mg.empty(3, 3), mode="fan")
    with pytest.raises(ValueError, match="^Unsupported nonlinearity gelu$"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="^negative_slope True not a valid number$"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="^Only tensors with 2 dimensions are supported$"):
        init.eye_(mg.empty(2, 2, 2))
    with pytest.raises(ValueError, match="^Only tensors with 3, 4, or 5 dimensions are "
                                         "supported$"):
        init.dirac_(mg.empty(2, 2))
    with pytest.raises(ValueError, match="^dim 0 must be divisible by groups$"):
        init.dirac_(mg.empty(3, 2, 3), groups=2)
    with pytest.raises(ValueError, match="^Only tensors with 2 or more dimensions are "
                                         "supported$"):
        init.orthogonal_(mg.empty(3))
    with pytest.warns(UserWarning, match="^Initializing zero-element tensors is a no-op$"):
        init.kaiming_uniform_(mg.empty(0, 3))
    with pytest.warns(UserWarning, match="^mean is more than 2 std from"):
        init.trunc_normal_(mg.empty(3), mean=5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.trunc_normal_(mg.empty(3))


def test_module_apply_initialises_every_linear():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2)))

    def fill(m):
        if isinstance(m, nn.Linear):
            init.constant_(m.weight, 0.5)
            init.zeros_(m.bias)

    assert model.apply(fill) is model
    assert all((p.array == (0.5 if n.endswith("weight") else 0)).all()
               for n, p in model.named_parameters())
