"""Long float32 sums keep PyTorch's accuracy, whichever dim they run along.

numpy sums the innermost, contiguous dim pairwise (accurate), but any other dim one row at a
time in float32: 2**25 ones along dim 0 stop growing at 2**24, so `ones(2**25, 3).mean(0)` was
0.5 and a bias broadcast over 2**25 rows got half its gradient. PyTorch's cascade sum gives
the exact answers; these tests run the same programs on torch and compare.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad.surface.summation import LONG, add_reduce

torch = pytest.importorskip("torch")

N = 2**25  # past 2**24, where float32's spacing becomes 2


def test_mean_along_a_leading_dim_of_many_ones_is_one() -> None:
    out = minigrad.ones(N, 3).mean(0)
    assert out.tolist() == torch.ones(N, 3).mean(0).tolist() == [1.0, 1.0, 1.0]


def test_sum_along_a_leading_dim_counts_every_row() -> None:
    assert minigrad.ones(N, 3).sum(0).tolist() == torch.ones(N, 3).sum(0).tolist()


def test_a_bias_broadcast_over_many_rows_gets_its_whole_gradient() -> None:
    results = []
    for lib in (minigrad, torch):
        b = lib.zeros(3, requires_grad=True)
        b.expand(N, 3).sum().backward()
        results.append(b.grad.tolist())
    assert results[0] == results[1] == [float(N)] * 3


def test_sum_of_an_expanded_view_counts_every_element() -> None:
    # exact in minigrad; torch 2.13 prints 123032912.0 here (3 * 2**25 is 100663296): its sum
    # of a stride-0 view is not its cascade sum, so this one is not compared
    assert minigrad.ones(3).expand(N, 3).sum().item() == 3.0 * N


@pytest.mark.parametrize("shape,dim", [((5000, 4), 0), ((7, 2049, 3), 1),
                                       ((1025, 2, 3), (0, 2)), ((5, 4096), None)])
def test_random_sums_agree_with_torch_to_float32_accuracy(shape: tuple, dim: object) -> None:
    values = np.random.default_rng(0).standard_normal(shape).astype(np.float32) + 0.5
    exact = values.astype(np.float64).sum(axis=dim)
    mine = minigrad.tensor(values).sum(dim).numpy() if dim is not None else \
        minigrad.tensor(values).sum().numpy()
    theirs = torch.tensor(values).sum(dim).numpy() if dim is not None else \
        torch.tensor(values).sum().numpy()
    scale = np.abs(values).astype(np.float64).sum(axis=dim)
    # both within a few float32 roundings of the exact sum (naive row-by-row summing of 10**4
    # rows is ~100x worse than that)
    assert np.all(np.abs(mine - exact) <= 8e-7 * scale + 1e-6)
    assert np.all(np.abs(theirs - exact) <= 8e-7 * scale + 1e-6)


def test_rows_of_a_hundredth_add_up_as_in_torch() -> None:
    mine = minigrad.full((5000, 2), 0.01).sum(0).tolist()
    assert mine == torch.full((5000, 2), 0.01).sum(0).tolist() == [50.0, 50.0]


def test_add_reduce_is_numpys_reduce_for_short_sums() -> None:
    a = np.random.default_rng(1).standard_normal((LONG, 5)).astype(np.float32)
    for axis, keepdims in [(0, False), ((0, 1), True), (None, False), (1, True)]:
        np.testing.assert_array_equal(add_reduce(a, axis, keepdims),
                                      np.add.reduce(a, axis=axis, keepdims=keepdims))


def test_add_reduce_keeps_dtype_shape_and_keepdims() -> None:
    a = np.ones((2 * LONG + 3, 2, 3), np.float32)
    out = add_reduce(a, (0, 2), True)
    assert out.dtype == np.float32 and out.shape == (1, 2, 1)
    assert np.all(out == 3 * (2 * LONG + 3))
    assert add_reduce(np.ones((LONG * 3,), np.float16), 0).dtype == np.float16
    ints = np.ones((LONG * 3, 2), np.int64)  # integers are exact already: numpy's own reduce
    assert add_reduce(ints, 0).tolist() == [LONG * 3] * 2


def test_variance_and_norm_along_a_leading_dim() -> None:
    assert minigrad.ones(N, 3).var(0).tolist() == torch.ones(N, 3).var(0).tolist() == [0.0] * 3
    # sqrt(2**25) * 0.1 = 579.26: right in minigrad; torch 2.13's norm along dim 0 prints
    # 512. (its running float32 total stops growing at 2**18), so this one is not compared
    norm = minigrad.full((N, 2), 0.1).norm(dim=0)
    np.testing.assert_allclose(norm.numpy(), np.sqrt(N) * np.float32(0.1), rtol=1e-6)
