"""`Function.apply`'s one path: what the class flag `numpy_forward` changes, and the outputs
it makes.

A Function that declares `numpy_forward=True` (minigrad's own ops) runs forward in the
caller's grad mode and, when nothing is recorded, on one shared ctx that keeps nothing; a
user's Function runs forward with grad mode off, on a ctx of its own each time. The flag is
declared, not read off the module a class lives in.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minigrad
from minigrad.autograd.function import Function


def _spy(numpy_forward: bool | None, module: str = __name__) -> tuple[type, list]:
    """A Function that notes its ctx and grad mode in forward (and tries to save x)."""
    seen: list = []

    def forward(ctx, x):
        ctx.save_for_backward(x)
        seen.append((ctx, minigrad.is_grad_enabled(), ctx.saved_values))
        return x.array * 2

    def backward(ctx, grad):
        return grad * 2

    body = {"forward": staticmethod(forward), "backward": staticmethod(backward),
            "__module__": module}
    flag = {} if numpy_forward is None else {"numpy_forward": numpy_forward}
    return type("Spy", (Function,), body, **flag), seen


def test_a_numpy_forward_runs_in_grad_mode_on_one_shared_ctx_when_not_recorded():
    spy, seen = _spy(True)
    x = minigrad.tensor([1.0, 2.0])  # needs no gradient: nothing is recorded
    spy.apply(x)
    spy.apply(x)
    (ctx1, mode1, saved1), (ctx2, mode2, saved2) = seen
    assert ctx1 is ctx2 is spy._scratch and mode1 and mode2
    assert saved1 == saved2 == ()  # the scratch ctx keeps nothing


def test_a_users_forward_runs_without_grad_mode_on_a_ctx_of_its_own():
    spy, seen = _spy(None)
    x = minigrad.tensor([1.0, 2.0])
    spy.apply(x)
    spy.apply(x)
    (ctx1, mode1, saved1), (ctx2, mode2, _) = seen
    assert ctx1 is not ctx2 and not mode1 and not mode2 and saved1 == ()
    assert spy._scratch is None and minigrad.is_grad_enabled()


def test_a_recorded_call_runs_on_its_node_either_way():
    for flag in (True, None):
        spy, seen = _spy(flag)
        x = minigrad.tensor([1.0, 2.0], requires_grad=True)
        y = spy.apply(x)
        ((ctx, _, saved),) = seen
        assert y.grad_fn is ctx and saved == (x,)
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]


def test_the_flag_is_declared_not_read_off_the_module():
    spy, seen = _spy(None, module="minigrad.ops.somewhere")
    assert not spy.numpy_forward and spy._scratch is None
    spy.apply(minigrad.tensor([1.0]))
    assert seen[0][1] is False  # grad mode off: a user's forward, wherever it lives


def test_subclasses_inherit_the_flag_and_may_turn_it_off():
    spy, _ = _spy(True)
    child = type("Child", (spy,), {})
    assert child.numpy_forward and child._scratch is not None
    assert child._scratch is not spy._scratch  # (each class its own scratch ctx)
    plain = type("Plain", (spy,), {}, numpy_forward=False)
    assert not plain.numpy_forward and plain._scratch is None


def test_every_op_of_minigrad_declares_a_numpy_forward():
    todo, ops = list(Function.__subclasses__()), []
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        module = sys.modules.get(cls.__module__)  # (not the made-up module above)
        if cls.__module__.startswith("minigrad.ops.") and getattr(module, cls.__name__,
                                                                  None) is cls:
            ops.append(cls)
    assert len(ops) > 150
    assert [c.__name__ for c in ops if not c.numpy_forward] == []


class _IntFirst(Function):
    """(an integer array, a float array): output 0 is no float, so it has no grad_fn"""

    saves_output = True

    @staticmethod
    def forward(ctx, x):
        return x.array.astype(np.int64), x.array * 3

    @staticmethod
    def backward(ctx, g_int, g_float):
        ctx.output_data()  # (checks the saved output's version)
        return g_float * 3


def test_a_saved_output_without_grad_fn_still_notices_an_in_place_change():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    first, second = _IntFirst.apply(x)
    assert first.grad_fn is None and second.grad_fn is not None
    with minigrad.no_grad():
        first.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        second.sum().backward()
    assert x.grad is None


def test_outputs_a_forward_returns_as_tensors_numbers_or_scalars():
    class Mixed(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, np.float64(3.0), 7

        @staticmethod
        def backward(ctx, g, g_scalar, g_int):
            return g * 2

    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    doubled, scalar, number = Mixed.apply(x)
    assert doubled.grad_fn is scalar.grad_fn is not None and number == 7
    assert scalar.shape == () and scalar.grad_fn.output_shape(1) == ()
    doubled.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
