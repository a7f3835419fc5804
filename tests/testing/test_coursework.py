"""Coursework, worked through: write a Function, then prove it right with minigrad.testing.

1. The student's `Cube` (d/dx x^3 = 3x^2) passes gradcheck, gradgradcheck, and a hypothesis
   property over random shapes and values.
2. A wrong backward, 3*x*|x| (right for x >= 0 only), is caught: the report points at the
   negative element, with the numerical and the analytical derivative there.
3. The same toolkit for ops with two broadcast inputs and for ops with a restricted domain.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad
from minigrad.testing import GradcheckError, gradcheck, gradgradcheck
from minigrad.testing import strategies as mst


class Cube(minigrad.Function):
    """x ** 3"""

    formula = r"d(x^3)/dx = 3*x^2"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


class WrongCube(Cube):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x.abs()  # BUG: equals 3*x^2 only where x >= 0


def test_cube_passes() -> None:
    x = minigrad.tensor([1.0, 2.0, -1.5, 0.5], dtype=minigrad.float64, requires_grad=True,
                        name="x")
    assert gradcheck(Cube.apply, (x,))
    assert gradgradcheck(Cube.apply, (x,))  # its backward uses Tensor ops: differentiable


@settings(max_examples=50, deadline=None)
@given(x=mst.tensors(shape=mst.shapes(max_dims=3), name="x"))
def test_cube_passes_for_any_shape_and_values(x: minigrad.Tensor) -> None:
    assert gradcheck(Cube.apply, x)
    assert gradgradcheck(Cube.apply, x)


def test_wrong_backward_is_caught_at_the_wrong_element() -> None:
    x = minigrad.tensor([1.0, 2.0, -1.5, 0.5], dtype=minigrad.float64, requires_grad=True,
                        name="x")
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongCube.apply, (x,))
    err = info.value
    report = str(err).splitlines()
    assert report[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    assert report[1] == "numerical:tensor([[ 3.0000,  0.0000,  0.0000,  0.0000],"
    assert report[5] == "analytical:tensor([[ 3.0000,  0.0000,  0.0000,  0.0000],"
    assert report[7] == "        [-0.0000, -0.0000, -6.7500, -0.0000],"  # the wrong one
    assert report[10] == ("Worst element: input 0 (x) at index [2], output 0 at index [2] "
                          "(Jacobian row 2, column 2):")
    assert re.fullmatch(r"    numerical  = 6\.7(4999|5000)\d*", report[11])  # ~ 3 * 1.5^2
    assert report[12] == "    analytical = -6.75"
    assert report[14].startswith("1 of 16 elements of this Jacobian differ")
    assert (err.input_element, err.output_element) == ((2,), (2,))
    assert err.numerical_value == pytest.approx(6.75) and err.analytical_value == -6.75


def test_hypothesis_finds_the_bug_and_shrinks_it() -> None:
    @settings(max_examples=100, deadline=None, database=None)
    @given(x=mst.tensors(shape=mst.shapes(max_dims=2), name="x"))
    def cube_is_right(x: minigrad.Tensor) -> None:
        assert gradcheck(WrongCube.apply, x)

    with pytest.raises(GradcheckError) as info:
        cube_is_right()
    err = info.value
    assert err.numerical_value == pytest.approx(-err.analytical_value)  # only the sign is off
    assert err.numerical_value > 0  # 3x^2, at a negative x
    notes = "\n".join(getattr(err, "__notes__", []))
    # shrunk to the simplest input that shows the bug: one negative number
    assert re.search(r"(Falsifying example|Failing test case): cube_is_right\(\n"
                     r"    x=tensor\(-1\., dtype=minigrad.float64, requires_grad=True\),",
                     notes), notes


# -- the same toolkit for other kinds of op -----------------------------------------------------
class Mul(minigrad.Function):
    """a * b for shapes that broadcast: the engine sums each gradient back to its input"""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.array * b.array

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class Log(minigrad.Function):
    """natural log: only defined for positive inputs"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.log(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / x


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_binary_op_over_broadcast_shapes(data: st.DataObject) -> None:
    shape_a, shape_b = data.draw(mst.broadcastable_shapes(2, max_side=3))
    a = data.draw(mst.tensors(shape=shape_a, name="a"))
    b = data.draw(mst.tensors(shape=shape_b, name="b"))
    assert gradcheck(Mul.apply, (a, b))
    assert gradgradcheck(Mul.apply, (a, b))


@settings(max_examples=40, deadline=None)
@given(x=mst.tensors(shape=mst.shapes(max_dims=2), domain=mst.POSITIVE, name="x"))
def test_an_op_with_a_domain(x: minigrad.Tensor) -> None:
    assert np.all(x.array > 0)
    assert gradcheck(Log.apply, x)
    assert gradgradcheck(Log.apply, x)
