"""Tests and logic against PyTorch: NaN and infinities, closeness, bits of negative integers,
reductions to truth values along dims; never recorded, even on a tensor that requires grad."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad

NAN, INF = math.nan, math.inf
FLOATS = [[NAN, INF, -INF], [0.0, -1.5, 2.0]]  # `f` in the expressions
INTS = [[-3, 0, 5], [7, -8, 1]]  # `i`
BOOLS = [[True, False, True], [False, False, True]]  # `b`

EXPRESSIONS = [
    "f.isnan()", "f.isinf()", "f.isfinite()", "f.isposinf()", "f.isneginf()",
    "M.isclose(f, f)", "M.isclose(f, f, equal_nan=True)", "M.isclose(f, f + 1e-6)",
    "M.isclose(f, f + 1e-3, rtol=0, atol=1e-2)", "f.any()", "f.all()", "f.any(1)",
    "f.all(dim=0, keepdim=True)", "b.any(dim=(0, 1))", "b.all(1)", "i.all(axis=1)",
    "M.logical_and(f, i)", "M.logical_or(b, i)", "M.logical_xor(f, b)", "f.logical_not()",
    "i & 6", "i | -2", "i ^ 5", "~i", "~b", "b & b.logical_not()",
    "b | False", "b ^ True", "i.bitwise_and(b)", "M.bitwise_not(i)",
    "f == f", "M.eq(i, 0)", "f.ne(2.0)", "M.lt(i, f)", "i.le(b)", "M.gt(f, 0)", "i.ge(-3)",
    "M.greater(i, 0)", "M.less_equal(f, i)", "M.not_equal(b, True)",
    "f.count_nonzero()", "M.count_nonzero(i, dim=1)", "i.count_nonzero(dim=(0, 1))",
    "f.sign()", "i.sign()", "b.sign()", "f.nan_to_num(neginf=-7.0)",
]


def _env(lib, requires_grad: bool = False) -> dict:
    f = lib.tensor(FLOATS, requires_grad=requires_grad)
    return {"M": lib, "f": f, "i": lib.tensor(INTS), "b": lib.tensor(BOOLS)}


def _value(lib, out):
    if not hasattr(out, "dtype"):
        return out, None
    array = out.array if lib is minigrad else out.numpy()
    return np.asarray(array).tolist(), str(out.dtype).split(".")[-1]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_logic_matches_pytorch(expr, torch_mod):
    ours = _value(minigrad, eval(expr, _env(minigrad)))
    theirs = _value(torch_mod, eval(expr, _env(torch_mod)))
    assert ours[1] == theirs[1], expr
    np.testing.assert_array_equal(np.asarray(ours[0], float), np.asarray(theirs[0], float),
                                  err_msg=expr)


@pytest.mark.parametrize("expr", [e for e in EXPRESSIONS if e.startswith(("f.", "M."))])
def test_logic_is_never_recorded(expr):
    out = eval(expr, _env(minigrad, requires_grad=True))
    if isinstance(out, minigrad.Tensor) and out.dtype == minigrad.bool:
        assert out.grad_fn is None and not out.requires_grad


def test_allclose_equal_and_their_errors(torch_mod):
    for lib in (minigrad, torch_mod):
        x = lib.tensor([1.0, NAN])
        assert lib.allclose(x, x) is False
        assert lib.allclose(x, x, equal_nan=True) is True
        assert lib.equal(lib.tensor([1, 2]), lib.tensor([1.0, 2.0])) is True
        with pytest.raises(RuntimeError, match="^Long did not match Float$"):
            lib.isclose(lib.tensor([1]), lib.tensor([1.0]))
        with pytest.raises(TypeError, match=r"^~ \(operator.invert\) is only implemented on "
                                            r"integer and Boolean-type tensors$"):
            ~lib.tensor([1.0])
        with pytest.raises(NotImplementedError,
                           match="^\"bitwise_or_cpu\" not implemented for 'Float'$"):
            lib.tensor([1.0]) | lib.tensor([True])


def test_uint8_any_and_all_keep_uint8(torch_mod):
    for lib in (minigrad, torch_mod):
        u = lib.tensor([[1, 0], [2, 3]], dtype=lib.uint8)
        assert str(u.any().dtype).endswith("uint8") and u.all(1).tolist() == [0, 1]
