"""What the state machine (test_state_machine.py) found, each shrunk to a plain test, run
side by side with PyTorch."""

from __future__ import annotations

import pytest

import minigrad

torch = pytest.importorskip("torch")


def outcome(fn):
    """What `fn()` did: ("ok", its result) or (exception class name, message)."""
    try:
        return "ok", fn()
    except Exception as exc:  # noqa: BLE001 - compared with PyTorch's
        return type(exc).__name__, str(exc).replace("torch.", "minigrad.")


def test_requires_grad_on_a_non_leaf_that_requires_grad():
    """`y.requires_grad_()` on a non-leaf is a no-op in PyTorch (minigrad refused it);
    turning it off, or assigning `y.requires_grad`, is refused, in two wordings."""
    seen = []
    for lib in (torch, minigrad):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        seen.append([
            outcome(lambda y=y: y.requires_grad_() is y),
            outcome(lambda y=y: y.requires_grad_(False)),
            outcome(lambda y=y: setattr(y, "requires_grad", True)),
            outcome(lambda y=y: setattr(y, "requires_grad", False)),
            y.requires_grad, y.is_leaf,
        ])
    assert seen[0] == seen[1]


def test_one_element_of_a_vector_is_a_view_that_sees_in_place_changes():
    """`v = a[0]` shares a's memory in PyTorch; minigrad's was a copy (numpy's `a[0]` is a
    scalar) that still shared a's version counter: `a.add_(2)` left v at the old value."""
    seen = []
    for lib in (torch, minigrad):
        a = lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64)
        b = lib.tensor([[0.5, 1.0], [2.0, 3.0]], dtype=lib.float64)
        v, r = a[0], b[0, 1]
        a.add_(2)
        b.mul_(2)
        v.mul_(10)  # ... and the other way round
        seen.append((v.item(), a.tolist(), r.item(), a._version, v._version))
    assert seen[0] == seen[1]


def test_a_0_d_leaf_s_accumulated_grad_can_be_zeroed_in_place():
    """A 0-d leaf's second backward left a numpy scalar as its .grad's data (numpy adds two
    0-d arrays into a scalar), which zero_grad(set_to_none=False) then refused to zero as if
    it were an expanded tensor."""
    seen = []
    for lib in (torch, minigrad):
        x = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.SGD([x], lr=0.1)
        x.sum().backward()
        x.sum().backward()
        opt.zero_grad(set_to_none=False)
        zeroed = x.grad.item()
        (x * 3).backward()
        opt.step()
        seen.append((zeroed, x.grad.item(), x.item()))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("pick", [lambda x: x[[0, 0, 1]], lambda x: x[x > 0]])
def test_a_second_backward_through_an_index_without_retain_graph_fails(pick):
    """PyTorch's IndexBackward0 saves its indices, so a second backward through `x[[0, 0, 1]]`
    or `x[mask]` without retain_graph is refused; minigrad's ran again (and accumulated)."""
    seen = []
    for lib in (torch, minigrad):
        x = lib.ones(3, requires_grad=True)
        w = pick(x)
        w.sum().backward()
        seen.append((outcome(lambda w=w: w.sum().backward()), x.grad.tolist()))
    assert seen[0] == seen[1]
