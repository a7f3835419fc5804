"""torch.accelerator and torch.Generator, side by side with PyTorch: the tutorials' first line
picks the CPU, and a Generator makes random_split, DataLoader, the samplers, the random
factories and nn.init repeat themselves, with PyTorch's methods, returns and errors. (The
numbers drawn differ: minigrad's generator is numpy's.)"""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.utils import data


def test_the_tutorials_device_line_picks_the_cpu_on_both(torch_mod):
    for lib in (minigrad, torch_mod):
        acc = lib.accelerator
        device = acc.current_accelerator().type if acc.is_available() else "cpu"
        assert device == "cpu"
        assert acc.current_accelerator(check_available=True) is None
        assert acc.device_count() == 0
        with acc.device_index(None):
            pass


@pytest.mark.parametrize("call", ["current_device_index()", "synchronize()", "empty_cache()",
                                  "memory_allocated()", "set_device_index(0)",
                                  "set_device_index('cpu')",
                                  "current_stream()", "get_memory_info()"])
def test_accelerator_calls_without_an_accelerator_fail_in_torchs_words(call, torch_mod):
    with pytest.raises(RuntimeError) as theirs:
        eval(f"torch.accelerator.{call}", {"torch": torch_mod})
    with pytest.raises(RuntimeError) as ours:
        eval(f"minigrad.accelerator.{call}", {"minigrad": minigrad})
    assert str(ours.value).startswith(str(theirs.value))
    assert "minigrad computes on the CPU" in str(ours.value)


def test_no_device_index_is_refused_as_torch_refuses_it(torch_mod):
    for lib in (minigrad, torch_mod):
        with pytest.raises(ValueError, match="Expected a torch.device with a specified index "
                           "or an integer, but got:None"):
            lib.accelerator.set_device_index(None)


def test_old_accelerator_names_warn_as_torch(torch_mod):
    for lib in (minigrad, torch_mod):
        with pytest.warns(FutureWarning, match="Use `current_device_index` instead."):
            with pytest.raises(RuntimeError):
                lib.accelerator.current_device_idx()


def test_generator_methods_and_returns_are_torchs(torch_mod):
    for lib in (minigrad, torch_mod):
        g = lib.Generator()
        assert g.initial_seed() == 67280421310721 and g.device == lib.device("cpu")
        assert g.manual_seed(42) is g and g.initial_seed() == 42
        assert g.manual_seed(-1).initial_seed() == 2 ** 64 - 1
        assert g.set_state(g.get_state()) is g
        assert g.get_state().dtype == lib.uint8 and g.get_state().ndim == 1
        assert isinstance(g.seed(), int) and g.initial_seed() >= 0
        clone = g.clone_state()
        assert clone is not g and clone.initial_seed() == g.initial_seed()
        assert lib.manual_seed(7) is lib.default_generator and lib.initial_seed() == 7
        assert isinstance(lib.seed(), int)
        assert lib.manual_seed(1.5).initial_seed() == 1  # (torch.manual_seed takes int(seed))


@pytest.mark.parametrize("bad, error", [(1.5, RuntimeError), ("a", RuntimeError),
                                        (2 ** 64, ValueError), (-2 ** 63 - 1, ValueError)])
def test_generator_manual_seed_refuses_what_torch_refuses(bad, error, torch_mod):
    with pytest.raises(error) as theirs:
        torch_mod.Generator().manual_seed(bad)
    g = minigrad.Generator().manual_seed(3)
    with pytest.raises(error) as ours:
        g.manual_seed(bad)
    assert str(ours.value) == str(theirs.value)
    assert g.initial_seed() == 3  # unchanged


def test_set_state_refuses_what_torch_refuses(torch_mod):
    for lib in (minigrad, torch_mod):
        g = lib.Generator()
        with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
            g.set_state(lib.zeros(3))
        with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size .* "
                           "but found the input RNG state size to be 3"):
            g.set_state(lib.zeros(3, dtype=lib.uint8))
        with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
            g.get_offset()


def test_a_state_taken_is_a_state_restored_and_copies_keep_it(torch_mod):
    for lib in (minigrad, torch_mod):
        g = lib.Generator().manual_seed(5)
        state = g.get_state()
        first = lib.rand(4, generator=g)
        g.set_state(state)
        assert lib.equal(lib.rand(4, generator=g), first)
        again = pickle.loads(pickle.dumps(g.set_state(state)))
        assert lib.equal(lib.rand(4, generator=again), first)
        assert lib.equal(lib.rand(4, generator=copy.deepcopy(g.set_state(state))), first)
        default = lib.get_rng_state()
        x = lib.randn(3)
        lib.set_rng_state(default)
        assert lib.equal(lib.randn(3), x)
        with lib.random.fork_rng():
            lib.randn(5)
        assert not lib.equal(lib.randn(3), x)  # fork_rng put the state back, then it moved on


@pytest.mark.parametrize("draw", [
    lambda lib, g: lib.randn(2, 3, generator=g),
    lambda lib, g: lib.rand(4, generator=g),
    lambda lib, g: lib.randint(0, 10, (5,), generator=g),
    lambda lib, g: lib.randperm(6, generator=g),
    lambda lib, g: lib.normal(0.0, 1.0, (3,), generator=g),
    lambda lib, g: lib.bernoulli(lib.full((6,), 0.5), generator=g),
    lambda lib, g: lib.multinomial(lib.tensor([1.0, 2.0, 3.0]), 2, generator=g),
    lambda lib, g: lib.empty(4).uniform_(-1, 1, generator=g),
    lambda lib, g: lib.empty(4).normal_(generator=g),
    lambda lib, g: lib.nn.init.kaiming_uniform_(lib.empty(3, 2), generator=g),
    lambda lib, g: lib.nn.init.trunc_normal_(lib.empty(3), generator=g),
    lambda lib, g: lib.nn.init.orthogonal_(lib.empty(2, 2), generator=g),
])
def test_a_seeded_generator_repeats_and_leaves_the_default_alone(draw, torch_mod):
    for lib in (minigrad, torch_mod):
        lib.manual_seed(0)
        before = lib.get_rng_state()
        a = draw(lib, lib.Generator().manual_seed(42))
        b = draw(lib, lib.Generator().manual_seed(42))
        assert lib.equal(a, b)
        assert lib.equal(lib.get_rng_state(), before)


@pytest.mark.parametrize("call, op", [
    ("randn(2, generator=5)", "randn"), ("rand(2, generator=5)", "rand"),
    ("randperm(3, generator=5)", "randperm"), ("empty(2).normal_(generator=5)", "normal_"),
    ("empty(2).uniform_(generator=5)", "uniform_"),
    ("multinomial(ones(2), 1, generator=5)", "multinomial"),
])
def test_a_generator_that_is_not_one_is_refused(call, op, torch_mod):
    with pytest.raises(TypeError) as theirs:
        eval(f"torch.{call}", {"torch": torch_mod, "ones": torch_mod.ones})
    with pytest.raises(TypeError) as ours:
        eval(f"minigrad.{call}", {"minigrad": minigrad, "ones": minigrad.ones})
    assert f"{op}()" in str(theirs.value) and "generator" in str(theirs.value)
    assert str(ours.value) == f"{op}(): argument 'generator' must be torch.Generator, not int"


def _datasets(lib):
    from importlib import import_module
    return import_module(f"{lib.__name__}.utils.data")


def _repeats(lib) -> None:
    d = _datasets(lib)

    def split(seed):
        parts = d.random_split(range(10), [0.8, 0.2], generator=lib.Generator().manual_seed(seed))
        return [p.indices for p in parts]

    assert split(42) == split(42) and sorted(sum(split(42), [])) == list(range(10))

    def batches(seed):
        loader = d.DataLoader(range(8), batch_size=3, shuffle=True,
                              generator=lib.Generator().manual_seed(seed))
        return [b.tolist() for b in loader]

    assert batches(1) == batches(1) and sorted(sum(batches(1), [])) == list(range(8))
    for sampler in (lambda g: d.RandomSampler(range(6), generator=g),
                    lambda g: d.SubsetRandomSampler([3, 4, 5], generator=g),
                    lambda g: d.WeightedRandomSampler([1.0, 2.0, 3.0], 4, generator=g)):
        assert list(sampler(lib.Generator().manual_seed(3))) == \
            list(sampler(lib.Generator().manual_seed(3)))


def test_random_split_dataloader_and_samplers_repeat_with_a_generator(torch_mod):
    _repeats(minigrad)
    _repeats(torch_mod)


def test_a_dataset_split_refuses_a_generator_that_is_not_one(torch_mod):
    with pytest.raises(TypeError, match="randperm"):
        torch_mod.utils.data.random_split(range(4), [2, 2], generator=5)
    with pytest.raises(TypeError, match="randperm"):
        data.random_split(range(4), [2, 2], generator=5)


def test_numpy_generators_are_still_taken_by_the_samplers():
    """(minigrad's own: before minigrad had a Generator, a numpy one was the way.)"""
    a = data.random_split(range(10), [5, 5], generator=np.random.default_rng(1))
    b = data.random_split(range(10), [5, 5], generator=np.random.default_rng(1))
    assert a[0].indices == b[0].indices


def test_bernoulli_and_multinomial_check_what_torch_checks(torch_mod):
    cases = ["bernoulli(tensor([0.5, 1.5]))", "bernoulli(tensor([1, 0]))",
             "multinomial(tensor([0., 0.]), 1)", "multinomial(tensor([1., 2.]), 3)",
             "multinomial(tensor([1., -2.]), 1)", "multinomial(ones(2, 2, 2), 1)",
             "multinomial(tensor([1., 2.]), 0)", "multinomial(tensor([1, 2]), 1)"]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            eval(f"torch.{case}", {"torch": torch_mod, "tensor": torch_mod.tensor,
                                   "ones": torch_mod.ones})
        with pytest.raises(type(theirs.value)) as ours:
            eval(f"minigrad.{case}", {"minigrad": minigrad, "tensor": minigrad.tensor,
                                      "ones": minigrad.ones})
        assert str(ours.value) == str(theirs.value).split("  (Could this")[0], case


def test_bernoulli_and_multinomial_draw_what_they_should():
    g = minigrad.Generator().manual_seed(0)
    sure = minigrad.bernoulli(minigrad.tensor([0.0, 1.0, 0.0, 1.0]), generator=g)
    assert sure.tolist() == [0.0, 1.0, 0.0, 1.0] and sure.dtype == minigrad.float32
    rows = minigrad.multinomial(minigrad.tensor([[0.0, 1.0, 1.0], [5.0, 0.0, 0.0]]), 2,
                                replacement=True, generator=g)
    assert rows.dtype == minigrad.int64 and rows.shape == (2, 2)
    assert set(rows[0].tolist()) <= {1, 2} and rows[1].tolist() == [0, 0]
    order = minigrad.multinomial(minigrad.tensor([1.0, 1.0, 1.0]), 3, generator=g)
    assert sorted(order.tolist()) == [0, 1, 2]
    x = minigrad.ones(1000).bernoulli_(0.25, generator=g)
    assert 0.15 < float(x.mean()) < 0.35 and not x.requires_grad


def test_the_default_generator_drives_the_factories_dropout_and_init():
    minigrad.manual_seed(11)
    first = (minigrad.randn(3), minigrad.nn.functional.dropout(minigrad.ones(8)),
             minigrad.nn.Linear(2, 2).weight.detach().clone())
    minigrad.manual_seed(11)
    again = (minigrad.randn(3), minigrad.nn.functional.dropout(minigrad.ones(8)),
             minigrad.nn.Linear(2, 2).weight.detach().clone())
    assert all(minigrad.equal(a, b) for a, b in zip(first, again))


def test_generators_on_other_devices_fail_as_on_a_cpu_only_torch(torch_mod):
    with pytest.raises(RuntimeError, match="META device type not an accelerator."):
        torch_mod.Generator(device="meta")
    with pytest.raises(RuntimeError, match="META device type not an accelerator."):
        minigrad.Generator(device="meta")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError):
            torch_mod.Generator("cuda")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        minigrad.Generator("cuda")
