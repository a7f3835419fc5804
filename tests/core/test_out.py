"""`out=`, side by side with PyTorch: the Tensors tutorial's `torch.matmul(t, t.T, out=y3)` and
`torch.mul(t, t, out=z3)`, and the other functions whose PyTorch binding takes it: the result
is written into `out` and `out` is returned; its dtype is kept when the result casts to it,
else PyTorch's error; a wrong shape is resized with PyTorch's warning (a factory resizes
silently); nothing that requires grad may take part (PyTorch's error, `out` untouched)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad
from minigrad.surface.out_functions import OUT_TAKERS

CALLS = [
    ("matmul(a, a.T, out=o)", (3, 3)), ("mul(a, a, out=o)", (3, 3)), ("add(a, 1, out=o)", (3, 3)),
    ("sub(a, b, alpha=2, out=o)", (3, 3)), ("div(a, 2, out=o)", (3, 3)), ("exp(a, out=o)", (3, 3)),
    ("sum(a, 1, out=o)", (3,)), ("mean(a, 0, out=o)", (3,)), ("cat([a, b], out=o)", (6, 3)),
    ("stack([a, b], out=o)", (2, 3, 3)), ("clamp(a, 0, 1, out=o)", (3, 3)),
    ("where(a > 1, a, b, out=o)", (3, 3)), ("sigmoid(a, out=o)", (3, 3)),
    ("softmax(a, 1, out=o)", (3, 3)), ("cumsum(a, 0, out=o)", (3, 3)),
    ("pow(a, 2, out=o)", (3, 3)), ("neg(a, out=o)", (3, 3)), ("mm(a, b, out=o)", (3, 3)),
    ("zeros(2, 3, out=o)", (2, 3)), ("ones(3, out=o)", (3,)), ("arange(4, out=o)", (4,)),
    ("full((2,), 7.0, out=o)", (2,)), ("eye(3, out=o)", (3, 3)),
    ("linspace(0, 1, 5, out=o)", (5,)), ("tensordot(a, b, dims=1, out=o)", (3, 3)),
]


def _env(lib):
    a = lib.tensor(np.arange(9.0, dtype=np.float32).reshape(3, 3) / 4)
    b = lib.ones(3, 3)
    return {**{n: getattr(lib, n) for n in dir(lib) if not n.startswith("_")}, "a": a, "b": b}


@pytest.mark.parametrize("call, shape", CALLS, ids=[c for c, _ in CALLS])
def test_the_result_goes_into_out_as_in_torch(call, shape, torch_mod):
    seen = []
    for lib in (minigrad, torch_mod):
        env = _env(lib)
        env["o"] = out = lib.empty(shape)
        version = out._version
        got = eval(call, env)
        assert got is out and out._version > version
        seen.append(out.numpy().copy())
    np.testing.assert_allclose(seen[0], seen[1], rtol=1e-6)


def test_max_writes_both_outputs_and_names_them_as_torch(torch_mod):
    printed = []
    for lib in (minigrad, torch_mod):
        values, indices = lib.empty(2), lib.empty(2, dtype=lib.int64)
        got = lib.max(lib.tensor([[1.0, 5.0], [7.0, 2.0]]), 1, out=(values, indices))
        assert got.values is values and got.indices is indices
        printed.append(repr(got).replace("torch", "minigrad"))
    assert printed[0] == printed[1]


def test_dtypes_resizing_and_autograd_follow_torch(torch_mod):
    for lib in (torch_mod, minigrad):
        out = lib.empty(3, dtype=lib.int64)
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                           "output type Long"):
            lib.add(lib.ones(3), 1, out=out)
        wide = lib.empty(3, dtype=lib.float64)
        assert lib.add(lib.ones(3, dtype=lib.int64), 1, out=wide).dtype == lib.float64
        short = lib.empty(2)
        with pytest.warns(UserWarning, match="An output with one or more elements was resized "
                          "since it had shape \\[2\\], which does not match the required output "
                          "shape \\[3\\]"):
            lib.add(lib.ones(3), 1, out=short)
        assert tuple(short.shape) == (3,)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert tuple(lib.zeros(2, out=lib.empty(3)).shape) == (2,)  # (silently)
        untouched = lib.zeros(3)
        with pytest.raises(RuntimeError, match="add\\(\\): functions with out=... arguments "
                           "don't support automatic differentiation, but one of the arguments "
                           "requires grad."):
            lib.add(lib.ones(3, requires_grad=True), 1, out=untouched)
        assert untouched.tolist() == [0.0, 0.0, 0.0]
        with lib.no_grad():
            assert lib.mul(lib.ones(2, requires_grad=True), 2, out=lib.empty(2)).tolist() == \
                [2.0, 2.0]
        made = lib.empty(2)
        assert lib.zeros(2, out=made, requires_grad=True).requires_grad


def test_every_function_listed_takes_out_in_its_signature():
    import inspect

    for name in OUT_TAKERS:
        params = inspect.signature(getattr(minigrad, name)).parameters
        assert params["out"].kind is inspect.Parameter.KEYWORD_ONLY, name
    assert minigrad.Tensor.add is minigrad.ops.add  # (the methods call the ops themselves)


EXACT_CALLS = ["matmul(a, a, out=o)", "neg(a, out=o)", "clamp(a, 0, 1, out=o)",
               "where(a > 0, a, a, out=o)", "index_select(a, 0, i, out=o)",
               "dot(a[0], a[0], out=o)", "take(a, i, out=o)", "amax(a, 0, out=o)",
               "tensordot(a, a, dims=1, out=o)", "tril(a, out=o)", "narrow_copy(a, 0, 0, 1, out=o)"]


@pytest.mark.parametrize("call", EXACT_CALLS)
def test_ops_that_want_out_of_the_results_dtype_say_so_as_torch(call, torch_mod):
    said = []
    for lib in (torch_mod, minigrad):
        env = {**_env(lib), "o": lib.empty(0, dtype=lib.float64), "i": lib.tensor([0])}
        with pytest.raises(RuntimeError) as caught:
            eval(call, env)
        said.append(str(caught.value))
    assert said[1] == said[0]
