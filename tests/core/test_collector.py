"""The cycle collector is paused while a backward pass runs (autograd.drain), and only then."""

import gc

import numpy as np
import pytest

import minigrad as mg


def _graph():
    x = mg.tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = (x * 3.0).tanh()
    seen = []
    y.register_hook(lambda g: seen.append(gc.isenabled()))
    return x, y.sum(), seen


@pytest.fixture(autouse=True)
def _collector_on():
    was_on = gc.isenabled()
    gc.enable()
    yield
    if not was_on:
        gc.disable()


def test_backward_and_grad_run_with_the_collector_paused_and_turn_it_back_on():
    x, out, seen = _graph()
    out.backward(retain_graph=True)
    (g,) = mg.autograd.grad(out, x)
    assert seen == [False, False]
    assert gc.isenabled()
    np.testing.assert_allclose(g.array, x.grad.array)


def test_a_collector_the_user_turned_off_stays_off():
    _, out, seen = _graph()
    gc.disable()
    out.backward()
    assert seen == [False] and not gc.isenabled()


def test_a_failing_backward_turns_the_collector_back_on():
    x = mg.tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = x * 3.0

    def fail(g):
        raise ValueError("hook failed")

    y.register_hook(fail)
    with pytest.raises(ValueError, match="hook failed"):
        y.sum().backward()
    assert gc.isenabled() and x.grad is None


def test_backward_steps_leaves_the_collector_on_for_the_callers_code():
    _, out, seen = _graph()
    states = [gc.isenabled() for _ in mg.autograd.backward_steps(out)]
    assert seen == [True] and all(states) and gc.isenabled()
