"""minigrad.optim on its own: update rules by hand, groups, freezing, clipping, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn, optim


def fitted(model):
    """A regression loss of `model` (3 inputs, 2 outputs) on fixed data."""
    dtype = next(model.parameters()).dtype
    x = mg.tensor(np.random.default_rng(0).normal(size=(6, 3)), dtype=dtype)
    y = mg.tensor(np.random.default_rng(1).normal(size=(6, 2)), dtype=dtype)
    return nn.MSELoss()(model(x), y)


def test_sgd_step_is_minus_lr_times_grad():
    model = nn.Linear(3, 2).double()
    before = {n: p.array.copy() for n, p in model.named_parameters()}
    fitted(model).backward()
    optim.SGD(model.parameters(), lr=0.01).step()
    for n, p in model.named_parameters():
        np.testing.assert_array_equal(p.array, before[n] - 0.01 * p.grad.array)


def test_step_updates_in_place_and_bumps_the_version():
    model = nn.Linear(3, 2)
    weight_array = model.weight.array
    version = model.weight._version
    fitted(model).backward()
    optim.SGD(model.parameters(), lr=0.1).step()
    assert model.weight.array is weight_array and model.weight._version == version + 1
    assert model.weight.grad_fn is None and model.weight.is_leaf


def test_sgd_momentum_nesterov_weight_decay_by_hand():
    p = nn.Parameter(mg.tensor([1.0, -2.0], dtype=mg.float64))
    opt = optim.SGD([p], lr=0.1, momentum=0.9, dampening=0, weight_decay=0.01, nesterov=True)
    value, buf = p.array.copy(), None
    for grad in ([0.5, 1.0], [-0.2, 0.3], [0.1, 0.1]):
        p.grad = mg.tensor(grad, dtype=mg.float64)
        opt.step()
        g = np.array(grad) + 0.01 * value
        buf = g.copy() if buf is None else 0.9 * buf + g
        value = value - 0.1 * (g + 0.9 * buf)
        np.testing.assert_allclose(p.array, value, rtol=1e-14)
    assert set(opt.state[p]) == {"momentum_buffer"}


def test_adam_by_hand():
    p = nn.Parameter(mg.tensor([1.0, -2.0, 0.5], dtype=mg.float64))
    opt = optim.Adam([p], lr=0.1, betas=(0.8, 0.9), eps=1e-6)
    value, m, v = p.array.copy(), 0.0, 0.0
    for t, grad in enumerate(([0.5, 1.0, 0.0], [-0.2, 0.3, 1e-3], [0.1, 0.1, 0.1]), 1):
        p.grad = mg.tensor(grad, dtype=mg.float64)
        opt.step()
        g = np.array(grad)
        m, v = 0.8 * m + 0.2 * g, 0.9 * v + 0.1 * g * g
        value = value - 0.1 / (1 - 0.8 ** t) * m / (np.sqrt(v) / np.sqrt(1 - 0.9 ** t) + 1e-6)
        np.testing.assert_allclose(p.array, value, rtol=1e-12)
    assert opt.state[p]["step"] == 3


def test_params_without_grad_are_skipped_and_frozen_layers_stay():
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    model[0].requires_grad_(False)
    frozen = {n: p.array.copy() for n, p in model.named_parameters() if n.startswith("0.")}
    for opt in (optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
                optim.Adam(model.parameters(), lr=0.1, weight_decay=0.1)):
        opt.zero_grad()
        fitted(model).backward()
        assert model[0].weight.grad is None and model[0].bias.grad is None
        before = model[2].weight.array.copy()
        opt.step()
        assert not np.array_equal(before, model[2].weight.array)
        assert all(np.array_equal(frozen[n], p.array) for n, p in model.named_parameters()
                   if n.startswith("0."))
        assert all(id(p) not in {id(k) for k in opt.state} for p in model[0].parameters())


def test_param_groups_have_their_own_options():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    opt = optim.SGD([{"params": model[0].parameters()},
                     {"params": model[1].parameters(), "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9
    for p in model.parameters():
        p.grad = mg.ones_like(p)
    before = [p.array.copy() for p in model.parameters()]
    opt.step()
    deltas = [float((b - p.array).flat[0]) for b, p in zip(before, model.parameters())]
    np.testing.assert_allclose(deltas, [0.1, 0.1, 0.5, 0.5], rtol=1e-6)
    opt.add_param_group({"params": [nn.Parameter(mg.zeros(1))], "lr": 2.0})
    assert len(opt.param_groups) == 3 and opt.param_groups[2]["momentum"] == 0.9


def test_optimizer_zero_grad():
    model = nn.Linear(2, 2)
    opt = optim.Adam(model.parameters())
    fitted_two = nn.MSELoss()(model(mg.ones(1, 2)), mg.zeros(1, 2))
    fitted_two.backward()
    opt.zero_grad(set_to_none=False)
    assert all(not p.grad.array.any() for p in model.parameters())
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_closure_is_called_with_grad_enabled():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)

    def closure():
        opt.zero_grad()
        loss = fitted(model)
        loss.backward()
        return loss

    with mg.no_grad():
        loss = opt.step(closure)
    assert loss.item() > 0


def test_adamw_decays_weights_directly():
    p = nn.Parameter(mg.tensor([2.0], dtype=mg.float64))
    p.grad = mg.tensor([0.0], dtype=mg.float64)
    optim.AdamW([p], lr=0.1, weight_decay=0.5).step()
    np.testing.assert_allclose(p.array, [2.0 * (1 - 0.05)])


def test_optimizer_errors_in_pytorch_words():
    w = nn.Parameter(mg.ones(2))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam([w], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero "
                                         "dampening"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter "
                                         "group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([w * 2], lr=0.1)
    with pytest.raises(TypeError, match="ordering of tensors in sets"):
        optim.SGD([{"params": {w}}], lr=0.1)


def test_optimizer_repr():
    opt = optim.SGD([nn.Parameter(mg.ones(1))], lr=0.1, momentum=0.9)
    assert repr(opt) == ("SGD (\nParameter Group 0\n    dampening: 0\n"
                         "    differentiable: False\n    foreach: None\n    fused: None\n"
                         "    lr: 0.1\n    maximize: False\n    momentum: 0.9\n"
                         "    nesterov: False\n    weight_decay: 0\n)")  # (as PyTorch's)


def test_clip_grad_norm_and_value():
    a, b = nn.Parameter(mg.zeros(2)), nn.Parameter(mg.zeros(1))
    a.grad, b.grad = mg.tensor([3.0, 0.0]), mg.tensor([4.0])
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(np.concatenate([a.grad.array, b.grad.array]),
                               np.array([3, 0, 4]) / (5 + 1e-6), rtol=1e-6)
    assert nn.utils.clip_grad_norm_([a, b], max_norm=10.0).item() == pytest.approx(1.0)
    a.grad = mg.tensor([-3.0, 0.5])
    assert nn.utils.clip_grad_norm_(a, 1.0, norm_type="inf").item() == pytest.approx(3.0)
    a.grad = mg.tensor([-3.0, 0.5])
    nn.utils.clip_grad_value_([a], 1.0)
    np.testing.assert_array_equal(a.grad.array, [-1.0, 0.5])
    a.grad = mg.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_(a, 1.0, error_if_nonfinite=True)
    assert nn.utils.clip_grad_norm_([nn.Parameter(mg.ones(1))], 1.0).item() == 0.0


def test_backward_after_step_through_a_retained_graph_is_refused():
    """The step changed the weights the graph saved: PyTorch's in-place error, not a silent
    wrong gradient."""
    model = nn.Linear(3, 2)
    loss = fitted(model)
    loss.backward(retain_graph=True)
    optim.SGD(model.parameters(), lr=0.1).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
