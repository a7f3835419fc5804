"""What a hook may return, checked as PyTorch 2.13 checks it, with PyTorch's words, and a
failed check leaves no .grad written (the backward is rolled back, minigrad's choice)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

CASES = {
    "tensor hook returns a float": lambda lib, y: y.register_hook(lambda g: 1.0),
    "tensor hook returns an array": lambda lib, y: y.register_hook(lambda g: np.ones(3)),
    "tensor hook changes the size": lambda lib, y: y.register_hook(lambda g: lib.ones(2)),
    "tensor hook changes the dtype": lambda lib, y: y.register_hook(
        lambda g: lib.ones(3, dtype=lib.float64)),
    "node hook returns a tensor": lambda lib, y: y.grad_fn.register_hook(lambda gi, go: gi[0]),
    "node hook returns a list": lambda lib, y: y.grad_fn.register_hook(
        lambda gi, go: [gi[0], None]),
    "node hook returns too few": lambda lib, y: y.grad_fn.register_hook(
        lambda gi, go: (gi[0],)),
    "node hook returns a float inside": lambda lib, y: y.grad_fn.register_hook(
        lambda gi, go: (1.0, None)),
    "node hook changes a size": lambda lib, y: y.grad_fn.register_hook(
        lambda gi, go: (lib.ones(4), None)),
    "node hook changes a dtype": lambda lib, y: y.grad_fn.register_hook(
        lambda gi, go: (gi[0].double(), None)),
    "prehook returns a tensor": lambda lib, y: y.grad_fn.register_prehook(lambda go: go[0]),
    "prehook returns a float inside": lambda lib, y: y.grad_fn.register_prehook(
        lambda go: (1.0,)),
    "prehook changes a size": lambda lib, y: y.grad_fn.register_prehook(
        lambda go: (lib.ones(2),)),
}


@pytest.mark.parametrize("case", CASES)
def test_a_hook_returning_the_wrong_thing_is_refused_in_pytorch_s_words(case):
    errors = []
    for lib in (torch, minigrad):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        CASES[case](lib, y)
        with pytest.raises((TypeError, RuntimeError)) as info:
            y.sum().backward()
        errors.append((type(info.value).__name__,
                       str(info.value).replace("torch.", "minigrad.")))
        if lib is minigrad:
            assert x.grad is None
    assert errors[0] == errors[1]
