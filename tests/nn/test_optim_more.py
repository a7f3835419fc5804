"""RMSprop, Adagrad and the optimizers' state_dict against PyTorch: the same updates over many
steps, torch's state_dict layout and keys, a round trip through load_state_dict, and a failed
step or load that changes nothing."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn, optim

CONFIGS = [
    ("RMSprop", {"lr": 0.01}), ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True,
                                            "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.02, "alpha": 0.9, "maximize": True}),
    ("Adagrad", {"lr": 0.1}), ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1,
                                           "initial_accumulator_value": 0.5}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.01, "amsgrad": True}),
]


def _params(lib, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    return [lib.nn.Parameter(lib.tensor(rng.normal(size=s))) for s in ((3, 2), (2,))]


def _grads(step):
    rng = np.random.default_rng(100 + step)
    return [rng.normal(size=(3, 2)), rng.normal(size=(2,))]


@pytest.mark.parametrize("name, options", CONFIGS)
def test_thirty_steps_equal_pytorch_and_so_does_the_state_dict(name, options, torch_mod):
    ours, theirs = _params(mg), _params(torch_mod)
    opt = getattr(optim, name)(ours, **options)
    ref = getattr(torch_mod.optim, name)(theirs, **options)
    for step in range(30):
        for p, q, g in zip(ours, theirs, _grads(step)):
            p.grad, q.grad = mg.tensor(g), torch_mod.tensor(g)
        opt.step()
        ref.step()
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.array, q.detach().numpy(), rtol=1e-10, atol=1e-12)
    mine, torch_sd = opt.state_dict(), ref.state_dict()
    assert list(mine) == ["state", "param_groups"]
    assert [list(g) for g in mine["param_groups"]] == [list(g) for g in torch_sd["param_groups"]]
    assert mine["param_groups"] == torch_sd["param_groups"]
    assert mine["state"].keys() == torch_sd["state"].keys() == {0, 1}
    for i, values in torch_sd["state"].items():
        assert list(mine["state"][i]) == list(values)
        for key, value in values.items():
            np.testing.assert_allclose(np.asarray(mine["state"][i][key].array if key != "step"
                                                  else mine["state"][i][key]),
                                       value.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, options", CONFIGS)
def test_load_state_dict_round_trip_continues_the_same(name, options):
    def run(steps, opt, params, start=0):
        for step in range(start, start + steps):
            for p, g in zip(params, _grads(step)):
                p.grad = mg.tensor(g)
            opt.step()

    params = _params(mg)
    opt = getattr(optim, name)(params, **options)
    run(5, opt, params)
    saved, saved_values = copy.deepcopy(opt.state_dict()), [p.array.copy() for p in params]
    run(5, opt, params, 5)
    again = [nn.Parameter(mg.tensor(v)) for v in saved_values]
    fresh = getattr(optim, name)(again, lr=123.0)
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == options["lr"]
    assert fresh.param_groups[0]["params"][0] is again[0]
    run(5, fresh, again, 5)
    for p, q in zip(params, again):
        np.testing.assert_array_equal(p.array, q.array)


def test_load_state_dict_errors_change_nothing():
    params = _params(mg)
    opt = optim.Adam(params, lr=0.1)
    for p, g in zip(params, _grads(0)):
        p.grad = mg.tensor(g)
    opt.step()
    before = copy.deepcopy(opt.state_dict())
    good = opt.state_dict()
    with pytest.raises(ValueError, match="^loaded state dict has a different number of "
                                         "parameter groups$"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that "
                                         "doesn't match the size of optimizer's group$"):
        opt.load_state_dict({"state": {}, "param_groups": [{**good["param_groups"][0],
                                                            "params": [0]}]})
    broken = copy.deepcopy(good)
    broken["state"][1]["exp_avg"] = mg.zeros(5)
    broken["param_groups"][0]["lr"] = 7.0
    with pytest.raises(ValueError, match="'exp_avg' of shape"):
        opt.load_state_dict(broken)
    with pytest.raises(KeyError, match="param_groups"):
        opt.load_state_dict({"state": {}})
    after = opt.state_dict()
    assert after["param_groups"] == before["param_groups"]
    for i in (0, 1):
        np.testing.assert_array_equal(after["state"][i]["exp_avg"].array,
                                      before["state"][i]["exp_avg"].array)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_a_step_that_fails_on_one_parameter_changes_nothing(name):
    params = _params(mg)
    opt = getattr(optim, name)(params, lr=0.1)
    params[0].grad = mg.tensor(_grads(0)[0])
    # the parameter is float64 (`.grad =` refuses this now, as PyTorch's does; the step still
    # checks, for a gradient that arrives some other way)
    params[1]._grad = mg.tensor([1.0, 2.0], dtype=mg.float32)
    values = [p.array.copy() for p in params]
    state = copy.deepcopy(opt.state_dict()["state"])
    with pytest.raises(RuntimeError, match="dtype minigrad.float32 but the parameter has dtype "
                                           "minigrad.float64; no parameter was updated"):
        opt.step()
    assert all(np.array_equal(v, p.array) for v, p in zip(values, params))
    assert opt.state_dict()["state"].keys() == state.keys()


def test_options_errors_and_defaults_in_pytorchs_words():
    p = _params(mg)
    for make, message in [(lambda: optim.RMSprop(p, lr=-1), "Invalid learning rate: -1"),
                          (lambda: optim.RMSprop(p, alpha=-1), "Invalid alpha value: -1"),
                          (lambda: optim.RMSprop(p, eps=-1), "Invalid epsilon value: -1"),
                          (lambda: optim.RMSprop(p, momentum=-1), "Invalid momentum value: -1"),
                          (lambda: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
                          (lambda: optim.Adagrad(p, initial_accumulator_value=-1),
                           "Invalid initial_accumulator_value value: -1")]:
        with pytest.raises(ValueError, match=f"^{message}$"):
            make()
    with pytest.raises(NotImplementedError, match="differentiable=True is not supported"):
        optim.SGD(p, lr=0.1, differentiable=True)
    assert optim.RMSprop(p).defaults["lr"] == 0.01 and optim.Adagrad(p).defaults["eps"] == 1e-10
    assert optim.AdamW(p).defaults["decoupled_weight_decay"] is True
    adagrad = optim.Adagrad(p, initial_accumulator_value=0.5)  # state from the start
    assert adagrad.state[p[0]]["step"] == 0 and (adagrad.state[p[0]]["sum"].array == 0.5).all()


def test_add_param_group_and_zero_grad_default(torch_mod):
    a, b = _params(mg)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.01})
    ref = torch_mod.optim.SGD([torch_mod.nn.Parameter(torch_mod.ones(1))], lr=0.1, momentum=0.9)
    ref.add_param_group({"params": torch_mod.nn.Parameter(torch_mod.ones(1)), "lr": 0.01})
    assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == \
        [{k: v for k, v in g.items() if k != "params"} for g in ref.param_groups]
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter "
                                         "group"):
        opt.add_param_group({"params": [a]})
    a.grad = mg.ones(3, 2, dtype=a.dtype)
    opt.zero_grad()
    assert a.grad is None
    assert opt.state_dict()["param_groups"][1]["params"] == [1]


def test_clipping_and_parameter_vectors_as_pytorch(torch_mod):
    torch = torch_mod
    from minigrad.nn import utils

    grads = [np.array([3.0, -4.0]), np.array([[1.0, 2.0], [-12.0, 0.5]])]
    for norm_type in (2.0, 1.0, float("inf")):
        ours = [nn.Parameter(mg.zeros(*g.shape, dtype=mg.float64)) for g in grads]
        theirs = [torch.nn.Parameter(torch.zeros(*g.shape, dtype=torch.float64)) for g in grads]
        for p, q, g in zip(ours, theirs, grads):
            p.grad, q.grad = mg.tensor(g), torch.tensor(g)
        total = utils.clip_grad_norm_(ours, 2.0, norm_type, foreach=True)
        expected = torch.nn.utils.clip_grad_norm_(theirs, 2.0, norm_type, foreach=True)
        np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-12)
        for p, q in zip(ours, theirs):
            np.testing.assert_allclose(p.grad.array, q.grad.numpy(), rtol=1e-12)
        utils.clip_grad_value_(ours, 0.1, foreach=None)
        torch.nn.utils.clip_grad_value_(theirs, 0.1)
        assert all((p.grad.array == q.grad.numpy()).all() for p, q in zip(ours, theirs))
    bad = nn.Parameter(mg.ones(2))
    bad.grad = mg.tensor([1.0, float("nan")])
    with pytest.raises(RuntimeError, match="^The total norm of order 2.0 for gradients from "
                                           "`parameters` is non-finite, so it cannot be clipped"):
        utils.clip_grad_norm_([bad], 1.0, error_if_nonfinite=True)
    assert np.isnan(bad.grad.array[1]) and bad.grad.array[0] == 1.0  # (nothing scaled)
    params = [nn.Parameter(mg.ones(3)), nn.Parameter(mg.ones(2, 2))]
    vec = utils.parameters_to_vector(params)
    assert vec.grad_fn.name() == "CatBackward0" and vec.shape == (7,)
    assert [n.name() for n, _ in vec.grad_fn.next_functions] == ["ViewBackward0"] * 2
    utils.vector_to_parameters(mg.arange(7.0), params)
    assert params[1].tolist() == [[3.0, 4.0], [5.0, 6.0]] and params[1].is_leaf
    with pytest.raises(TypeError, match="^expected minigrad.Tensor, but got: list$"):
        utils.vector_to_parameters([1.0], params)


@pytest.mark.parametrize("name, options", [CONFIGS[1], CONFIGS[4], CONFIGS[5], CONFIGS[8]])
def test_a_pytorch_state_dict_loads_and_training_goes_on_the_same(name, options, torch_mod):
    """torch's optimizer state_dict, as numpy arrays (what a torch.save/torch.load round trip
    through files gives minigrad), loads into minigrad's optimizer: the next steps agree."""
    theirs = _params(torch_mod)
    ref = getattr(torch_mod.optim, name)(theirs, **options)
    for step in range(4):
        for q, g in zip(theirs, _grads(step)):
            q.grad = torch_mod.tensor(g)
        ref.step()
    saved = ref.state_dict()
    as_numpy = {"state": {i: {k: v.numpy().copy() for k, v in values.items()}
                          for i, values in saved["state"].items()},
                "param_groups": saved["param_groups"]}
    ours = [nn.Parameter(mg.tensor(q.detach().numpy().copy())) for q in theirs]
    opt = getattr(optim, name)(ours, lr=1.0)
    opt.load_state_dict(as_numpy)
    for step in range(4, 8):
        for p, q, g in zip(ours, theirs, _grads(step)):
            p.grad, q.grad = mg.tensor(g), torch_mod.tensor(g)
        opt.step()
        ref.step()
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.array, q.detach().numpy(), rtol=1e-10, atol=1e-12)
