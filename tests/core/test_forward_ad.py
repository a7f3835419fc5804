"""Forward mode's API, `minigrad.autograd.forward_ad`, as PyTorch's: levels, make_dual,
unpack_dual, their errors (PyTorch's words, and no state left half-changed), the tangent in a
tensor's repr, no_grad, backward through dual tensors, and the ForwardTangent event."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import Function, events
from minigrad.autograd import forward_ad as fwAD
from minigrad.autograd.forward_ad import LEVELS


def t(values, **kw):
    return minigrad.tensor(values, dtype=minigrad.float64, **kw)


@pytest.fixture(autouse=True)
def no_level_left():
    yield
    assert LEVELS.kinds == [] and LEVELS.visible == 0, "a test left a forward AD level open"


def test_a_dual_carries_its_tangent_through_ops_and_loses_it_at_exit():
    x, v = t([1.0, 2.0, 3.0]), t([1.0, 0.5, 0.0])
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, v)
        assert d._base is x and d.is_leaf and not d.requires_grad
        y = d * d
        primal, tangent = fwAD.unpack_dual(y)
        assert isinstance(fwAD.unpack_dual(y), fwAD.UnpackedDualTensor)
        np.testing.assert_array_equal(primal.array, [1.0, 4.0, 9.0])
        np.testing.assert_array_equal(tangent.array, [2.0, 2.0, 0.0])
        assert fwAD.unpack_dual(d).tangent is v  # kept as it is
        assert fwAD.unpack_dual(d).primal._base is x
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(y) == (y, None)
    assert y._tangents is None and d._tangents is None


def test_the_repr_shows_the_tangent_as_pytorch_does(torch_mod):
    torch = torch_mod
    cases = [([1.0, 2.0, 3.0], [1.0, 0.5, 0.0], False), (2.0, 1.0, False),
             ([[1.5, -2.0], [3.25, 4.0]], [[0.5, 1.0], [2.0, -1.0]], True)]
    for value, tangent, grad in cases:
        with fwAD.dual_level():
            ours = fwAD.make_dual(minigrad.tensor(value, requires_grad=grad),
                                  minigrad.tensor(tangent)) * 2
            mine = repr(ours)
        with torch.autograd.forward_ad.dual_level():
            theirs = torch.autograd.forward_ad.make_dual(
                torch.tensor(value, requires_grad=grad), torch.tensor(tangent)) * 2
            expected = repr(theirs).replace("torch", "minigrad")
        assert mine == expected


def test_misuse_gets_pytorchs_errors_and_changes_nothing():
    x, v = t([1.0, 2.0, 3.0]), t([1.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match=r"^Trying to create a dual Tensor for forward AD but "
                       r"no level exists, make sure to enter_dual_level\(\) first\.$"):
        fwAD.make_dual(x, v)
    with pytest.raises(RuntimeError, match=r"^Dual level must be a positive number\.$"):
        fwAD.exit_dual_level()
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match=r"^Trying to set a forward gradient that has a "
                           r"different size than that of the original Tensor, this is not "
                           r"supported\. Tensor is of size \[3\] while the given forward "
                           r"gradient is of size \[2\]\.$"):
            fwAD.make_dual(x, t([1.0, 2.0]))
        with pytest.raises(ValueError, match=r"^Expected primal to be floating point or "
                           r"complex, but got: minigrad\.int64$"):
            fwAD.make_dual(minigrad.tensor([1, 2]), t([1.0, 2.0]))
        with pytest.raises(ValueError, match="^Expected tangent to be floating point"):
            fwAD.make_dual(x, minigrad.tensor([1, 2, 3]))
        d = fwAD.make_dual(x, v)
        with pytest.raises(RuntimeError, match=r"^Making a dual Tensor based on a Tensor that "
                           r"already has a forward gradient at the same level 0 is not "
                           r"supported\.$"):
            fwAD.make_dual(d, v)
        with pytest.raises(RuntimeError, match=r"^Nested forward mode AD is not supported at "
                           r"the moment$"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match=r"^Trying to exit a forward AD level that was "
                           r"not the last one that was created\. This is not supported\.$"):
            fwAD.exit_dual_level(level=5)
        assert LEVELS.kinds == ["dual"]  # the level is still there, and still works
        assert fwAD.unpack_dual(d * 3).tangent.array.tolist() == [3.0, 0.0, 0.0]


def test_enter_and_exit_by_hand_and_as_a_decorator():
    level = fwAD.enter_dual_level()
    d = fwAD.make_dual(t([2.0]), t([1.0]))
    fwAD.exit_dual_level(level=level)
    assert d._tangents is None

    @fwAD.dual_level()
    def slope(x):
        return fwAD.unpack_dual(fwAD.make_dual(x, t([1.0])).exp()).tangent

    assert slope(t([0.0])).array.tolist() == [1.0]


def test_no_grad_leaves_forward_mode_on_as_in_pytorch():
    with fwAD.dual_level():
        d = fwAD.make_dual(t([1.0, 2.0]), t([1.0, 1.0]))
        with minigrad.no_grad():
            tangent = fwAD.unpack_dual(d.sin()).tangent
    np.testing.assert_allclose(tangent.array, np.cos([1.0, 2.0]))


def test_backward_reaches_the_primal_and_the_tangent():
    x = t([1.0, 2.0, 3.0], requires_grad=True)
    v = t([1.0, 0.5, 0.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        assert d.grad_fn.name() == "ViewBackward0" and not d.is_leaf
        y = (d * d).sum()
        y_value, y_tangent = fwAD.unpack_dual(y)
        (y_value + y_tangent).backward()
    np.testing.assert_allclose(x.grad.array, 2 * x.array + 2 * v.array)  # d(x.x + 2 x.v)/dx
    np.testing.assert_allclose(v.grad.array, 2 * x.array)


def test_a_forward_tangent_event_while_someone_listens():
    seen = []
    with fwAD.dual_level():
        d = fwAD.make_dual(t([1.0, 2.0]), t([1.0, 0.0]))
        d * 3  # nobody listens: nothing is built
        with events.listen(seen.append):
            out = d * t([2.0, 5.0])
    tangent_events = [e for e in seen if isinstance(e, events.ForwardTangent)]
    assert len(tangent_events) == 1
    (e,) = tangent_events
    assert e.function.__name__ == "Mul" and e.output is out and e.level == 0
    assert e.input_tangents[0].array.tolist() == [1.0, 0.0]
    assert e.input_tangents[1].array.tolist() == [0.0, 0.0]  # a tensor without one: zeros
    assert e.output_tangent.array.tolist() == [2.0, 0.0]


class Cube(Function):
    """x**3 * k with forward mode, the PyTorch way: save_for_forward, attributes on ctx"""

    @staticmethod
    def forward(ctx, x, y, k):
        ctx.save_for_forward(x)
        ctx.save_for_backward(y)
        ctx.k = k
        return x.array ** 3 * k + y.array

    @staticmethod
    def jvp(ctx, tx, ty, tk):
        (x,) = ctx.saved_tensors  # what save_for_forward kept (not save_for_backward's)
        assert tk is None  # a number gets no tangent
        return tx * 3 * x ** 2 * ctx.k + ty

    @staticmethod
    def backward(ctx, grad):
        return None, grad, None


@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_user_function_gets_its_jvp_called_as_in_pytorch(requires_grad):
    x, y = t([1.0, 2.0, 3.0], requires_grad=requires_grad), t([0.5, 0.5, 0.5])
    with fwAD.dual_level():
        out = Cube.apply(fwAD.make_dual(x, t([1.0, 0.5, 0.0])), y, 2.0)
        np.testing.assert_allclose(fwAD.unpack_dual(out).tangent.array, [6.0, 12.0, 0.0])
        out = Cube.apply(x, fwAD.make_dual(y, t([1.0, 1.0, 1.0])), 2.0)  # x: zeros tangent
        np.testing.assert_allclose(fwAD.unpack_dual(out).tangent.array, [1.0, 1.0, 1.0])
    assert (out.grad_fn is not None) == requires_grad


def _user(jvp, forward=lambda x: x.array * 3):
    return type("F", (Function,), {"forward": staticmethod(lambda ctx, x: forward(x)),
                                   "backward": staticmethod(lambda ctx, g: g),
                                   **({} if jvp is None else {"jvp": staticmethod(jvp)})})


@pytest.mark.parametrize("jvp, forward, message", [
    (None, None, r"^You must implement the jvp function for custom autograd\.Function to use "
     r"it with forward mode AD\.$"),
    (lambda ctx, tx: (tx, tx), None, r"^Function's jvp returned an invalid number of forward "
     r"gradients \(expected 1 but got 2\)$"),
    (lambda ctx, tx: tx[:2], None, r"^Trying to set a forward gradient that has a different "
     r"size"),
    (lambda ctx, tx: 3.0, None, r"^expected Variable or None \(got float\) for grad output "
     r"0\.$"),
    (lambda ctx, tx: tx, lambda x: x.array.astype(np.int64), r"^Function's jvp returned a "
     r"gradient at position 0, but  the corresponding forward output is not a differentiable "
     r"Tensor\.You should return None at that position instead\.$"),
    (lambda ctx, tx: None, None, r"^Function's jvp returned None at position 0, but the "
     r"corresponding forward output is a differentiable Tensor"),
])
def test_a_user_jvp_that_breaks_the_contract_is_refused(jvp, forward, message):
    fn = _user(jvp, forward or (lambda x: x.array * 3))
    with fwAD.dual_level():
        d = fwAD.make_dual(t([1.0, 2.0, 3.0]), t([1.0, 1.0, 1.0]))
        with pytest.raises((RuntimeError, NotImplementedError), match=message):
            fn.apply(d)
        assert fwAD.unpack_dual(d * 2).tangent is not None  # the level still works


def test_a_built_in_op_without_a_rule_is_refused_before_it_runs():
    class Planted(Function):
        """a stand-in for a built-in op that has no JVP rule yet"""

        __module__ = "minigrad.ops.planted"
        node_name = "MaxPool2DWithIndicesBackward0"
        ran = False

        @staticmethod
        def forward(ctx, a):
            Planted.ran = True
            return a.array

    with fwAD.dual_level():
        d = fwAD.make_dual(t([1.0]), t([1.0]))
        with pytest.raises(NotImplementedError, match=r"^Trying to use forward AD with "
                           r"max_pool2d_with_indices that does not support it because it has "
                           r"not been implemented yet\.\n"):
            Planted.apply(d)
    assert not Planted.ran


def test_nested_levels_of_a_transform_differentiate_twice():
    """What torch.func.jvp(jvp(...)) does: the inner rule's ops carry the outer tangent."""
    x = t([0.5, 1.0])
    outer = fwAD.push_level()
    try:
        inner = fwAD.push_level()
        try:
            with pytest.raises(RuntimeError, match="^Nested forward mode AD is not supported"):
                fwAD.enter_dual_level()  # PyTorch's API still refuses to nest
            xo = fwAD.make_dual(x, t([1.0, 1.0]), level=outer)
            xi = fwAD.make_dual(xo, t([1.0, 1.0]), level=inner)
            first = fwAD.unpack_dual(xi.sin(), level=inner).tangent  # cos x, carrying -sin x
        finally:
            fwAD.pop_level(inner)
        second = fwAD.unpack_dual(first, level=outer).tangent
    finally:
        fwAD.pop_level(outer)
    np.testing.assert_allclose(first.array, np.cos(x.array))
    np.testing.assert_allclose(second.array, -np.sin(x.array))


def _in_place_programs(lib, fwAD):
    """Programs that change tensors in place in forward mode; each returns the tangents to
    compare (run on minigrad and on PyTorch)."""
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    v = lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        a = d.clone()
        a.mul_(d)  # a dual changed by a dual
        b = lib.zeros(3, dtype=lib.float64)
        b.add_(d)  # a plain tensor takes a tangent
        c = lib.zeros(4, dtype=lib.float64)
        c1, c2 = c[:2], c[2:]
        c1.add_(d[:2])  # into a view: the base and its other views see it
        e = lib.zeros(3, dtype=lib.float64)
        e_view = e[1:]  # made before the base gets a tangent
        e.copy_(d)
        f = d * 1
        f_view = f[::2]
        f_view.mul_(3)  # a view's tangent is a window of its base's
        g = lib.ones(2, 3, dtype=lib.float64)
        g[0] = d  # item assignment of a dual
        h = d.clone()
        h.zero_()
        return [fwAD.unpack_dual(t).tangent for t in (a, b, c, c1, c2, e, e_view, f, f_view, g, h)]


def test_in_place_changes_move_the_tangents_as_in_pytorch(torch_mod):
    ours = _in_place_programs(minigrad, fwAD)
    theirs = _in_place_programs(torch_mod, torch_mod.autograd.forward_ad)
    for i, (o, th) in enumerate(zip(ours, theirs)):
        assert (o is None) == (th is None), i
        if o is not None:
            np.testing.assert_allclose(o.array, th.numpy(), err_msg=f"tangent {i}")


def test_in_place_changes_move_the_tangents_while_recording(torch_mod):
    """The same with gradients recorded (the in-place ops rebase the graph as well)."""
    def program(lib, fwAD):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64))
            y = d * 2
            view = y[1:]
            view.mul_(d[1:])
            y.add_(d)
            out = fwAD.unpack_dual(y).tangent, fwAD.unpack_dual(view).tangent
        y.sum().backward()
        return (*out, x.grad)

    for o, th in zip(program(minigrad, fwAD), program(torch_mod, torch_mod.autograd.forward_ad)):
        np.testing.assert_allclose(o.array, th.detach().numpy())


def test_forward_over_reverse_gives_a_hessian_vector_product(torch_mod):
    """autograd.grad inside a level: the gradient carries H v as its tangent, as in PyTorch."""
    def hvp(lib, fwAD):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, lib.tensor([1.0, 0.0, 1.0], dtype=lib.float64))
            y = (d ** 3).sum() + (d * d.sin()).sum()
            (g,) = lib.autograd.grad(y, d)
            return repr(g).replace("torch", "minigrad")

    assert hvp(minigrad, fwAD) == hvp(torch_mod, torch_mod.autograd.forward_ad)


def _mlp_hvp(lib, fwAD):
    """H v of a small tanh network's loss by forward-over-reverse, and J v of its output by
    forward mode, then reverse-over-forward: d<J v, 1>/dW (the program the transforms run)."""
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    w = lib.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    b = lib.tensor(rng.standard_normal(5))
    v = lib.tensor(rng.standard_normal((4, 3)))
    F = lib.nn.functional
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        out = F.linear(d, w, b).tanh()
        # (not F.mse_loss: its forward-over-reverse in PyTorch 2.13 fails, "ZeroTensors are
        # immutable", where minigrad's works)
        loss = (out * out).mean() + out.softmax(1).sum()
        (g,) = lib.autograd.grad(loss, d, create_graph=True)
        hv = fwAD.unpack_dual(g).tangent
        jv = fwAD.unpack_dual(out).tangent
    (dw,) = lib.autograd.grad(jv.sum(), w)
    return [t.detach().numpy() for t in (g, hv, jv, dw)]


def test_forward_over_reverse_and_back_through_a_layer_as_pytorch(torch_mod):
    ours = _mlp_hvp(minigrad, fwAD)
    theirs = _mlp_hvp(torch_mod, torch_mod.autograd.forward_ad)
    for name, o, th in zip(("gradient", "H v", "J v", "d<Jv, 1>/dW"), ours, theirs):
        np.testing.assert_allclose(o, th, rtol=1e-10, atol=1e-12, err_msg=name)
