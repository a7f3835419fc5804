"""`backward(inputs=...)`, `autograd.grad`'s inputs and `requires_grad`'s setters, side by side
with PyTorch 2.13: the same gradients, the same errors in the same words, and a refused call
changes nothing.

PyTorch's backward calls `retain_grad()` on every tensor in `inputs`, so a non-leaf input keeps
its gradient in `.grad` (and keeps doing so in later backwards); minigrad used to ignore it.
"""

from __future__ import annotations

import pytest

import minigrad

torch = pytest.importorskip("torch")
LIBS = (minigrad, torch)


def _grads(*tensors):
    return [None if t.grad is None else t.grad.tolist() for t in tensors]


def _outcome(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 (the error is what is compared)
        return type(exc).__name__, str(exc).split("\n")[0]
    return "ok", ""


def test_a_non_leaf_input_gets_its_gradient_and_keeps_getting_it() -> None:
    seen = []
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        h = x * 2
        loss = (h * h).sum()
        loss.backward(inputs=[h], retain_graph=True)
        first = _grads(h, x), h.retains_grad
        loss.backward()  # no inputs: x too, and h again (it now retains its gradient)
        seen.append((first, _grads(h, x)))
    assert seen[0] == seen[1] == (([[4.0] * 3, None], True), [[8.0] * 3, [8.0] * 3])


def test_a_non_leaf_input_off_the_path_stays_none() -> None:
    seen = []
    for lib in LIBS:
        y = lib.ones(2, requires_grad=True)
        q = y * 2
        (y * 5).sum().backward(inputs=[q])
        seen.append((_grads(q, y), q.retains_grad))
    assert seen[0] == seen[1] == ([None, None], True)


CALLS = {
    "backward, one input": lambda lib, y, c, h, loss: loss.backward(inputs=[c]),
    "backward, second input": lambda lib, y, c, h, loss: loss.backward(inputs=[h, c]),
    "grad, one input": lambda lib, y, c, h, loss: lib.autograd.grad(loss, [c]),
    "grad, second input": lambda lib, y, c, h, loss: lib.autograd.grad(loss, [y, c]),
    "detached input": lambda lib, y, c, h, loss: loss.backward(inputs=[h.detach()]),
}


@pytest.mark.parametrize("case", CALLS)
def test_inputs_that_do_not_require_grad_are_refused_and_nothing_changes(case: str) -> None:
    seen = []
    for lib in LIBS:
        y = lib.ones(2, requires_grad=True)
        c = lib.ones(2)
        h = y * 3
        loss = (h * c).sum()
        outcome = _outcome(lambda: CALLS[case](lib, y, c, h, loss))  # noqa: B023 (called here)
        # minigrad checks every input first, so h is not left retaining its gradient;
        # PyTorch calls retain_grad() input by input and leaves h.retains_grad True
        seen.append((outcome, _grads(y)))
        if lib is minigrad:
            assert not h.retains_grad
    assert seen[0] == seen[1]
    assert seen[0][0][0] == "RuntimeError" and seen[0][1] == [None]


@pytest.mark.parametrize("value", [True, False, "x", 1, None])
def test_requires_grad_setters_speak_as_pytorch(value: object) -> None:
    seen = []
    for lib in LIBS:
        leaf, non_leaf = lib.ones(2), lib.ones(2, requires_grad=True) * 1
        seen.append([_outcome(lambda t=t, m=m: t.requires_grad_(value) if m else setattr(
            t, "requires_grad", value)) for t in (leaf, non_leaf) for m in (True, False)]
            + [leaf.requires_grad, non_leaf.requires_grad])
    assert seen[0] == seen[1]
