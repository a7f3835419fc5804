"""The small-op chain's fast paths give the bits of the general path (tanh's backward in
numpy alone when nothing is recorded; arithmetic with a Python float)."""

import numpy as np
import pytest

import minigrad


def grads_of(fn, x0, create_graph):
    x = minigrad.tensor(x0, requires_grad=True)
    (g,) = minigrad.autograd.grad(fn(x).sum(), [x], create_graph=create_graph)
    return g


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("fn", [
    lambda x: x.tanh(),
    lambda x: (x * 0.9 + 0.1).tanh() * 1.7,
    lambda x: (0.3 - x) / 0.7,
])
def test_plain_backward_has_the_bits_of_the_recorded_one(fn, dtype):
    x0 = np.linspace(-3, 3, 37).astype(dtype)
    plain = grads_of(fn, x0, create_graph=False)
    recorded = grads_of(fn, x0, create_graph=True)
    assert plain.grad_fn is None
    assert plain.dtype == recorded.dtype
    np.testing.assert_array_equal(plain.data.view(np.uint8), recorded.data.view(np.uint8))


def test_tanh_double_backward_still_records_tanh_backward_backward():
    x = minigrad.tensor([0.3, -1.2], requires_grad=True)
    (g,) = minigrad.autograd.grad(x.tanh().sum(), [x], create_graph=True)
    assert g.grad_fn.name() == "TanhBackwardBackward0"
    (gg,) = minigrad.autograd.grad(g.sum(), [x])
    t = np.tanh(x.data)
    np.testing.assert_allclose(gg.data, -2 * t * (1 - t * t), rtol=1e-6)


def test_tanh_backward_still_refuses_a_modified_output():
    x = minigrad.tensor([0.3, -1.2], requires_grad=True)
    y = x.tanh()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    assert x.grad is None
