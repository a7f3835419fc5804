"""The engine carries gradients as numpy arrays in a pass that records nothing (engine.py):
everything a user sees is still a Tensor, and the values are those of the Tensor path.

Each case runs side by side with PyTorch where PyTorch has the same call, and checks the
types the user gets: hooks' arguments, `autograd.grad`'s results, `.grad`, a node called by
hand, a custom Function's backward (which may return arrays and numbers).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import events


def test_a_node_called_by_hand_under_no_grad_gives_tensors(torch_mod) -> None:
    for T in (mg, torch_mod):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = (x.tanh() * 3.0) + 1.0
        add = y.grad_fn
        mul = add.next_functions[0][0]
        tanh = mul.next_functions[0][0]
        with T.no_grad():
            out = add(T.ones(2))
            inner = mul(T.ones(2))
            last = tanh(T.ones(2))
        for got in (out, inner, last):  # a tuple (None for the number's edge) or one tensor
            got = got if isinstance(got, tuple) else (got,)
            assert [type(g) for g in got if g is not None] == [T.Tensor], (T.__name__, got)
        np.testing.assert_allclose(np.asarray(last.detach()), [1 - np.tanh(1) ** 2,
                                                             1 - np.tanh(2) ** 2], rtol=1e-6)


def test_hooks_grad_and_retained_grads_see_tensors() -> None:
    seen: list = []
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    h = x * 2.0
    h.retain_grad()
    h.register_hook(lambda g: seen.append(type(g)))
    y = (h.tanh() + 1.0) * 3.0
    y.grad_fn.register_prehook(lambda gs: seen.append(tuple(map(type, gs))))
    y.grad_fn.register_hook(lambda gi, go: seen.append(tuple(map(type, gi))))
    (gx,) = mg.autograd.grad(y.sum(), [x], retain_graph=True)
    y.sum().backward()
    assert isinstance(gx, mg.Tensor) and isinstance(x.grad, mg.Tensor)
    assert isinstance(h.grad, mg.Tensor)
    assert seen and all(t is mg.Tensor or t == (mg.Tensor,) or t == (mg.Tensor, type(None))
                        for t in seen), seen
    np.testing.assert_array_equal(x.grad.array, gx.array)


def test_fan_in_of_zero_dim_gradients_stays_a_tensor(torch_mod) -> None:
    got = {}
    for T in (mg, torch_mod):
        x = T.tensor(0.5, requires_grad=True)
        y = x * 2.0 + x * 3.0 + (x - 1.0) * x
        y.backward()
        got[T.__name__] = x.grad
        assert isinstance(x.grad, T.Tensor) and tuple(x.grad.shape) == ()
    assert float(got["minigrad"]) == float(got["torch"])


class Numbers(mg.autograd.Function):
    """A user's Function whose backward returns a numpy array and a Python number."""

    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, grad):
        return np.asarray(grad.array * 2.0), 1.5


def test_a_custom_backward_may_return_arrays_and_numbers() -> None:
    a = mg.tensor(np.ones(3), requires_grad=True)
    b = mg.tensor(2.0, requires_grad=True)
    Numbers.apply(a, b).tanh().sum().backward()
    assert isinstance(a.grad, mg.Tensor) and isinstance(b.grad, mg.Tensor)
    assert b.grad.shape == ()
    np.testing.assert_allclose(b.grad.array, 1.5)  # (a number needs no broadcast undone)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_array_path_gives_the_tensor_paths_bits(dtype) -> None:
    """The same chain, backward with nobody watching (arrays) and with a listener (Tensors)."""
    def grads(listen: bool) -> np.ndarray:
        x = mg.tensor(np.linspace(-2, 2, 7).astype(dtype), requires_grad=True)
        w = mg.tensor(np.linspace(1, 3, 7).astype(dtype), requires_grad=True)
        y = x
        for i in range(30):
            y = y * 0.9 if i % 4 == 0 else y + w if i % 4 == 1 else y.tanh() if i % 4 == 2 \
                else y - x * w
        if listen:
            with events.listen(lambda event: None):
                y.sum().backward()
        else:
            y.sum().backward()
        return np.concatenate([x.grad.array, w.grad.array])

    plain, watched = grads(False), grads(True)
    assert plain.dtype == watched.dtype == dtype
    assert plain.tobytes() == watched.tobytes()


def test_a_zero_dim_node_called_by_hand_gives_zero_dim_tensors(torch_mod) -> None:
    """numpy makes a numpy scalar of a 0-d product; the node still gives a 0-d tensor."""
    for T in (mg, torch_mod):
        x, y = T.tensor(2.0, requires_grad=True), T.tensor(3.0, requires_grad=True)
        node = (x * y).grad_fn
        with T.no_grad():
            gx, gy = node(T.tensor(1.0))
        assert isinstance(gx, T.Tensor) and tuple(gx.shape) == () and float(gx) == 3.0
        assert isinstance(gy, T.Tensor) and float(gy) == 2.0


def test_fan_in_of_an_array_and_a_tensor_gradient() -> None:
    """One path's backward has a numpy rule (an array), the other's a Tensor formula."""
    x = mg.tensor([0.5, 1.5], requires_grad=True)
    (x * 2.0 + x.sigmoid()).sum().backward()
    s = 1 / (1 + np.exp(-np.array([0.5, 1.5], np.float32)))
    np.testing.assert_allclose(x.grad.array, 2 + s * (1 - s), rtol=1e-6)
    assert isinstance(x.grad, mg.Tensor)
