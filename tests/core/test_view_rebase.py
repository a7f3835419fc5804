"""In-place ops on views, and views whose base changed in place, side by side with PyTorch
2.13: the same gradients, the same grad_fn names, the same errors.

Before, minigrad refused an in-place op on a view of a tensor that requires grad, and, worse,
a view made before its base changed in place kept its old grad_fn: `y = x * 2; v = y[0];
y.mul_(3); v.backward()` gave x.grad 2 where PyTorch gives 6.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def _x(lib, *shape):
    values = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float64).reshape(shape) / 4
    return lib.tensor(values, requires_grad=True)


def _name(t):
    return None if t.grad_fn is None else t.grad_fn.name().replace("torch::", "minigrad::")


def _program(lib, name):  # noqa: C901 (one branch per program, read top to bottom)
    """(loss, tensors whose grad_fn names are compared, leaves) of the program `name`."""
    x = _x(lib, 2, 3)
    w = _x(lib, 3)
    if name == "a view made before its base changed":
        y = x * 2
        v = y[0]
        y.mul_(w)
        return (v * v).sum(), [y, v], [x, w]
    if name == "two overlapping slices, one changed":
        y = x.reshape(-1) * 1
        a, b = y[0:4], y[2:6]
        a.mul_(3)
        return (b * b).sum() + y.sum(), [y, a, b], [x]
    if name == "a column of a transpose":
        y = x + 0
        u = y.t()
        u[1].add_(w[:2] * 5)
        return (y * y).sum(), [y, u], [x, w]
    if name == "a view of a view":
        y = x * 1
        v = y.t()[0]
        v.mul_(w[0])
        return (y ** 2).sum() + v.sum(), [y, v], [x, w]
    if name == "the diagonal":
        y = x.reshape(3, 2)[:2] * 1
        y.diagonal().mul_(4)
        return (y * y).sum(), [y], [x]
    if name == "a reshaped view":
        y = x * 3
        y.view(6)[1:4].sub_(w)
        return (y.exp()).sum(), [y], [x, w]
    if name == "copy_ into a slice of a buffer":
        a = lib.zeros(5, dtype=lib.float64)
        a[1:4].copy_(w * 2)
        return (a * a).sum(), [a], [w]
    if name == "setitem on a view":
        y = x * 1
        v = y[1]
        v[0:2] = w[1:] * w[1:]
        return (y * x).sum(), [y, v], [x, w]
    if name == "retain_grad on the view":
        y = x * 1
        v = y[:, 1]
        v.retain_grad()
        v.mul_(2)
        loss = (y * y).sum() + (v * v).sum()
        return loss, [y, v], [x]
    if name == "zero_ and fill_ of views":
        y = x * 1
        y[0].zero_()
        y[:, 2].fill_(7.0)
        return (y * x).sum(), [y], [x]
    if name == "clamp_ of a view, second order":
        y = x * x
        y[1].clamp_(min=2.0)
        return y.sum(), [y], [x]
    if name == "a Fortran-ordered base":  # (numpy lays out x.t() * 2 column by column)
        y = x.t() * 2
        v = y[0]
        y.mul_(3)
        y[1].add_(w[:2] * 5)
        return (v * v).sum() + (y * y).sum(), [y, v], [x, w]
    raise KeyError(name)


NAMES = ["a view made before its base changed", "two overlapping slices, one changed",
         "a column of a transpose", "a view of a view", "the diagonal", "a reshaped view",
         "copy_ into a slice of a buffer", "setitem on a view", "retain_grad on the view",
         "zero_ and fill_ of views", "clamp_ of a view, second order", "a Fortran-ordered base"]


@pytest.mark.parametrize("name", NAMES)
def test_an_in_place_op_through_a_view_gives_pytorchs_gradients(name: str) -> None:
    seen = []
    for lib in (minigrad, torch):
        loss, shown, leaves = _program(lib, name)
        names = [_name(t) for t in shown]
        grads = lib.autograd.grad(loss, leaves, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), leaves,
                                   allow_unused=True)
        seen.append((names, [g.detach().numpy().round(10).tolist() for g in grads],
                     [None if g is None else g.numpy().round(10).tolist() for g in second]))
    assert seen[0] == seen[1]


def test_a_retained_view_gradient_is_the_new_values() -> None:
    seen = []
    for lib in (minigrad, torch):
        loss, (y, v), _ = _program(lib, "retain_grad on the view")
        loss.backward()
        seen.append(v.grad.tolist())
    assert seen[0] == seen[1]


REFUSED = {
    "a view of a leaf that requires grad": lambda lib, x: x[1:].mul_(2),
    "an output of unbind": lambda lib, x: (x * 1).unbind(0)[1].mul_(2),
    "an output of split": lambda lib, x: (x * 1).split(1)[0].add_(1),
    "an expanded view": lambda lib, x: (x[0] * 1).expand(2, 3).add_(1),
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_pytorch_refuses_is_refused_in_its_words(name: str) -> None:
    seen = []
    for lib in (minigrad, torch):
        x = _x(lib, 2, 3)
        with pytest.raises(RuntimeError) as error:
            REFUSED[name](lib, x)
        seen.append((str(error.value).split(".")[0], x.grad, x.tolist()))
    assert seen[0] == seen[1]
