"""Float math, statistics and cumulative ops where they are delicate, against PyTorch: zeros
in products, ties, NaN and infinities, bounds that cross, PyTorch's argument forms, and the
errors for dims out of range (nothing changed after them)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad
from minigrad.ops.base import normalize_dim

NAN, INF = math.nan, math.inf


def run(lib, fn, *arrays):
    """(values, gradients) of `fn(lib, *leaves)` with a fixed gradient, as float64 arrays."""
    leaves = [lib.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = fn(lib, *leaves)
    seed = np.linspace(0.5, 1.5, int(np.prod(out.shape))).reshape(tuple(out.shape))
    out.backward(lib.tensor(seed))
    value = out.detach().numpy() if lib is not minigrad else out.array
    return np.asarray(value), [np.asarray(leaf.grad.numpy()) for leaf in leaves]


def same(torch, fn, *arrays):
    (ours, our_grads), (theirs, their_grads) = run(minigrad, fn, *arrays), run(torch, fn,
                                                                             *arrays)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)
    for g, h in zip(our_grads, their_grads, strict=True):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-12, equal_nan=True)


ZEROS = [[0.0, 1.5, -2.0], [0.0, 0.0, 3.0], [[1.0, 0.0, 2.0], [0.0, 0.0, 4.0]], [2.0, 3.0, 0.5]]


@pytest.mark.parametrize("x", ZEROS, ids=str)
@pytest.mark.parametrize("expr", [lambda M, x: x.prod(), lambda M, x: x.prod(-1),
                                  lambda M, x: x.prod(0, keepdim=True),
                                  lambda M, x: x.cumprod(-1), lambda M, x: x.cumprod(0)],
                         ids=["prod", "prod(-1)", "prod(0, keepdim)", "cumprod(-1)",
                              "cumprod(0)"])
def test_products_with_zeros_match_pytorch(expr, x, torch_mod):
    same(torch_mod, expr, x)


@pytest.mark.parametrize("op", ["prod", "cumprod"])
def test_second_derivative_through_a_zero_says_it_is_missing(op):
    x = minigrad.tensor([0.0, 1.5, -2.0], dtype=minigrad.float64, requires_grad=True)
    out = x.prod() if op == "prod" else x.cumprod(0).sum()
    with pytest.raises(NotImplementedError, match=f"second derivative of {op} through a zero"):
        minigrad.autograd.grad(out, x, create_graph=True)
    assert x.grad is None


@pytest.mark.parametrize("case", [
    (lambda M, x: x.std(), [2.0, 2.0, 2.0]),  # std 0: PyTorch's gradient is 0, not NaN
    (lambda M, x: M.std_mean(x, 0)[0], [1.0, 1.0]),
    (lambda M, x: x.var(0, unbiased=False), [[1.0, 2.0], [3.0, 5.0]]),
    (lambda M, x: x.var(True), [1.0, 2.0, 4.0]),  # the old `unbiased` first
    (lambda M, x: x.var(correction=2), [1.0, 2.0, 4.0, 8.0]),
    (lambda M, x: x.std(axis=1, keepdim=True), [[1.0, 2.0], [3.0, 5.0]]),
    (lambda M, x: M.var_mean(x, dim=(0, 1), correction=0)[0], [[1.0, 2.0], [3.0, 5.0]]),
    (lambda M, x: x.logsumexp(0), [1000.0, 1000.0, -INF]),  # no overflow
    (lambda M, x: x.logcumsumexp(0), [1.0, 700.0, 2.0]),
    (lambda M, x: x.norm(p=INF), [3.0, -3.0, 1.0]),  # a tie shares the gradient
    (lambda M, x: x.norm(p=-INF, dim=1), [[3.0, -1.0], [-2.0, 2.0]]),
    (lambda M, x: x.norm(p=0.5), [0.0, 1.0, 4.0]),
    (lambda M, x: x.norm(p=3, dim=0), [[0.0, 1.0], [0.0, -2.0]]),
    (lambda M, x: x.norm(), [0.0, 0.0]),
    (lambda M, x: x.cummax(0).values, [1.0, 3.0, 3.0, 2.0, 5.0]),  # ties move the index
    (lambda M, x: x.cummin(1).values, [[3.0, 1.0, 1.0], [2.0, 2.0, 0.5]]),
    (lambda M, x: M.xlogy(x, x * 0 + 2.0), [0.0, 1.0]),
    (lambda M, x: M.xlogy(x * 0, x), [0.0, 1.0]),
    (lambda M, x: x.clamp(x * 0 + 1.0, x * 0 + 0.5), [0.0, 0.7, 2.0]),  # min > max: max
    (lambda M, x: x.clamp(x * 2, x * 3), [1.0, -1.0, 0.0]),
    (lambda M, x: x.round(), [0.5, 1.5, 2.5, -0.5, -1.5]),  # halves to even
    (lambda M, x: x.round(decimals=2), [1.2345, -2.5551, 100.0]),
    (lambda M, x: x.nan_to_num(), [NAN, INF, -INF, 1.0]),
    (lambda M, x: x.nan_to_num(nan=0.5, posinf=9.0), [NAN, INF, -INF, 1.0]),
    (lambda M, x: x.erfinv(), [0.0, 0.5, -0.99, 0.999999]),
    (lambda M, x: x.div(x * 0 + 2, rounding_mode="floor"), [-3.0, 3.0, 2.5]),
], ids=lambda c: str(c[1]) if isinstance(c, tuple) else str(c))
def test_delicate_cases_match_pytorch(case, torch_mod):
    fn, x = case
    same(torch_mod, fn, x)


def test_erfinv_at_and_outside_the_ends(torch_mod):
    x = [1.0, -1.0, 1.5, NAN]
    ours = minigrad.tensor(x).erfinv().array
    np.testing.assert_array_equal(ours, torch_mod.tensor(x).erfinv().numpy())


@pytest.mark.parametrize("x", [[1.0, NAN, 0.5, 3.0], [NAN, 1.0], [2.0, 2.0, 1.0, 2.0]])
def test_cummax_and_cummin_indices_match_pytorch(x, torch_mod):
    for op in ("cummax", "cummin"):
        ours, theirs = getattr(minigrad.tensor(x), op)(0), getattr(torch_mod.tensor(x), op)(0)
        np.testing.assert_array_equal(ours.indices.array, theirs.indices.numpy())
        np.testing.assert_array_equal(ours.values.array, theirs.values.numpy())
        assert ours.indices.dtype == minigrad.int64 and isinstance(ours, tuple)


def test_cummax_returns_a_named_tuple():
    values, indices = minigrad.tensor([1.0, 3.0, 2.0]).cummax(0)
    result = minigrad.cummax(minigrad.tensor([1.0, 3.0, 2.0]), dim=0)
    assert result.values.tolist() == values.tolist() == [1.0, 3.0, 3.0]
    assert result.indices.tolist() == indices.tolist() == [0, 1, 1]
    assert type(minigrad.cummin(minigrad.tensor([1.0]), 0)).__name__ == "Cummin"


# -- dims out of range: PyTorch's IndexError, from one place, and nothing changed ------------
CALLS = {
    "var": lambda x: x.var(5), "std": lambda x: x.std(dim=(0, 5)),
    "var_correction": lambda x: x.var(5, correction=0), "prod": lambda x: x.prod(5),
    "logsumexp": lambda x: x.logsumexp(-3), "norm": lambda x: x.norm(dim=5),
    "cumsum": lambda x: x.cumsum(5), "cumprod": lambda x: x.cumprod(-3),
    "cummax": lambda x: x.cummax(5), "logcumsumexp": lambda x: x.logcumsumexp(2),
    "any": lambda x: x.any(5), "all": lambda x: x.all(dim=(5,)),
    "count_nonzero": lambda x: x.count_nonzero(5), "argmax": lambda x: x.argmax(5),
    "amax": lambda x: x.amax(axis=5), "sum_axis": lambda x: x.sum(axis=5),
    "max_axis": lambda x: x.max(axis=5),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_dim_out_of_range_gets_pytorchs_error_and_changes_nothing(name, torch_mod):
    ours = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    theirs = torch_mod.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with pytest.raises(IndexError) as info:
        CALLS[name](ours)
    with pytest.raises(IndexError) as expected:
        CALLS[name](theirs)
    bad = 2 if name in ("logcumsumexp",) else (-3 if name in ("logsumexp", "cumprod") else 5)
    assert str(info.value) == str(expected.value) == (
        f"Dimension out of range (expected to be in range of [-2, 1], but got {bad})")
    assert ours.tolist() == [[1.0, 2.0], [3.0, 4.0]] and ours.grad is None


def test_normalize_dim_takes_one_int_only():
    assert normalize_dim(-1, 3) == 2
    with pytest.raises(TypeError, match=r"^cumsum\(\): argument 'dim' \(position 1\) must be "
                                        r"int, not tuple$"):
        normalize_dim((0,), 3, "cumsum", " (position 1)")
    with pytest.raises(IndexError, match=r"range of \[-3, 2\], but got 3\)$"):
        normalize_dim(3, 3)


ZERO_DIM = ["x.prod(0)", "x.var(0)", "x.std(0, correction=0)", "x.logsumexp(0)",
            "x.norm(dim=0)", "x.norm(p=1, dim=-1)", "x.cumsum(0)", "x.cumprod(0)",
            "x.cummax(0).values", "x.logcumsumexp(0)", "x.amax(0)", "x.prod()",
            "M.var_mean(x, 0)[1]", "M.std_mean(x, 0)[1]", "x.max(0).values", "x.sum(axis=0)",
            "x.norm(p=math.inf)"]


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
@pytest.mark.parametrize("expr", ZERO_DIM)
def test_a_zero_dim_tensor_is_reduced_along_dim_0_as_in_pytorch(expr, torch_mod):
    """A 0-d tensor takes dim 0 (or -1) and is its own reduction, as in PyTorch."""
    same(torch_mod, lambda M, x: eval(expr, {"M": M, "x": x, "math": math}), 1.5)
