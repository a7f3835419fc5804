"""Small things the tutorials print, side by side with PyTorch: the Transforms tutorial's
one-hot `zeros(10).scatter_(0, tensor(y), value=1)` (a 0-d index counts as one position), a 0-d
index in gather and scatter_add; and printing: a summarised tensor's format is decided by the
items it shows, and a suffix (`dtype=...`, `requires_grad=True`) that would pass the line's
80 columns goes on the next line, as PyTorch lays them out."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad


@pytest.mark.parametrize("call", [
    "zeros(10, dtype=float).scatter_(0, tensor(3), value=1)",
    "zeros(10).scatter(0, tensor(3), tensor(5.))",
    "arange(5.).gather(0, tensor(2))", "tensor(2.).gather(0, tensor([0]))",
    "zeros(3).scatter_add(0, tensor(1), tensor(2.))",
])
def test_a_0d_index_is_one_position_as_in_torch(call, torch_mod):
    printed = []
    for lib in (minigrad, torch_mod):
        env = {n: getattr(lib, n) for n in ("zeros", "tensor", "arange", "float")}
        printed.append(repr(eval(call, env)))
    assert printed[0] == printed[1]


def test_a_0d_index_still_needs_a_1d_tensor(torch_mod):
    for lib in (torch_mod, minigrad):
        with pytest.raises(RuntimeError, match="Index tensor must have the same number of "
                           "dimensions as self tensor"):
            lib.zeros(2, 3).scatter_(0, lib.tensor(1), value=1)


def test_a_summarised_tensor_is_formatted_by_what_it_shows(torch_mod):
    rng = np.random.default_rng(2)
    for k in range(40):
        values = rng.standard_normal(2000 + k).astype(np.float32)
        values[rng.integers(10, 1990, 3)] = rng.choice([0.0, 1e-7, 5e4, 1e9])
        if k % 2:
            values = np.round(values)
        ours = repr(minigrad.tensor(values))
        assert ours == repr(torch_mod.tensor(values)), ours


@pytest.mark.parametrize("dtype", ["float64", "float16", "int32"])
def test_suffixes_break_lines_where_torchs_do(dtype, torch_mod):
    rng = np.random.default_rng(5)
    for k in range(60):
        shape = tuple(rng.integers(1, 7, rng.integers(1, 3)))
        values = (rng.standard_normal(shape) * rng.choice([1, 100, 1e-3])).astype(dtype)
        grad = dtype != "int32" and bool(k % 2)
        ours = repr(minigrad.tensor(values, requires_grad=grad))
        theirs = repr(torch_mod.tensor(values, requires_grad=grad))
        assert ours.replace("minigrad", "torch") == theirs, ours
