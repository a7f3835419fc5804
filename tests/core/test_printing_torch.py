"""A tensor prints as PyTorch 2.13 prints it (with `torch` read as `minigrad`): the format is
chosen, and the column width set, from the nonzero finite values only, so inf, nan and zeros
do not widen the other columns."""

from __future__ import annotations

import pytest

import minigrad

torch = pytest.importorskip("torch")
INF, NAN = float("inf"), float("nan")

VALUES = [[INF, 1.0], [0.0, INF], [NAN, 0.0, 1.5], [-0.0, 1.0], [0.0, 0.0], [-INF, 100.0, 2.0],
          [1e-5, INF, 0.0], [[INF, 1.0], [2.0, NAN]], [1e10, INF, -0.0], [0.5, -2.25, 3.0],
          [1, 200, -3], [True, False], list(range(1100)), [[1.5] * 1100] * 2,
          [[2.0, -1.0]] * 1100]


@pytest.mark.parametrize("values", VALUES, ids=lambda v: str(v)[:30])
def test_a_tensor_prints_as_in_pytorch(values: list) -> None:
    assert repr(minigrad.tensor(values)) == repr(torch.tensor(values)).replace("torch", "minigrad")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "uint8"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2,)])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_the_dtype_is_named_as_in_pytorch(dtype: str, shape: tuple, default: str) -> None:
    texts = []
    for lib in (minigrad, torch):
        before = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default))
        try:
            texts.append(repr(lib.zeros(shape, dtype=getattr(lib, dtype))).replace(
                "torch", "minigrad"))
        finally:
            lib.set_default_dtype(before)
    assert texts[0] == texts[1]
