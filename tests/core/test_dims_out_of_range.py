"""Dims and view arguments out of range raise PyTorch's error instead of computing over some
other dim (they used to wrap around: softmax(x, 5) ran over dim 1, cat([x], 5) over dim 1,
flatten(2, 1) flattened everything, narrow past the end truncated, expand(-1, 3) made a new
leading dim of the old size). Each case against torch 2.13: same type, same words."""

from __future__ import annotations

import pytest

import minigrad

torch = pytest.importorskip("torch")

CASES = {
    "softmax(x, 5)": lambda lib, x: x.softmax(5),
    "log_softmax(x, -3)": lambda lib, x: x.log_softmax(-3),
    "cat([x], 5)": lambda lib, x: lib.cat([x], 5),
    "stack([x], 4)": lambda lib, x: lib.stack([x], 4),
    "flatten(2, 1)": lambda lib, x: x.flatten(2, 1),
    "flatten(1, 0)": lambda lib, x: x.flatten(1, 0),
    "narrow past the end": lambda lib, x: x.narrow(1, 2, 5),
    "narrow with a negative length": lambda lib, x: x.narrow(1, 0, -1),
    "narrow from beyond the size": lambda lib, x: x.narrow(1, 4, 0),
    "narrow of a dim out of range": lambda lib, x: x.narrow(2, 0, 1),
    "expand(-1, 3) into a new dim": lambda lib, x: x[0].expand(-1, 3),
    "expand to a size that does not fit": lambda lib, x: x[0].expand(2, 4),
    "expand to fewer dims": lambda lib, x: x.expand(3),
    "select of a dim out of range": lambda lib, x: x.select(5, 0),
    "select of an index out of range": lambda lib, x: x.select(1, 5),
    "transpose(0, 5)": lambda lib, x: x.transpose(0, 5),
    "sum(dim=2)": lambda lib, x: x.sum(2),
    "unsqueeze(4)": lambda lib, x: x.unsqueeze(4),
    "squeeze(3)": lambda lib, x: x.squeeze(3),
}


@pytest.mark.parametrize("case", CASES)
def test_refused_in_pytorch_s_words(case):
    errors = []
    for lib in (torch, minigrad):
        x = lib.ones(2, 3, requires_grad=True)
        y = x * 1
        with pytest.raises((IndexError, RuntimeError)) as info:
            CASES[case](lib, y)
        errors.append((type(info.value).__name__, str(info.value).replace("torch.", "minigrad.")))
        assert x.grad is None and y._version == 0
    assert errors[0] == errors[1]


@pytest.mark.parametrize("call", [
    lambda lib, x: x.softmax(-1), lambda lib, x: lib.cat([x, x], -1),
    lambda lib, x: lib.stack([x, x], -1), lambda lib, x: x.flatten(-2, -1),
    lambda lib, x: x.narrow(-1, -1, 1), lambda lib, x: x.narrow(1, 3, 0),
    lambda lib, x: x[0].expand(2, -1), lambda lib, x: x.select(-1, -2),
    lambda lib, x: x.transpose(-2, -1), lambda lib, x: x.sum().softmax(0),
    lambda lib, x: x.sum().flatten(),
])
def test_dims_in_range_still_work_as_in_pytorch(call):
    shapes = [tuple(call(lib, lib.arange(6.0).reshape(2, 3)).shape) for lib in (torch, minigrad)]
    assert shapes[0] == shapes[1]


EMPTY = {
    "max of nothing": lambda lib: lib.ones(0).max(),
    "min of nothing": lambda lib: lib.ones(0).min(),
    "amax of nothing": lambda lib: lib.ones(0).amax(),
    "argmax of nothing": lambda lib: lib.ones(0).argmax(),
    "max along an empty dim": lambda lib: lib.ones(2, 0).max(1),
    "argmin along an empty dim": lambda lib: lib.ones(2, 0).argmin(1),
    "too many indices": lambda lib: lib.ones(2, 3)[0, 0, 0],
    "too many indices with None and ...": lambda lib: lib.ones(2, 3)[None, ..., 0, 0, 0],
}


@pytest.mark.parametrize("case", EMPTY)
def test_empty_reductions_and_too_many_indices_say_what_pytorch_says(case):
    errors = []
    for lib in (torch, minigrad):
        with pytest.raises((IndexError, RuntimeError)) as info:
            EMPTY[case](lib)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1]


def test_empty_reductions_that_have_an_answer_still_give_it():
    for lib in (torch, minigrad):
        assert lib.ones(0).sum().item() == 0 and lib.ones(0, 2).max(1).values.shape == (0,)
