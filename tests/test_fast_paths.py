"""The speed-ups on the MLP training step give exactly what the general code gives.

Each fast path is checked bit for bit (so +0.0 vs -0.0 and NaN/inf count) against numpy or
against the general path it skips, and the cases it must not take are checked to fall back.
"""

from __future__ import annotations

import numpy as np
import pytest

import bitwise
import minigrad as mg
import minigrad.nn.functional as F
from bitwise import FLOATS, same_bits
from minigrad.ops import losses as L
from minigrad.ops import selection


def awkward(dtype, shape=(6, 7), seed=0) -> np.ndarray:
    return bitwise.awkward(dtype, shape, seed)


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


# -- nll_loss / cross_entropy ------------------------------------------------------------------
def general_only(monkeypatch):
    """Make NllLoss always take the general path (to compare against)."""
    monkeypatch.setattr(L, "_nll_plain", lambda x, labels, reduction:
                        L._nll_general(x, labels, None, reduction, -100))


def run_nll(x, labels, loss_fn=F.nll_loss, **kwargs):
    t = mg.tensor(x, requires_grad=True)
    loss = loss_fn(t, labels, **kwargs)
    loss.backward(mg.ones_like(loss) if loss.ndim else None)
    return loss.data, t.grad.data, loss.grad_fn.name()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("loss_fn", [F.nll_loss, F.cross_entropy])
def test_nll_plain_path_equals_general_path(monkeypatch, reduction, dtype, loss_fn):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 4)).astype(dtype)
    x[0, :] = [-0.0, np.inf, -np.inf, 0.0] if loss_fn is F.nll_loss else [-0.0, 9, -9, 0.0]
    labels = rng.integers(0, 4, 9)
    labels[0] = 0
    fast = run_nll(x, labels, loss_fn, reduction=reduction)
    with monkeypatch.context() as m:
        general_only(m)
        slow = run_nll(x, labels, loss_fn, reduction=reduction)
    assert fast[2] == slow[2] == "NllLossBackward0"
    for a, b in zip(fast[:2], slow[:2]):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a, b)  # NaN == NaN here
        finite = ~np.isnan(a)
        assert np.array_equal(np.signbit(a[finite]), np.signbit(b[finite]))


def test_nll_plain_path_direct_bits():
    rng = np.random.default_rng(6)
    for dtype in FLOATS:
        x = rng.standard_normal((128, 10)).astype(dtype)
        labels = rng.integers(0, 10, 128).astype(np.uint8)
        for reduction in ("mean", "sum", "none"):
            fast = L._nll_plain(x, labels, reduction)
            slow = L._nll_general(x, labels, None, reduction, -100)
            assert all(same_bits(a, b) for a, b in zip(fast, slow)), (dtype, reduction)


def test_nll_saves_the_same_node_and_values():
    x = mg.tensor(np.random.default_rng(7).standard_normal((5, 3)), requires_grad=True)
    loss = F.nll_loss(x, [0, 2, 1, 1, 0])
    node = loss.grad_fn
    assert node.name() == "NllLossBackward0"
    assert node.next_functions == ((x.grad_fn or x._accumulator(), 0),)
    (coef,) = node.saved_tensors
    expected = np.zeros((5, 3))
    expected[range(5), [0, 2, 1, 1, 0]] = -1 / 5
    assert same_bits(coef.data, expected)


@pytest.mark.parametrize("case", ["weight", "ignored label", "1-D", "3-D", "empty batch"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_falls_back_to_the_general_path(monkeypatch, case, reduction):
    rng = np.random.default_rng(8)
    kwargs: dict = {"reduction": reduction}
    x = rng.standard_normal((6, 4)).astype(np.float32)
    labels = np.array([0, 1, 2, 3, 2, 1])
    if case == "weight":
        kwargs["weight"] = mg.tensor([1.0, 2.0, 0.5, 3.0])
    elif case == "ignored label":
        kwargs["ignore_index"] = 2
    elif case == "1-D":
        x, labels = x[0], np.array(3)
    elif case == "empty batch":  # 'mean' is 0/0 = nan, computed (without a warning) there
        x, labels = x[:0], labels[:0]
    else:
        x, labels = rng.standard_normal((3, 4, 5)).astype(np.float32), rng.integers(0, 4, (3, 5))
    calls = []
    general = L._nll_general
    monkeypatch.setattr(L, "_nll_plain", lambda *a: pytest.fail("plain path taken"))
    monkeypatch.setattr(L, "_nll_general", lambda *a: calls.append(1) or general(*a))
    loss, grad, name = run_nll(x, labels, **kwargs)
    assert calls and name == "NllLossBackward0"
    assert grad.shape == x.shape and np.isfinite(grad).all()


def test_nll_ignore_index_not_present_takes_the_plain_path(monkeypatch):
    x = np.random.default_rng(9).standard_normal((4, 3)).astype(np.float32)
    labels = np.array([0, 1, 1, 0])
    fast = run_nll(x, labels, ignore_index=2)
    with monkeypatch.context() as m:
        m.setattr(L, "_nll_general", lambda *a: pytest.fail("general path taken"))
        run_nll(x, labels, ignore_index=2)
    with monkeypatch.context() as m:
        general_only(m)
        slow = run_nll(x, labels, ignore_index=2)
    assert all(same_bits(a, b) for a, b in zip(fast[:2], slow[:2]))


def test_nll_plain_path_against_a_numpy_reference():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((7, 5)).astype(np.float32)
    labels = rng.integers(0, 5, 7)
    loss, grad, _ = run_nll(x, labels)
    assert np.isclose(loss, -x[np.arange(7), labels].mean(), rtol=1e-6)
    expected = np.zeros_like(x)
    expected[np.arange(7), labels] = -1 / 7
    assert same_bits(grad, expected)
