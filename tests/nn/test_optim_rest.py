"""The rest of torch.optim side by side with PyTorch (Adadelta, Adamax, NAdam, RAdam, Rprop,
ASGD, LBFGS with and without its line search): the same parameters after several steps, the
same state keys and defaults, `state["step"]` a 0-d float tensor as in PyTorch (Adam's too),
PyTorch's errors for bad options."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad

CASES = [
    ("Adadelta", {}), ("Adadelta", {"lr": 0.5, "weight_decay": 0.1, "rho": 0.8}),
    ("Adamax", {}), ("Adamax", {"lr": 0.1, "weight_decay": 0.01, "maximize": True}),
    ("NAdam", {}), ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"weight_decay": 0.1}), ("RAdam", {}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Rprop", {}), ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
    ("ASGD", {}), ("ASGD", {"lr": 0.05, "t0": 2, "weight_decay": 0.1}),
    ("LBFGS", {}), ("LBFGS", {"lr": 0.5, "history_size": 3, "max_iter": 5}),
    ("LBFGS", {"line_search_fn": "strong_wolfe"}),
    ("Adam", {"amsgrad": True}), ("AdamW", {}), ("RMSprop", {"centered": True}),
    ("Adagrad", {"lr_decay": 0.1}),
]


def _train(lib, name, options, steps=6):
    w = lib.nn.Parameter(lib.tensor([[0.5, -1.2], [2.0, 0.3]]))
    b = lib.nn.Parameter(lib.tensor([0.1, -0.1]))
    x = lib.tensor([[1.0, 2.0], [-0.5, 0.3], [0.2, -1.0]])
    opt = getattr(lib.optim, name)([w, b], **options)

    def closure():
        opt.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).sum() + (w ** 4).sum() * 0.1
        loss.backward()
        return loss

    for _ in range(steps):
        if name == "LBFGS":
            opt.step(closure)
        else:
            closure()
            opt.step()
    return opt, w, b


@pytest.mark.parametrize("name, options", CASES, ids=[f"{n}{i}" for i, (n, _) in
                                                      enumerate(CASES)])
def test_steps_state_and_defaults_are_torchs(name, options, torch_mod):
    runs = [_train(lib, name, options) for lib in (minigrad, torch_mod)]
    (ours, w, b), (theirs, tw, tb) = runs
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(b.detach().numpy(), tb.detach().numpy(), rtol=1e-4, atol=1e-6)
    assert ours.defaults == theirs.defaults
    state, their_state = ours.state[w], theirs.state[tw]
    assert sorted(state) == sorted(their_state)
    if "step" in state:
        assert repr(state["step"]) == repr(their_state["step"]) == "tensor(6.)"


def test_adam_state_step_is_a_tensor_and_survives_a_state_dict(torch_mod):
    for lib in (minigrad, torch_mod):
        opt, w, _ = _train(lib, "Adam", {}, steps=2)
        saved = opt.state_dict()
        assert repr(saved["state"][0]["step"]) == "tensor(2.)"
        again = lib.optim.Adam([w, lib.nn.Parameter(lib.zeros(2))])
        again.load_state_dict(saved)
        assert repr(again.state[w]["step"]) == "tensor(2.)"


def test_an_older_saved_state_with_an_int_step_still_loads():
    opt, w, b = _train(minigrad, "Adam", {}, steps=1)
    saved = opt.state_dict()
    saved["state"][0]["step"] = 5
    opt.load_state_dict(saved)
    assert repr(opt.state[w]["step"]) == "tensor(5.)"


@pytest.mark.parametrize("call", [
    "Adadelta(p, rho=1.5)", "Adadelta(p, lr=-1)", "Adamax(p, betas=(1.0, 0.9))",
    "NAdam(p, momentum_decay=-1)", "RAdam(p, eps=-1)", "Rprop(p, etas=(1.5, 0.5))",
    "ASGD(p, weight_decay=-1)", "LBFGS(p, lr=-1)",
    "LBFGS([{'params': p}, {'params': [lib.nn.Parameter(lib.ones(1))]}])",
])
def test_bad_options_raise_torchs_error(call, torch_mod):
    messages = []
    for lib in (torch_mod, minigrad):
        with pytest.raises(ValueError) as caught:
            eval(f"lib.optim.{call}", {"lib": lib, "p": [lib.nn.Parameter(lib.ones(2))]})
        messages.append(str(caught.value))
    assert messages[1] == messages[0]


def test_lbfgs_refuses_an_unknown_line_search_and_changes_nothing(torch_mod):
    for lib in (torch_mod, minigrad):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = lib.optim.LBFGS([w], line_search_fn="armijo")

        def closure(opt=opt, w=w):
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)
        assert w.tolist() == [1.0, -2.0]
