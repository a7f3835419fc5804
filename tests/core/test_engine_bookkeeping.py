"""The engine's and Function.apply's bookkeeping keeps PyTorch's behaviour in uncommon cases.

A node's gradient buffer is made with its first gradient and holds only the outputs that got
one; hooks run only on nodes that have one; nodes share their small flag tuples; a node that
saved only numbers keeps no version tuple. These tests pin the uncommon cases each must get
right.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad import autograd
from minigrad.autograd.function import Function
from minigrad.autograd.saved_values import FREED_MESSAGE


def test_multi_output_node_with_only_its_first_output_used() -> None:
    x = minigrad.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    values, indices = x.max(1)  # output 1 (indices) gets no gradient
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_hook_on_a_multi_output_node_sees_one_gradient_per_output() -> None:
    x = minigrad.tensor([[1.0, 5.0], [7.0, 0.0]], requires_grad=True)
    values, _ = x.max(1)
    seen = []
    values.grad_fn.register_prehook(lambda grads: seen.append(len(grads)))
    values.sum().backward()
    assert seen == [2]  # values and indices, the indices' entry None


def test_retain_grad_on_a_multi_output_node() -> None:
    x = minigrad.tensor([[1.0, 5.0], [7.0, 0.0]], requires_grad=True)
    values, _ = x.max(1)
    values.retain_grad()
    (values * 3).sum().backward()
    assert values.grad.tolist() == [3.0, 3.0]


def test_a_hook_registered_between_backward_steps_still_fires() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).exp()
    z = y.sum()
    fired = []
    for step in autograd.backward_steps(z):
        if step.node.name() == "SumBackward0":  # before ExpBackward0 runs
            y.grad_fn.register_prehook(lambda grads: fired.append(grads[0].tolist()))
    assert len(fired) == 1
    assert fired[0] == [1.0, 1.0]


def test_needs_input_grad_is_a_tuple_of_bools_shared_between_nodes() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 3, x * 4
    assert a.grad_fn.needs_input_grad == (True, False)
    assert all(type(v) is bool for v in a.grad_fn.needs_input_grad)
    assert a.grad_fn.needs_input_grad is b.grad_fn.needs_input_grad
    assert a.grad_fn.next_functions[1] == (None, 0)


def test_output_number_is_kept_for_an_input_from_a_second_output() -> None:
    x = minigrad.tensor([[1.0, 5.0], [7.0, 0.0]], requires_grad=True)
    out = x.max(1)
    values = out[0]
    y = values * 2
    assert y.grad_fn.next_functions[0] == (values.grad_fn, 0)


def test_saved_output_after_backward_gives_pytorchs_message() -> None:
    x = minigrad.tensor([0.5, -1.0], requires_grad=True)
    y = x.tanh()
    y.sum().backward()
    with pytest.raises(RuntimeError) as err:
        y.grad_fn.output
    assert str(err.value) == FREED_MESSAGE


def test_saved_output_changed_in_place_is_caught() -> None:
    x = minigrad.tensor([0.5, -1.0], requires_grad=True)
    y = x.exp()
    z = y * 1.0
    with minigrad.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    assert x.grad is None  # nothing was accumulated


class _SavesTwice(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        ctx.save_for_backward(2.0)  # the second call replaces the first: numbers only
        return a.array * 2.0

    @staticmethod
    def backward(ctx, grad):
        (k,) = ctx.saved_tensors
        return grad * k


def test_saving_numbers_after_tensors_replaces_the_versions_too() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    _SavesTwice.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


class _ReturnsNumpy(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a.array * b.array

    @staticmethod
    def backward(ctx, grad):
        return np.ones((3, 2)) * 3, 5.0  # numpy and a number: the engine makes tensors


def test_a_backward_may_return_numpy_arrays_and_numbers() -> None:
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor(3.0, requires_grad=True)
    _ReturnsNumpy.apply(a, b).sum().backward()
    assert a.grad.tolist() == [9.0, 9.0]  # (3, 2) summed back to a's (2,)
    assert b.grad.tolist() == 5.0


class _WrongShape(Function):
    @staticmethod
    def forward(ctx, a):
        return a.array.copy()

    @staticmethod
    def backward(ctx, grad):
        return minigrad.ones(3, 2)


def test_tensors_take_their_defaults_from_the_class() -> None:
    t = minigrad.tensor([1.0])
    assert (t.grad, t.name, t._version, t.is_leaf, t.requires_grad) == (None, None, 0, True, False)
    u = t * 2
    assert u.grad_fn is None and u._version == 0


class _Transposed(Function):
    @staticmethod
    def forward(ctx, a):
        return a.array.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad.t()  # (2, 3) for a (3, 2) input: the same size, not a broadcast of it


# a (3, 2) gradient that does not broadcast to (1, 3); a (2, 3) one of the same size as (3, 2)
@pytest.mark.parametrize("function, shape, got", [(_WrongShape, (1, 3), "3, 2"),
                                                  (_Transposed, (3, 2), "2, 3")])
def test_a_gradient_of_the_wrong_shape_is_an_error_and_nothing_is_kept(function, shape,
                                                                      got) -> None:
    a = minigrad.ones(*shape, requires_grad=True)
    expected = ", ".join(map(str, shape))
    with pytest.raises(RuntimeError, match=rf"returned an invalid gradient at index 0 - got "
                                           rf"\[{got}\] but expected shape compatible with "
                                           rf"\[{expected}\]"):
        function.apply(a).sum().backward()
    assert a.grad is None


def test_sum_to_array_refuses_a_shape_that_does_not_broadcast() -> None:
    from minigrad.autograd.broadcast import sum_to_array

    data, dims = sum_to_array(np.ones((4, 2, 3)), (2, 1))
    assert data.tolist() == [[12.0], [12.0]] and dims == (0, 2)
    for g_shape, shape in (((2, 3), (3, 2)), ((3,), (2, 3)), ((4, 3), (2, 3))):
        with pytest.raises(ValueError, match="cannot sum"):
            sum_to_array(np.ones(g_shape), shape)


def test_only_nodes_that_saved_something_are_freed() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    z = x + 1  # AddBackward0 saves nothing
    y = z * x  # MulBackward0 saves both inputs
    y.sum().backward()  # dy/dx = 2x + 1
    assert y.grad_fn._freed and y.grad_fn._saved == ()
    assert not z.grad_fn._freed  # nothing to free: a second backward through it works
    z.sum().backward()
    assert x.grad.tolist() == [4.0, 6.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.sum().backward()
    assert x.grad.tolist() == [4.0, 6.0]


def test_a_view_op_made_by_apply_shares_the_version_counter() -> None:
    x = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    base = x * 1
    view = base.t()
    assert view._base is base and view._version_counter is base._version_counter
    with minigrad.no_grad():
        base.add_(1)
    assert view._version == base._version == 1


def test_an_op_cannot_be_a_view_and_save_its_output() -> None:
    with pytest.raises(TypeError, match="a view op cannot also save its output"):
        type("Both", (Function,), {"is_view": True, "saves_output": True})


@pytest.mark.parametrize("dim", [0, -1])
def test_mean_over_dim_0_of_a_0d_tensor_is_the_tensor_itself(dim) -> None:
    x = minigrad.tensor(3.0, requires_grad=True)
    y = x.mean(dim)  # PyTorch: tensor(3., grad_fn=<MeanBackward1>), x.grad == 1
    assert y.item() == 3.0 and y.grad_fn.name() == "MeanBackward1"
    y.backward()
    assert x.grad.item() == 1.0


def test_a_leaf_whose_data_gets_another_shape() -> None:
    """`x.data = ` a tensor of another shape, as PyTorch allows: its AccumulateGrad (made once
    per leaf) keeps a shape, read again when a gradient does not match it."""
    x = minigrad.ones(3, requires_grad=True)
    (x * 2).sum().backward()  # the AccumulateGrad exists now, with shape (3,)
    x.grad = None
    x.data = minigrad.ones(2, 3)
    (x * 2).sum().backward()  # a new graph: gradients of the new shape
    assert x.grad.shape == (2, 3) and np.all(x.grad.array == 2)
    x.grad = None
    b = minigrad.ones((4, 2, 3))
    (x * b).sum().backward()  # broadcast: summed to the new shape
    assert x.grad.shape == (2, 3) and np.all(x.grad.array == 4)


def test_a_graph_recorded_before_the_data_changed_brings_the_old_shape() -> None:
    # what PyTorch 2.13 does: y.backward() gives x.grad = tensor([2., 2., 2.]) for data of 5
    x = minigrad.ones(3, requires_grad=True)
    y = (x * 2).sum()
    x.data = minigrad.ones(5)
    y.backward()
    assert x.grad.shape == (3,) and np.all(x.grad.array == 2)


def test_tracing_a_graph_recorded_before_the_data_changed() -> None:
    """The recorder reads each AccumulateGrad's kept shape, without reading the leaf anew:
    under trace() the old-shape gradient is accumulated too, as without it."""
    x = minigrad.ones(3, requires_grad=True)
    y = (x * 2).sum()
    x.data = minigrad.ones(5)
    with minigrad.trace():
        y.backward()
    assert x.grad.shape == (3,) and np.all(x.grad.array == 2)


def test_a_listener_failing_at_the_end_leaves_no_gradient_and_the_graph_usable():
    """The end of a backward is told inside it: a listener that raises there rolls the pass
    back (no .grad written) and nothing was freed, so the backward can run again."""
    from minigrad.autograd import events

    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()

    def listener(event):
        if isinstance(event, events.BackwardEnd):
            raise RuntimeError("listener failed")

    with events.listen(listener), pytest.raises(RuntimeError, match="listener failed"):
        y.backward()
    assert x.grad is None
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0]
