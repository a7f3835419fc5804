"""An op that saves its output (tanh, exp, sigmoid, relu, ...) notices every way that output
can be changed in place before backward, as PyTorch does, whether or not the output had a
version counter yet when it was changed."""

import numpy as np
import pytest

import minigrad

MODIFIED = "modified by an inplace operation"


def make(op="tanh"):
    x = minigrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    return x, getattr(x, op)()


CHANGES = {
    "mul_ (recorded)": lambda y: y.mul_(2),
    "add_ under no_grad": lambda y: _no_grad(lambda: y.add_(1)),
    "item assignment under no_grad": lambda y: _no_grad(lambda: y.__setitem__(0, 3.0)),
    "zero_ of a view under no_grad": lambda y: _no_grad(lambda: y[:2].zero_()),
    "view made first, changed later": lambda y: _later(y[1:]),
    "detach() then change": lambda y: y.detach().mul_(3),
    "detach_() then change": lambda y: y.detach_().mul_(3),
    "-= under no_grad": lambda y: _no_grad(lambda: y.__isub__(0.5)),
}


def _no_grad(fn):
    with minigrad.no_grad():
        fn()


def _later(view):
    with minigrad.no_grad():
        view.fill_(7.0)


@pytest.mark.parametrize("op", ["tanh", "exp", "sigmoid", "relu", "sqrt"])
@pytest.mark.parametrize("change", list(CHANGES))
def test_changing_a_saved_output_in_place_is_refused_at_backward(op, change):
    x = minigrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = getattr(x, op)()
    node = y.grad_fn
    z = y * 1  # keeps a path to y's node even when y itself is cut from it (detach_)
    CHANGES[change](y)
    with pytest.raises(RuntimeError, match=MODIFIED):
        z.sum().backward()
    assert x.grad is None
    assert node.name().endswith("Backward0")


def test_unchanged_outputs_backward_fine_and_keep_no_counter():
    x, y = make("tanh")
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, 1 - np.tanh(x.array) ** 2, rtol=1e-6)


def test_output_read_through_ctx_output_and_then_changed_is_still_refused():
    x, y = make("exp")
    (g,) = minigrad.autograd.grad(y.sum(), [x], retain_graph=True)
    np.testing.assert_allclose(g.array, np.exp(x.array), rtol=1e-6)
    with minigrad.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()


@pytest.mark.parametrize("case", ["a saved output", "a saved input"])
def test_the_modified_by_an_inplace_operation_message_is_pytorchs(case):
    torch = pytest.importorskip("torch")
    words = []
    for lib in (minigrad, torch):
        x = lib.ones(3, requires_grad=True)
        if case == "a saved output":
            y = x.exp()
            y.add_(1)
            out = y.sum()
        else:
            b = x * 2
            out = (b * b).sum()
            b.mul_(2)
        with pytest.raises(RuntimeError) as error:
            out.backward()
        words.append(str(error.value).replace("torch.", "minigrad."))
        assert x.grad is None
    assert words[0] == words[1]
