"""`a[key] = v` where a gradient flows records CopySlices (IndexPutBackward0 for an index
tensor), as PyTorch 2.13 does: the gradient at key goes to v, the rest to a's old value."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

WRITES = {
    "slice of a plain buffer": (lambda lib: lib.zeros(3), lambda a, x: a.__setitem__(
        slice(1, None), x * 2), (2,)),
    "a column": (lambda lib: lib.zeros(2, 3), lambda a, x: a.__setitem__(
        (slice(None), 1), x), (2,)),
    "an int": (lambda lib: lib.zeros(3), lambda a, x: a.__setitem__(1, x[0]), (2,)),
    "a broadcast value": (lambda lib: lib.zeros(2, 3), lambda a, x: a.__setitem__(
        slice(None), x), (3,)),
    "an index list": (lambda lib: lib.zeros(3), lambda a, x: a.__setitem__([0, 2], x), (2,)),
    "a bool mask": (lambda lib: lib.zeros(3), lambda a, x: a.__setitem__(
        np.array([True, False, True]), x), (2,)),
    "everything (a copy)": (lambda lib: lib.zeros(2, 3), lambda a, x: a.__setitem__(
        (slice(None), slice(0, 3)), x), (3,)),
    "into a non-leaf": (lambda lib: lib.ones(3, requires_grad=True) * 3,
                        lambda a, x: a.__setitem__(slice(1, None), x), (2,)),
    "a number into a non-leaf": (lambda lib: lib.ones(3, requires_grad=True) * 3,
                                 lambda a, x: a.__setitem__(slice(1, None), 5.0), (2,)),
}


@pytest.mark.parametrize("case", WRITES)
def test_item_assignment_records_what_pytorch_records(case):
    make, write, shape = WRITES[case]
    seen = []
    for lib in (torch, minigrad):
        x = lib.tensor(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape), requires_grad=True,
                       dtype=lib.float32)
        a = make(lib)
        write(a, x)
        fn = a.grad_fn
        # (names without PyTorch's C++ prefix: torch::autograd::CopySlices, ...)
        nexts = [None if f is None else f.name().removeprefix("torch::autograd::")
                 for f, _ in fn.next_functions]
        (a * lib.tensor(np.arange(a.numel(), dtype=np.float32).reshape(tuple(a.shape)))
         ).sum().backward()
        grad = None if x.grad is None else x.grad.tolist()
        seen.append((fn.name().removeprefix("torch::autograd::"), nexts,
                     a.detach().numpy().tolist(), grad, a.requires_grad, a.is_leaf))
    assert seen[0] == seen[1]


def test_an_index_put_of_another_dtype_is_refused_as_in_pytorch():
    errors = []
    for lib in (torch, minigrad):
        a = lib.zeros(3)
        with pytest.raises(RuntimeError) as info:
            a[[0, 1]] = lib.ones(2, dtype=lib.float64)
        errors.append(str(info.value))
        assert a.tolist() == [0.0, 0.0, 0.0]
    assert errors[0] == errors[1]


def test_a_leaf_that_requires_grad_still_refuses_item_assignment():
    w = minigrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w[0] = 2.0
    assert w.tolist() == [1.0, 1.0, 1.0] and w._version == 0


def test_copy_into_a_view_when_a_gradient_must_flow_records_copy_slices():
    results = []
    for lib in (minigrad, torch):
        a = lib.zeros(3)
        x = lib.ones(2, requires_grad=True)
        a[1:].copy_(x * 3)  # (it used to be refused; tests/core/test_view_rebase.py has more)
        (a * a).sum().backward()
        results.append((a.grad_fn.name().replace("torch::", "minigrad::"), x.grad.tolist()))
    assert results[0] == results[1] == ("minigrad::autograd::CopySlices", [18.0, 18.0])


def test_gradgradcheck_through_item_assignment():
    from minigrad.testing import gradcheck, gradgradcheck

    x = minigrad.tensor([0.5, -1.0], dtype=minigrad.float64, requires_grad=True)

    def fn(x):
        a = minigrad.zeros(4, dtype=minigrad.float64)
        a[1:3] = x * x
        return a * a

    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


@pytest.mark.parametrize("change", [lambda y: y.mul_(2), lambda y: y.add_(1).mul_(3),
                                    lambda y: y.__setitem__(0, 5.0)])
def test_retain_grad_then_an_in_place_op_keeps_the_new_value_s_gradient(change):
    """As in PyTorch: after `y.retain_grad(); y.mul_(2)`, y.grad is the gradient of the new
    y (it used to be the old value's)."""
    seen = []
    for lib in (torch, minigrad):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        change(y)
        (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        seen.append((y.grad.tolist(), x.grad.tolist(), y.retains_grad))
    assert seen[0] == seen[1]
