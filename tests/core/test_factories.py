"""Factories and legacy constructors, against torch: shapes, dtypes, errors, shared memory."""

import warnings

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def same_kind(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert repr(ours.dtype) == repr(theirs.dtype).replace("torch.", "minigrad.")
    assert ours.requires_grad == theirs.requires_grad


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(2, 3), lambda m: m.zeros((2, 3)), lambda m: m.zeros([2, 3]),
    lambda m: m.zeros(m.Size([2, 3])), lambda m: m.zeros(size=(2, 3)),
    lambda m: m.ones(2, dtype=m.int64), lambda m: m.empty(3, requires_grad=True),
    lambda m: m.rand(2, 2), lambda m: m.randn(size=(4,), dtype=m.float64),
    lambda m: m.full((2,), 3), lambda m: m.full((2,), True), lambda m: m.full((2,), 1.5),
    lambda m: m.randint(0, 5, (3,)), lambda m: m.randint(5, (3,)),
    lambda m: m.randint(5, size=(2,)),
    lambda m: m.randperm(4), lambda m: m.arange(5), lambda m: m.arange(0, 1, 0.5),
    lambda m: m.arange(0.0, 3), lambda m: m.linspace(0, 1, 3), lambda m: m.logspace(0, 2, 3),
    lambda m: m.eye(2, 3), lambda m: m.eye(2, dtype=m.int64),
    lambda m: m.normal(0.0, 1.0, (2,)), lambda m: m.normal(m.zeros(2), 1.0),
    lambda m: m.normal(0.0, m.ones(2)), lambda m: m.normal(m.zeros(2), m.ones(2)),
    lambda m: m.zeros_like(m.ones(2), dtype=m.int64), lambda m: m.ones_like(m.ones(2)),
    lambda m: m.empty_like(m.ones(2)), lambda m: m.full_like(m.ones(2, dtype=m.int64), 2.7),
    lambda m: m.rand_like(m.ones(2)), lambda m: m.randn_like(m.ones(2, dtype=m.float64)),
    lambda m: m.randint_like(m.ones(2), 5), lambda m: m.randint_like(m.ones(2), 2, 5),
    lambda m: m.Tensor(2, 3), lambda m: m.Tensor([1, 2]), lambda m: m.Tensor(),
    lambda m: m.FloatTensor([1, 2]), lambda m: m.DoubleTensor(2, 2), lambda m: m.LongTensor([1, 2]),
    lambda m: m.IntTensor([1]), lambda m: m.LongTensor(3), lambda m: m.FloatTensor(2),
    lambda m: m.BoolTensor([1, 0]), lambda m: m.ByteTensor([1, 2]),
    lambda m: m.ones(2).new_zeros(2, 3), lambda m: m.ones(2, dtype=m.float64).new_ones((2,)),
    lambda m: m.ones(2).new_full((2,), 3), lambda m: m.ones(2).new_empty(2),
    lambda m: m.ones(2, dtype=m.float64).new_tensor([1, 2]),
    lambda m: m.ones(2).new_zeros(2, requires_grad=True),
])
def test_factory_shape_dtype_and_requires_grad_match_torch(call):
    same_kind(call(minigrad), call(torch))


def test_values_of_the_deterministic_factories():
    assert minigrad.Tensor(2, 3).tolist() == [[0.0] * 3] * 2  # (zeros, where torch leaves junk)
    assert minigrad.LongTensor([1.7, 2]).tolist() == [1, 2]
    assert minigrad.LongTensor(3).tolist() == [0, 0, 0]
    # minigrad's own: one number is a 0-d tensor (PyTorch reads Tensor(3) as a shape)
    assert minigrad.Tensor(3).tolist() == 3 and minigrad.Tensor(2.5).tolist() == 2.5
    assert minigrad.logspace(0, 2, 3, base=2).tolist() == [1.0, 2.0, 4.0]
    assert minigrad.full_like(minigrad.ones(2, dtype=minigrad.int64), 2.7).tolist() == [2, 2]


BAD_SIZES = [lambda m: m.zeros(2.5), lambda m: m.zeros((2, 2.5)), lambda m: m.zeros("a"),
             lambda m: m.zeros(2, size=(3,)), lambda m: m.full(2, 1.0), lambda m: m.zeros(),
             lambda m: m.randint(0, 5), lambda m: m.FloatTensor(2.5)]
BAD_VALUES = [lambda m: m.zeros(-1), lambda m: m.arange(0, 1, 0),
              lambda m: m.normal(m.zeros(2), -1.0), lambda m: m.normal(m.zeros(2), m.ones(3)),
              lambda m: m.zeros(2, dtype=m.int64, requires_grad=True),
              lambda m: m.randint(5, (2,), requires_grad=True)]


@pytest.mark.parametrize("call, error", [(c, TypeError) for c in BAD_SIZES]
                         + [(c, RuntimeError) for c in BAD_VALUES])
def test_bad_arguments_raise_torchs_error(call, error):
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as ours:
        call(minigrad)
    assert str(ours.value) == str(theirs.value)


def test_out_is_filled_and_pin_memory_refused_as_on_cpu_only_torch():
    for lib in (minigrad, torch):  # (tests/core/test_out.py: out= everywhere)
        target = lib.ones(3, dtype=lib.int64)
        assert lib.zeros(2, out=target) is target and target.tolist() == [0, 0]
    with pytest.raises(RuntimeError) as theirs:
        torch.zeros(2, pin_memory=True)
    with pytest.raises(RuntimeError) as ours:
        minigrad.zeros(2, pin_memory=True)
    first, hint = str(ours.value).split("\n")
    assert first == str(theirs.value) and "minigrad computes on the CPU" in hint
    with pytest.raises(TypeError) as theirs:
        torch.tensor([1.0], torch.float64)
    with pytest.raises(TypeError):
        minigrad.tensor([1.0], minigrad.float64)  # (keyword-only, as torch's)


def test_from_numpy_and_as_tensor_share_memory():
    a = np.zeros(3, dtype=np.float32)
    t = minigrad.from_numpy(a)
    a[0] = 5.0
    assert t.tolist() == [5.0, 0.0, 0.0]
    assert np.shares_memory(minigrad.as_tensor(a).array, a)
    assert not np.shares_memory(minigrad.as_tensor(a, dtype=minigrad.float64).array, a)
    x = minigrad.ones(2)
    assert minigrad.as_tensor(x) is x


def test_tensor_of_a_tensor_copies_and_warns_as_torch():
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.tensor(torch.ones(2))
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        x = minigrad.ones(2)
        y = minigrad.tensor(x)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    y[0] = 3.0
    assert x.tolist() == [1.0, 1.0]


def test_legacy_isinstance_and_seeded_randomness():
    assert isinstance(minigrad.ones(2), minigrad.FloatTensor)
    assert not isinstance(minigrad.ones(2, dtype=minigrad.int64), minigrad.FloatTensor)
    minigrad.manual_seed(3)
    a = minigrad.randn(3)
    minigrad.manual_seed(3)
    assert minigrad.randn(3).tolist() == a.tolist()
