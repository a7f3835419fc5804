"""The schedulers minigrad lacked, side by side with PyTorch (MultiplicativeLR, ConstantLR,
PolynomialLR, CosineAnnealingWarmRestarts, SequentialLR, ChainedScheduler, CyclicLR): the same
learning rates (and cycled momenta) step by step, the same errors; and every scheduler's
`__module__` is the lr_scheduler module, which d2l's `train` tests to decide how to step it."""

from __future__ import annotations

import pytest

import minigrad

SCHEDULES = {
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9),
    "ConstantLR": lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, total_iters=6, power=2.0),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.001),
    "SequentialLR": lambda L, o: L.SequentialLR(o, [L.LinearLR(o, start_factor=0.1,
                                                               total_iters=3),
                                                    L.ExponentialLR(o, gamma=0.9)], [3]),
    "SequentialLR of three": lambda L, o: L.SequentialLR(
        o, [L.ConstantLR(o, factor=0.1, total_iters=2), L.StepLR(o, 2, 0.5),
            L.CosineAnnealingLR(o, 4)], milestones=[2, 6]),
    "ChainedScheduler": lambda L, o: L.ChainedScheduler([L.ConstantLR(o, factor=0.1,
                                                                      total_iters=2),
                                                         L.ExponentialLR(o, gamma=0.9)]),
    "CyclicLR": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
    "CyclicLR triangular2": lambda L, o: L.CyclicLR(o, [0.01, 0.02], 0.1, step_size_up=2,
                                                    step_size_down=4, mode="triangular2"),
    "CyclicLR exp_range": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2,
                                                  mode="exp_range", gamma=0.9),
    "CyclicLR scale_fn": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2,
                                                 scale_fn=lambda x: 0.5 ** x,
                                                 scale_mode="iterations"),
}


def _run(lib, make, optimizer="SGD", steps=14):
    p, q = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))
    extra = {"momentum": 0.9} if optimizer == "SGD" else {}
    opt = getattr(lib.optim, optimizer)([{"params": [p]}, {"params": [q], "lr": 0.05}],
                                        lr=0.1, **extra)
    scheduler = make(lib.optim.lr_scheduler, opt)
    seen = []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        seen.append([round(lr, 12) for lr in scheduler.get_last_lr()]
                    + [round(g.get("momentum", g.get("betas", (0,))[0]), 12)
                       for g in opt.param_groups])
    return seen


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_learning_rates_are_torchs_step_by_step(name, torch_mod):
    assert _run(minigrad, SCHEDULES[name]) == _run(torch_mod, SCHEDULES[name])


def test_cyclic_lr_cycles_adams_beta1(torch_mod):
    make = SCHEDULES["CyclicLR"]
    assert _run(minigrad, make, "Adam") == _run(torch_mod, make, "Adam")


@pytest.mark.parametrize("call", [
    "L.CyclicLR(o, base_lr=[0.1], max_lr=1.0)", "L.CyclicLR(o, 0.1, 1.0, mode='x')",
    "L.ConstantLR(o, factor=2)", "L.CosineAnnealingWarmRestarts(o, T_0=0)",
    "L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0)",
    "L.SequentialLR(o, [L.StepLR(o, 2)], milestones=[1])", "L.ChainedScheduler([])",
    "L.SequentialLR(o, [L.ReduceLROnPlateau(o)], milestones=[])",
    "L.CyclicLR(lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))]), 0.1, 1.0)",
    "L.MultiplicativeLR(o, [1, 2])", "L.MultiplicativeLR(o, [lambda e: 1])",
])
def test_misuse_raises_torchs_error(call, torch_mod):
    messages = []
    for lib in (torch_mod, minigrad):
        p = lib.nn.Parameter(lib.ones(2))
        o = lib.optim.SGD([{"params": [p]}, {"params": [lib.nn.Parameter(lib.ones(1))]}],
                          lr=0.1)
        with pytest.raises((ValueError, TypeError)) as caught:
            eval(call, {"L": lib.optim.lr_scheduler, "o": o, "lib": lib})
        messages.append((type(caught.value), str(caught.value)))
    assert messages[1] == messages[0]


def test_every_scheduler_says_it_is_the_lr_scheduler_modules(torch_mod):
    """d2l: `if scheduler.__module__ == lr_scheduler.__name__: scheduler.step()`, else it
    calls `scheduler(epoch)` (the bug: `'MultiStepLR' object is not callable`)."""
    for lib in (minigrad, torch_mod):
        module = lib.optim.lr_scheduler
        for name in minigrad.optim.lr_scheduler.__all__:
            assert getattr(module, name).__module__ == module.__name__, name
    opt = minigrad.optim.SGD([minigrad.nn.Parameter(minigrad.ones(1))], lr=0.5)
    scheduler = minigrad.optim.lr_scheduler.MultiStepLR(opt, milestones=[1], gamma=0.1)
    opt.step()
    if scheduler.__module__ == minigrad.optim.lr_scheduler.__name__:
        scheduler.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05)


def test_state_dicts_of_schedulers_made_of_schedulers_round_trip(torch_mod):
    seen = []
    for lib in (minigrad, torch_mod):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        L = lib.optim.lr_scheduler
        made = L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 2), L.ExponentialLR(opt, 0.9)], [2])
        for _ in range(3):
            opt.step()
            made.step()
        saved = made.state_dict()
        other = L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 2), L.ExponentialLR(opt, 0.9)],
                               [2])
        other.load_state_dict(saved)
        seen.append(([s["last_epoch"] for s in saved["_schedulers"]], other.last_epoch,
                     sorted(saved)))
    assert seen[0] == seen[1]
