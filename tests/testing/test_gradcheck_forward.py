"""gradcheck's forward-mode check and fast mode, as PyTorch's `check_forward_ad=True` and
`fast_mode=True`: right rules pass, a wrong JVP rule (or backward) is caught, and the report
says where, or, in fast mode, along which random direction it looked."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minigrad
from minigrad import Function
from minigrad.testing import GradcheckError, gradcheck


def leaf(values, name=None):
    return minigrad.tensor(values, dtype=minigrad.float64, requires_grad=True, name=name)


class Sin(Function):
    """sin x with both rules right"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return np.sin(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    @staticmethod
    def jvp(ctx, tx):
        (x,) = ctx.saved_tensors
        return tx * x.cos()


class SinWrongJvp(Sin):
    @staticmethod
    def jvp(ctx, tx):
        (x,) = ctx.saved_tensors
        return -tx * x.cos()  # BUG: a sign


class SinWrongBackward(Sin):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sin()  # BUG: sin for cos


class Scale(Function):
    """x * y with a JVP rule that forgets y's term"""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_forward(x, y)
        ctx.save_for_backward(x, y)
        return x.array * y.array

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * y, grad * x

    @staticmethod
    def jvp(ctx, tx, ty):
        x, y = ctx.saved_tensors
        return tx * y  # BUG: + x * ty


def test_right_rules_pass_every_way():
    x = leaf([0.5, -1.0, 2.0])
    for fast in (False, True):
        assert gradcheck(Sin.apply, (x,), check_forward_ad=True, fast_mode=fast)
        assert gradcheck(lambda a, b: (a * b).sin().sum(), (x, leaf([1.0, 2.0, 3.0])),
                         check_forward_ad=True, fast_mode=fast)


def test_catches_a_wrong_jvp_and_names_the_element():
    x = leaf([0.5, -1.0, 2.0], name="x")
    with pytest.raises(GradcheckError) as info:
        gradcheck(SinWrongJvp.apply, (x,), check_forward_ad=True)
    err = info.value
    assert str(err).startswith("Jacobian computed with forward mode mismatch for output 0 with "
                               "respect to input 0,\nnumerical:tensor([[")
    assert "Worst element: input 0 (x) at index [0], output 0 at index [0]" in str(err)
    assert err.analytical_value == pytest.approx(-np.cos(0.5))
    assert gradcheck(SinWrongJvp.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                     raise_exception=False) is False
    assert gradcheck(SinWrongJvp.apply, (x,))  # (forward mode is not checked by default)


def test_checks_only_what_it_is_asked_to():
    x = leaf([0.5, -1.0])
    assert gradcheck(SinWrongBackward.apply, (x,), check_forward_ad=True,
                     check_backward_ad=False)
    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0"):
        gradcheck(SinWrongBackward.apply, (x,), check_forward_ad=True)


def test_catches_a_forgotten_term_of_the_second_input():
    x, y = leaf([0.5, -1.0]), leaf([2.0, 3.0])
    with pytest.raises(GradcheckError, match="^Jacobian computed with forward mode mismatch "
                       "for output 0 with respect to input 1,"):
        gradcheck(Scale.apply, (x, y), check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("fn, forward, first", [
    (SinWrongJvp.apply, True, "Jacobian computed with forward mode mismatch for output 0 with "
     "respect to input 0,"),
    (SinWrongBackward.apply, False, "Jacobian mismatch for output 0 with respect to input 0,"),
])
def test_fast_mode_says_which_direction_it_checked(fn, forward, first):
    x = leaf([0.5, -1.0, 2.0])
    before = x.array.copy()
    with pytest.raises(GradcheckError) as info:
        gradcheck(fn, (x,), check_forward_ad=forward, check_backward_ad=not forward,
                  fast_mode=True)
    text = str(info.value)
    u = np.random.default_rng(0).random(3)
    assert text.startswith(first)
    assert "fast mode checked" in text and "one random direction (numpy's default_rng(0))" in text
    assert f"u = {np.array2string(u / np.linalg.norm(u), precision=6, separator=', ')}" in text
    assert ("v = " in text) is not forward  # backward's check also draws v for the output
    assert "Checked element by element (slow mode):" in text  # then where it differs
    np.testing.assert_array_equal(info.value.direction, u / np.linalg.norm(u))
    np.testing.assert_array_equal(x.array, before)


def test_the_first_line_reads_as_pytorchs(torch_mod):
    torch = torch_mod

    class TorchSinWrongJvp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, grad):
            return grad

        @staticmethod
        def jvp(ctx, tx):
            (x,) = ctx.saved_tensors
            return -tx * x.cos()

    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    for fast in (False, True):
        with pytest.raises(sys.modules["torch.autograd.gradcheck"].GradcheckError) as theirs:
            torch.autograd.gradcheck(TorchSinWrongJvp.apply, (x,), check_forward_ad=True,
                                     check_backward_ad=False, fast_mode=fast)
        with pytest.raises(GradcheckError) as ours:
            gradcheck(SinWrongJvp.apply, (leaf([0.5, -1.0, 2.0]),), check_forward_ad=True,
                      check_backward_ad=False, fast_mode=fast)
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]
