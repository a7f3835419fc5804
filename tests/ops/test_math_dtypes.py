"""Float math, statistics, cumulative ops and logic on every dtype: PyTorch's result dtypes,
values and errors (word for word), and a failed call changes nothing (`assert_same`, from
test_int_dtypes.py, runs each expression in both libraries)."""

from __future__ import annotations

import pytest
from test_int_dtypes import DTYPES, assert_same

import minigrad

# `a` is a tensor of the dtype under test ([1, 2, 3], or [True, False, True]), `M` the library
FLOAT_MATH = [
    "a.floor()", "a.ceil()", "a.round()", "a.trunc()", "a.frac()", "a.sign()", "a.sgn()",
    "a.round(decimals=1)", "a.erf()", "a.erfc()", "a.log1p()", "a.expm1()", "a.log2()",
    "a.log10()", "a.exp2()", "a.rsqrt()", "a.atan()", "a.sinh()", "a.cosh()", "a.asinh()",
    "a.erfinv()", "a.asin()", "a.acosh()", "a.atanh()", "a.nan_to_num()", "M.atan2(a, a)",
    "M.hypot(a, a)", "M.lerp(a, a, 0.5)", "M.xlogy(a, a)", "M.xlogy(a, 2.0)",
    "M.xlogy(2.0, a)", "M.atan2(a, 2.0)",
    "a.div(2, rounding_mode='floor')", "a.div(2, rounding_mode='trunc')",
    "a.div(a, rounding_mode='floor')", "a.div(0, rounding_mode='trunc')",
    "a.div(2.5, rounding_mode='floor')", "M.div(7, a, rounding_mode='trunc')",
    "a.div(2, rounding_mode='round')", "a.clamp(min=a)", "a.clamp(a, a)",
    "a.clamp(a, 2)", "a.clamp(2, a)",
]
REDUCTIONS = [
    "a.prod()", "a.prod(0)", "a.prod(0, keepdim=True)", "a.prod(dim=(0,))", "a.var()",
    "a.std(0)", "a.var(5)", "a.var(0, unbiased=False)", "a.var(correction=0)",
    "M.var_mean(a)[1]", "M.std_mean(a, 0)[0]", "a.logsumexp(0)", "a.logsumexp()",
    "a.norm()", "a.norm(p=1)", "a.norm(p=3)", "M.dist(a, a)", "a.sum(axis=0)",
    "a.mean(axis=0)", "a.amax(axis=0)", "a.argmax(axis=0)", "a.argmin(dim=5)",
    "a.argmax(dim=(0,))", "a.max(axis=0).values", "a.sum(dim=0, axis=0)",
    "a.cumsum(0)", "a.cumprod(0)", "a.cummax(0).values", "a.cummax(0).indices",
    "a.cummin(dim=-1).indices", "a.logcumsumexp(0)", "a.cumsum(5)", "a.cumsum((0,))",
    "a.cumsum()", "a.cumsum(0, dtype=M.float64)",
]
LOGIC = [
    "a.any()", "a.all(0)", "a.any(dim=(0,), keepdim=True)", "a.all(axis=0)", "a.any(dim=5)",
    "a.isnan()", "a.isinf()", "a.isfinite()", "a.isposinf()", "a.isneginf()",
    "a.logical_not()", "M.logical_and(a, a)", "M.logical_or(a, 0)", "M.logical_xor(a, a)",
    "a.bitwise_not()", "~a", "a & a", "a | 1", "a ^ True", "3 & a", "a & 1.5",
    "M.bitwise_xor(a, a)", "a.eq(2)", "M.ne(a, 1.5)", "M.gt(a, a)", "a.le(a[:1])",
    "a.count_nonzero()", "M.count_nonzero(a, dim=0)",
    "M.isclose(a, a)", "M.isclose(a, a * 1.5)", "M.isclose(a, 2)",
]
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("expr", FLOAT_MATH + REDUCTIONS + LOGIC)
def test_dtype_values_and_errors_match_pytorch(expr, da, torch_mod):
    assert_same(torch_mod, expr, da)


@pytest.mark.parametrize("da", DTYPES)
def test_allclose_and_equal_give_python_bools(da, torch_mod):
    for lib in (minigrad, torch_mod):
        a = lib.tensor([1, 2, 3], dtype=getattr(lib, da)) if da != "bool" else lib.tensor(
            [True, False, True])
        assert lib.allclose(a, a) is True
        assert lib.equal(a, a) is True
        assert lib.equal(a, a[:2]) is False


@pytest.mark.parametrize("expr", ["M.ge(a, M.ones(2))", "a.clamp(min=a[:2])",
                                  "M.logical_and(a, M.ones(2))", "a & M.ones(2, dtype=M.int64)"])
def test_shapes_that_do_not_broadcast_get_pytorchs_words_after_the_ops_name(expr, torch_mod):
    """minigrad's message names the op and both shapes, then says what PyTorch says."""
    theirs = assert_raises(torch_mod, expr)
    ours = assert_raises(minigrad, expr)
    assert type(ours) is type(theirs)
    assert str(ours).endswith(str(theirs)) and "(3,) and (2,)" in str(ours), str(ours)


def assert_raises(lib, expr):
    a = lib.tensor([1, 2, 3])
    with pytest.raises(Exception) as info:
        eval(expr, {"M": lib, "a": a})
    assert a.tolist() == [1, 2, 3]
    return info.value
