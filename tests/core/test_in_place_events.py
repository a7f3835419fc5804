"""`InPlaceChange`: minigrad says a tensor is about to change in place, before it writes, so
that a listener (a trace) can keep the values it shows."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad.autograd import events


def changes_seen(action, t):
    """Run `action()`; for each InPlaceChange of `t`, the value `t` had when it was told."""
    seen = []

    def listener(event):
        if isinstance(event, events.InPlaceChange) and event.tensor is t:
            seen.append(t.array.tolist())

    with events.listen(listener):
        action()
    return seen


def leaf():
    return minigrad.tensor([1.0, -2.0, 3.0], requires_grad=True)


@pytest.mark.parametrize("change", [
    lambda t: t.zero_(), lambda t: t.add_(1.0), lambda t: t.mul_(t), lambda t: t.clamp_(0, 1),
    lambda t: t.fill_(5.0), lambda t: t.copy_(minigrad.ones(3)), lambda t: t.normal_(),
    lambda t: t.__setitem__(0, 9.0), lambda t: t.__isub__(1.0), lambda t: t.__imul__(2.0),
])
def test_every_in_place_op_says_so_before_it_writes(change):
    t = minigrad.tensor([1.0, -2.0, 3.0])
    assert changes_seen(lambda: change(t), t) == [[1.0, -2.0, 3.0]]
    assert t.array.tolist() != [1.0, -2.0, 3.0]


def test_a_recorded_in_place_op_says_so_too():
    x = leaf()
    y = x * 1
    assert changes_seen(lambda: y.mul_(2), y) == [[1.0, -2.0, 3.0]]
    assert y.grad_fn.name() == "MulBackward0" and y.array.tolist() == [2.0, -4.0, 6.0]


@pytest.mark.parametrize("make", [
    lambda p: minigrad.optim.SGD([p], lr=0.1),
    lambda p: minigrad.optim.SGD([p], lr=0.1, momentum=0.9),
    lambda p: minigrad.optim.Adam([p], lr=0.1),
    lambda p: minigrad.optim.AdamW([p], lr=0.1),
])
def test_an_optimizer_step_says_so_before_it_writes(make):
    p = leaf()
    (p * p).sum().backward()
    opt = make(p)
    seen = changes_seen(opt.step, p)
    assert seen and seen[0] == [1.0, -2.0, 3.0]
    assert p.array.tolist() != [1.0, -2.0, 3.0]


def test_a_refused_in_place_op_says_nothing_and_writes_nothing():
    x = leaf()
    seen: list = []
    with events.listen(lambda e: seen.append(e) if isinstance(e, events.InPlaceChange) else None):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x.add_(1.0)
        assert seen == []  # refused before anything: nothing to announce
        with minigrad.no_grad(), pytest.raises(RuntimeError, match="doesn't match the broadcast"):
            x.add_(minigrad.ones(2, 3))  # (numpy refuses it: announced, but nothing written)
    assert x.array.tolist() == [1.0, -2.0, 3.0] and x._version == 0


def test_nobody_listening_costs_nothing_but_the_check():
    t = minigrad.tensor([1.0, 2.0])
    t.zero_()
    assert t.array.tolist() == [0.0, 0.0] and not events._listeners
    assert np.all(t.array == 0)
