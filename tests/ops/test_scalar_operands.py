"""A Python float next to a float tensor is computed with as a 0-d array of the tensor's dtype
(ops.base.operands): same bits as numpy's own handling of the number, only faster."""

import math

import numpy as np
import pytest

import minigrad
from minigrad.ops import base


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("number", [0.9, -0.1, 1e-8, 3.0, 1e39, -0.0, 0.0, math.inf,
                                    math.nan, 1 / 3])
def test_same_bits_as_numpy_with_the_python_float(dtype, number):
    x = np.linspace(-2, 2, 11).astype(dtype)
    with np.errstate(over="ignore"):
        for ufunc in (np.add, np.subtract, np.multiply, np.divide):
            expected = ufunc(x, number)
            got = ufunc(*base.operands(minigrad.tensor(x), number))
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))
            expected = ufunc(number, x)  # the number first
            got = ufunc(*base.operands(number, minigrad.tensor(x)))
            np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_minus_zero_keeps_its_sign_after_plus_zero_was_seen():
    x = np.ones(2, np.float32)
    base.operands(x, 0.0)
    _, minus = base.operands(x, -0.0)
    assert math.copysign(1.0, float(minus)) == -1.0


def test_other_operands_pass_through_unchanged():
    x = np.ones(2, np.float32)
    assert base.operands(x, 3)[1] == 3 and type(base.operands(x, 3)[1]) is int
    assert base.operands(x, x)[1] is x


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "rmul", "radd"])
def test_int_or_bool_tensor_with_a_float_is_float32(dtype, op):
    """PyTorch gives float32 (its default dtype), where numpy alone would give float64."""
    a = np.array([3, 0, 1, 2]).astype(dtype)
    t = minigrad.tensor(a)
    if op == "sub" and dtype == np.bool_:  # PyTorch refuses `-` with bools
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
            t - 0.1
        return
    got = {"add": lambda: t + 0.1, "sub": lambda: t - 0.1, "mul": lambda: t * 0.1,
           "div": lambda: t / 0.3, "rmul": lambda: 0.1 * t, "radd": lambda: 0.1 + t}[op]()
    f = a.astype(np.float32)
    expected = {"add": f + 0.1, "sub": f - 0.1, "mul": f * 0.1, "div": f / 0.3,
                "rmul": f * 0.1, "radd": f + 0.1}[op]
    assert got.array.dtype == np.float32
    np.testing.assert_array_equal(got.array.view(np.uint32), expected.view(np.uint32))
    ints = np.ones(2, np.int64)
    x, y = base.operands(ints, 0.5)
    assert x.dtype == np.float32 and type(y) is float  # numpy makes the float float32 then


def test_the_kept_arrays_are_read_only_and_bounded():
    arr = base.float_array(0.25, np.dtype(np.float32))
    assert not arr.flags.writeable
    for i in range(600):
        base.float_array(1.0 + i, np.dtype(np.float64))
    assert len(base._float_arrays[np.dtype(np.float64)]) <= 256


def test_tensor_times_float_no_grad_and_recorded_give_the_same_bits():
    x = minigrad.tensor(np.linspace(-1, 1, 16, dtype=np.float32), requires_grad=True)
    recorded = x * 0.9
    with minigrad.no_grad():
        plain = x * 0.9
    expected = x.array * 0.9
    assert recorded.dtype == plain.dtype == minigrad.float32
    np.testing.assert_array_equal(recorded.array.view(np.uint32), expected.view(np.uint32))
    np.testing.assert_array_equal(plain.array.view(np.uint32), expected.view(np.uint32))
    recorded.sum().backward()
    np.testing.assert_array_equal(x.grad.array, np.full(16, np.float32(0.9)))
