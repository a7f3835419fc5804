"""The speed-ups on the MLP training step give exactly what the general code gives.

Each fast path is checked bit for bit (so +0.0 vs -0.0 and NaN/inf count) against numpy or
against the general path it skips, and the cases it must not take are checked to fall back.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.ops import selection

FLOATS = [np.float16, np.float32, np.float64]
BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and bits: tells -0.0 from +0.0 and one NaN from another."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    bits = BITS[a.dtype.itemsize]
    return np.array_equal(a.view(bits), b.view(bits))


def awkward(dtype, shape=(6, 7), seed=0) -> np.ndarray:
    """Random values with -0.0, +-inf and NaN sprinkled in."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[:4] = [-0.0, np.inf, -np.inf, np.nan]
    rng.shuffle(flat)
    return x


# -- where(c, grad, 0) / where(c, 0, grad) ------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("zero", [0.0, 0])
def test_where_fast_path_is_np_where_bit_for_bit(dtype, zero):
    g = awkward(dtype)
    c = np.random.default_rng(1).random(g.shape) > 0.5
    for got, want in [(mg.where(c, mg.tensor(g), zero), np.where(c, g, zero)),
                      (mg.where(c, zero, mg.tensor(g)), np.where(c, zero, g))]:
        assert got.dtype == dtype
        assert same_bits(got.data, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_where_fast_path_gives_plus_zero_for_negative_inf_and_nan(dtype):
    g = np.array([-1.0, -0.0, np.inf, -np.inf, np.nan, 2.0], dtype)
    keep = np.array([False, False, False, False, False, True])
    out = mg.where(keep, mg.tensor(g), 0.0).data
    assert out.dtype == dtype
    assert np.array_equal(out, np.array([0, 0, 0, 0, 0, 2], dtype))
    assert not np.signbit(out).any() and not np.isnan(out).any()
    out = mg.where(~keep, 0.0, mg.tensor(g)).data
    assert np.array_equal(out, np.array([0, 0, 0, 0, 0, 2], dtype))
    assert not np.signbit(out).any()


def test_where_fast_path_keeps_nan_bits_where_chosen():
    g = np.array([np.nan, -np.nan, 1.0], np.float32)
    out = mg.where(np.array([True, True, False]), mg.tensor(g), 0.0).data
    assert same_bits(out, np.array([np.nan, -np.nan, 0.0], np.float32))


def test_where_fast_path_on_a_non_contiguous_array():
    g = awkward(np.float32, (7, 6)).T  # a transposed view
    c = np.random.default_rng(2).random(g.shape) > 0.5
    assert same_bits(mg.where(c, mg.tensor(g), 0.0).data, np.where(c, g, 0.0))


@pytest.mark.parametrize("cond_shape, g_shape", [
    ((6, 1), (6, 7)),  # the condition broadcasts
    ((6, 7), (7,)),  # the value broadcasts
    ((), ()),  # 0-d
    ((6, 7), (6, 7)),
])
@pytest.mark.parametrize("other", [0.0, -0.0, 0, 1.5, False])
def test_where_other_cases_still_match_np_where(cond_shape, g_shape, other):
    g = awkward(np.float32, g_shape) if g_shape else np.array(-3.0, np.float32)
    c = np.random.default_rng(3).random(cond_shape) > 0.5
    for got, want in [(mg.where(c, mg.tensor(g), other), np.where(c, g, other)),
                      (mg.where(c, other, mg.tensor(g)), np.where(c, other, g))]:
        assert got.shape == want.shape
        assert same_bits(got.data, want)


def test_where_minus_zero_is_kept():
    """-0.0 is not the fast path's zero: its sign bit must survive."""
    out = mg.where(np.array([True, False]), mg.tensor([1.0, 2.0]), -0.0).data
    assert np.signbit(out).tolist() == [False, True]


def test_where_fast_path_with_two_tensors_or_int_arrays_is_not_taken():
    c = np.array([True, False, True])
    a, b = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([-0.0, -5.0, 0.0])
    assert same_bits(mg.where(c, a, b).data, np.where(c, a.data, b.data))
    ints = mg.tensor([1, 2, 3])
    assert np.array_equal(mg.where(c, ints, 0).data, [1, 0, 3])
    assert mg.where(c, ints, 0).dtype == ints.dtype


def test_where_fast_path_records_the_same_node_and_gradient():
    a = mg.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    c = np.array([[True, False], [False, True]])
    y = mg.where(c, a, 0.0)
    assert y.grad_fn.name() == "WhereBackward0"
    y.backward(mg.tensor([[-1.0, -1.0], [np.inf, 2.0]]))
    assert same_bits(a.grad.data, np.array([[-1.0, 0.0], [0.0, 2.0]], np.float32))


@pytest.mark.parametrize("dtype", FLOATS)
def test_relu_backward_gives_plus_zero_where_input_is_not_positive(dtype):
    x = mg.tensor(np.array([-1.0, 0.0, 2.0, -0.0, 3.0, -np.inf], dtype), requires_grad=True)
    mg.relu(x).backward(mg.tensor(np.array([-5.0, np.nan, -7.0, np.inf, np.nan, -1.0], dtype)))
    assert x.grad.dtype == dtype
    expected = np.array([0.0, 0.0, -7.0, 0.0, np.nan, 0.0], dtype)
    assert same_bits(x.grad.data, expected)
    assert not np.signbit(x.grad.data[[0, 1, 3, 5]]).any()


def test_relu_double_backward_still_records_where():
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    y = mg.relu(x)
    (g,) = mg.autograd.grad((y * y).sum(), x, create_graph=True)
    assert g.grad_fn is not None and g.grad_fn.name() == "WhereBackward0"
    assert same_bits(g.data, np.array([0.0, 4.0], np.float32))


def test_keep_or_zero_matches_np_where_for_random_masks():
    rng = np.random.default_rng(4)
    for dtype in FLOATS:
        for shape in [(1,), (5,), (3, 4), (2, 3, 4), (128, 256)]:
            x = awkward(dtype, shape, seed=int(rng.integers(1000))) if np.prod(shape) >= 4 \
                else rng.standard_normal(shape).astype(dtype)
            keep = rng.random(shape) > 0.5
            assert same_bits(selection._keep_or_zero(x, keep), np.where(keep, x, 0.0))
