"""optim.lr_scheduler side by side with PyTorch's: the same lr (and momentum) sequences over 30
steps, get_last_lr, the order warning, state_dict, ReduceLROnPlateau, and errors."""

from __future__ import annotations

import warnings

import pytest

import minigrad as mg
from minigrad import nn, optim
from minigrad.optim import lr_scheduler

SCHEDULES = [
    ("StepLR", {"step_size": 4, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [3, 7, 7, 20], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 8, "eta_min": 0.001}),
    ("LinearLR", {"start_factor": 0.25, "total_iters": 6}),
    ("LambdaLR", {"lr_lambda": lambda epoch: 0.95 ** epoch + 0.01 * (epoch % 3)}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 31}),
    ("OneCycleLR", {"max_lr": [0.5, 0.2], "epochs": 4, "steps_per_epoch": 8,
                    "anneal_strategy": "linear", "three_phase": True}),
]
OPTIMIZERS = [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.1})]


def _optimizer(lib, name, options):
    a = lib.nn.Parameter(lib.ones(2))
    b = lib.nn.Parameter(lib.ones(1))
    return getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.05}], **options)


def _run(lib, opt, scheduler, steps=30):
    lrs, momenta = [scheduler.get_last_lr()], []
    for _ in range(steps):
        for group in opt.param_groups:
            for p in group["params"]:
                p.grad = lib.ones_like(p)
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
        momenta.append([g.get("momentum", g.get("betas", (None,))[0]) for g in opt.param_groups])
    return lrs, momenta


@pytest.mark.parametrize("opt_name, opt_options", OPTIMIZERS)
@pytest.mark.parametrize("name, options", SCHEDULES)
def test_sequences_equal_pytorchs(name, options, opt_name, opt_options, torch_mod):
    ours = _optimizer(mg, opt_name, opt_options)
    theirs = _optimizer(torch_mod, opt_name, opt_options)
    sched = getattr(lr_scheduler, name)(ours, **options)
    ref = getattr(torch_mod.optim.lr_scheduler, name)(theirs, **options)
    steps = 30 if name != "OneCycleLR" else ref.total_steps - 1
    got, expected = _run(mg, ours, sched, steps), _run(torch_mod, theirs, ref, steps)
    assert got == expected  # (the same floats: PyTorch's formulas in PyTorch's order)
    assert [g["lr"] for g in ours.param_groups] == [g["lr"] for g in theirs.param_groups]
    mine, torch_sd = sched.state_dict(), ref.state_dict()
    assert set(mine) - {"lr_lambdas"} <= set(torch_sd)
    assert {k: v for k, v in mine.items() if k in ("last_epoch", "base_lrs", "_step_count",
                                                   "_last_lr")} == \
        {k: v for k, v in torch_sd.items() if k in ("last_epoch", "base_lrs", "_step_count",
                                                    "_last_lr")}


def test_scheduler_step_before_optimizer_step_warns_like_pytorch():
    opt = optim.SGD([nn.Parameter(mg.ones(1))], lr=0.1)
    sched = lr_scheduler.StepLR(opt, 1)
    with pytest.warns(UserWarning, match=r"^Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`. In PyTorch 1.1.0 and later"):
        sched.step()
    opt = optim.SGD([nn.Parameter(mg.ones(1))], lr=0.1)
    sched = lr_scheduler.StepLR(opt, 1)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        sched.get_lr()


def test_reduce_on_plateau_matches_pytorch(torch_mod):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.5, 0.6, 0.6]
    for options in ({"patience": 2}, {"mode": "max", "patience": 1, "factor": 0.5,
                                      "cooldown": 2, "threshold_mode": "abs", "min_lr": 0.02}):
        ours, theirs = _optimizer(mg, "SGD", {"lr": 0.1}), _optimizer(torch_mod, "SGD",
                                                                      {"lr": 0.1})
        sched = lr_scheduler.ReduceLROnPlateau(ours, **options)
        ref = torch_mod.optim.lr_scheduler.ReduceLROnPlateau(theirs, **options)
        for m in metrics:
            sched.step(mg.tensor(m))
            ref.step(torch_mod.tensor(m))
            assert sched.get_last_lr() == ref.get_last_lr()
            assert (sched.num_bad_epochs, sched.best) == (ref.num_bad_epochs, ref.best)


def test_errors_in_pytorchs_words():
    opt = optim.SGD([nn.Parameter(mg.ones(1))], lr=0.1)
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        lr_scheduler.StepLR([], 1)
    with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="^mode avg is unknown!$"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="^Starting multiplicative factor expected to be "
                                         "greater than 0 and less or equal to 1.$"):
        lr_scheduler.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="^Expected 1 lr_lambdas, but got 2$"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1, lambda e: 1])
    with pytest.raises(ValueError, match="^You must define either total_steps OR"):
        lr_scheduler.OneCycleLR(opt, 0.1)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in "
                                       "param_groups\\[0\\]"):
        lr_scheduler.StepLR(optim.SGD([nn.Parameter(mg.ones(1))], lr=0.1), 1, last_epoch=3)
    one = lr_scheduler.OneCycleLR(opt, 0.1, total_steps=2)
    with pytest.warns(UserWarning, match=r"^Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`"):  # as PyTorch warns
        one.step()
    one.step()
    with pytest.raises(ValueError, match="^Tried to step 3 times. The specified number of "
                                         "total steps is 2$"):
        one.step()
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.OneCycleLR(optim.Adagrad([nn.Parameter(mg.ones(1))]), 0.1, total_steps=5)


def test_state_dict_round_trip_resumes_the_schedule():
    opt = optim.SGD([nn.Parameter(mg.ones(1))], lr=0.1)
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(4):
        opt.step()
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in saved
    expected = []
    for _ in range(4):
        opt.step()
        sched.step()
        expected.append(sched.get_last_lr())
    opt2 = optim.SGD([nn.Parameter(mg.ones(1))], lr=0.1)
    opt2.load_state_dict(saved_opt)
    sched2 = lr_scheduler.CosineAnnealingLR(opt2, T_max=10)
    sched2.load_state_dict(saved)
    got = []
    for _ in range(4):
        opt2.step()
        sched2.step()
        got.append(sched2.get_last_lr())
    assert got == expected
