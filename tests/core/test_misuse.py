"""Every misuse answered in PyTorch's words, and no .grad left half-updated."""

import re
import warnings

import numpy as np
import pytest

import minigrad
from minigrad import Function


def grads_of(*tensors):
    return [None if t._grad is None else t._grad.array.copy() for t in tensors]


def assert_same(before, tensors):
    for b, t in zip(before, tensors):
        if b is None:
            assert t._grad is None
        else:
            np.testing.assert_array_equal(b, t._grad.array)


@pytest.fixture
def xy():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True)
    (x * y).sum().backward()  # give both a .grad, so "unchanged" means something
    return x, y


def test_second_backward_without_retain_graph(xy):
    x, y = xy
    z = (x * y).sum()
    z.backward()
    before = grads_of(x, y)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()
    assert_same(before, (x, y))


def test_retain_graph_allows_second_backward_and_accumulates():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    np.testing.assert_allclose(x.grad.array, [4.0, 8.0])


def test_saved_tensors_freed_after_backward():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    z = x.exp()
    z.sum().backward()
    with pytest.raises(RuntimeError, match="already been freed"):
        z.grad_fn.output


def test_non_scalar_backward(xy):
    x, y = xy
    before = grads_of(x, y)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar "
                                           "outputs$"):
        (x * y).backward()
    assert_same(before, (x, y))


def test_wrong_shaped_gradient(xy):
    x, y = xy
    before = grads_of(x, y)
    with pytest.raises(RuntimeError, match=re.escape(
            "Mismatch in shape: grad_output[0] has a shape of minigrad.Size([4]) and output[0] "
            "has a shape of minigrad.Size([3]).")):
        (x * y).backward(minigrad.ones(4))
    assert_same(before, (x, y))


def test_backward_without_grad_fn():
    a = minigrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does "
                                           "not have a grad_fn$"):
        a.sum().backward()


def test_backward_on_result_made_under_no_grad(xy):
    x, _ = xy
    with minigrad.no_grad():
        z = (x * 2).sum()
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        z.backward()


def test_integer_tensor_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can "
                                           "require gradients"):
        minigrad.tensor([1, 2, 3], requires_grad=True)
    t = minigrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="floating point"):
        t.requires_grad_()
    assert t.requires_grad is False


def test_numpy_on_tensor_that_requires_grad(xy):
    x, _ = xy
    with pytest.raises(RuntimeError, match=re.escape(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
            "instead.")):
        x.numpy()
    assert x.detach().numpy() is x.array


def test_inplace_on_leaf_that_requires_grad(xy):
    x, y = xy
    data = x.array.copy()
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in "
                                           "an in-place operation.$"):
        x.add_(1)
    np.testing.assert_array_equal(x.array, data)
    assert x._version == 0
    with minigrad.no_grad():
        x.add_(1)  # allowed: this is how optimizers update parameters
    np.testing.assert_array_equal(x.array, data + 1)


def test_inplace_on_saved_output():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.sigmoid()
    b.mul_(2)
    with pytest.raises(RuntimeError, match=re.escape(
            "one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [minigrad.FloatTensor [3]], which is output 0 of Sigmoid, is "
            "at version 1; expected version 0 instead.")):
        b.sum().backward()
    assert a._grad is None


def test_inplace_on_saved_input():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = a + 1
    p = s * s
    s.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Add, is at version 1; expected "
                                           "version 0"):
        p.sum().backward()
    assert a._grad is None


def test_inplace_on_detached_alias_of_saved_tensor():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    e = a.exp()
    e.detach().zero_()
    with pytest.raises(RuntimeError, match="output 0 of Exp, is at version 1"):
        e.sum().backward()


def test_inplace_op_records_and_backprops():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    b.mul_(3)
    assert b.grad_fn.name() == "MulBackward0"
    assert b.grad_fn.next_functions[0][0].name() == "MulBackward0"
    b.sum().backward()
    np.testing.assert_allclose(a.grad.array, [3.0, 3.0, 3.0])


def test_hook_changing_size(xy):
    x, y = xy
    before = grads_of(x, y)
    z = x * y
    z.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match="^hook '<lambda>' has changed the size of value$"):
        z.sum().backward()
    assert_same(before, (x, y))


def test_unused_input_in_autograd_grad():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = minigrad.tensor([1.0, 2.0], requires_grad=True)
    z = (x * 2).sum()
    with pytest.raises(RuntimeError, match=re.escape(
            "The differentiated Tensor at index 1 appears to not have been used in the graph. "
            "Set allow_unused=True if this is the desired behavior.")):
        minigrad.autograd.grad(z, [x, y], retain_graph=True)
    gx, gy = minigrad.autograd.grad(z, [x, y], allow_unused=True)
    np.testing.assert_allclose(gx.array, [2.0, 2.0])
    assert gy is None
    assert x._grad is None  # autograd.grad never touches .grad


def test_autograd_grad_wrt_tensor_without_grad():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    c = minigrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        minigrad.autograd.grad((x * c).sum(), [c])


@pytest.mark.parametrize("call, word", [
    (lambda z: minigrad.autograd.grad(z, []), "grad"),
    (lambda z: z.backward(inputs=[]), "backward"),
])
def test_empty_inputs(xy, call, word):
    x, y = xy
    z = (x * y).sum()
    before = grads_of(x, y)
    with pytest.raises(RuntimeError, match=re.escape(
            f"`inputs` argument to `{word}()` cannot be empty.")):
        call(z)
    assert_same(before, (x, y))
    z.backward()  # the graph was not used up by the refused call
    np.testing.assert_array_equal(x._grad.array, 2 * y.array)


def test_non_leaf_grad_warning():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf "
                                         "Tensor is being accessed"):
        assert y.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is not None


def test_retain_grad():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    np.testing.assert_array_equal(y.grad.array, [1.0, 1.0, 1.0])
    assert y.retains_grad


def test_hooks_and_retain_grad_need_requires_grad():
    c = minigrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't "
                                           "require gradient$"):
        c.register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has "
                                           "requires_grad=False$"):
        c.retain_grad()


def test_assign_grad_of_wrong_shape():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(
            "attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please "
            "ensure that the gradient and the tensor are the same size")):
        x.grad = minigrad.zeros(4)
    assert x._grad is None


def test_shapes_that_do_not_broadcast_name_op_and_shapes():
    a = minigrad.ones(2, 3, requires_grad=True)
    b = minigrad.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(
            "mul: shapes (2, 3) and (4,) do not broadcast. The size of tensor a (3) must match "
            "the size of tensor b (4) at non-singleton dimension 1")):
        a * b
    with pytest.raises(RuntimeError, match=re.escape("add: shapes (2, 3) and (4,)")):
        a + b


class TwoGrads(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2, grad


class WrongShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return minigrad.ones(5)


def test_user_function_returning_wrong_number_of_grads(xy):
    x, y = xy
    before = grads_of(x, y)
    with pytest.raises(RuntimeError, match=re.escape(
            "function TwoGradsBackward returned an incorrect number of gradients (expected 1, "
            "got 2)")):
        (TwoGrads.apply(x) * y).sum().backward()
    assert_same(before, (x, y))


def test_user_function_returning_wrong_shape(xy):
    x, y = xy
    before = grads_of(x, y)
    with pytest.raises(RuntimeError, match=re.escape(
            "Function WrongShapeBackward returned an invalid gradient at index 0 - got [5] but "
            "expected shape compatible with [3]")):
        (WrongShape.apply(x) + y).sum().backward()
    assert_same(before, (x, y))


def test_failure_midway_rolls_back_grads_already_accumulated(xy):
    """y's AccumulateGrad runs before the failing node: its .grad must be put back."""
    x, y = xy
    before = grads_of(x, y)

    def boom(g):
        raise ValueError("boom")

    z = x * 2
    z.register_hook(boom)
    loss = (z * 1).sum() + (y * 1).sum()
    with pytest.raises(ValueError, match="boom"):
        loss.backward()
    assert_same(before, (x, y))


def test_cuda_is_a_clear_error():
    x = minigrad.ones(2)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled\n"
                       "minigrad computes on the CPU with numpy"):
        x.cuda()
    assert x.cpu() is x and x.to("cpu") is x


def test_view_incompatible_with_layout():
    a = minigrad.ones(2, 3)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        a.t().view(6)
    assert a.t().reshape(6).shape == (6,)


def test_requires_grad_on_non_leaf():
    x = minigrad.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf "
                                           "variables"):
        y.requires_grad = False


def test_inplace_on_view_created_in_no_grad():
    x = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    a = x * 2
    with minigrad.no_grad():
        v = a[0]
    data = a.array.copy()
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled"):
        v.mul_(2)
    np.testing.assert_array_equal(a.array, data)
    with minigrad.no_grad():
        v.mul_(2)  # both inside no_grad: allowed, not tracked
    assert a.array[0].tolist() == [4.0, 8.0]


def test_node_hooks_returning_the_wrong_number_of_gradients_are_refused():
    # PyTorch 2.13's words; nothing is accumulated (the backward fails before any leaf)
    x = minigrad.ones(3, requires_grad=True)
    y = minigrad.ones(3, requires_grad=True)
    z = (x * y).sum()
    z.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (gi[0],))
    with pytest.raises(RuntimeError, match=re.escape(
            "hook '<lambda>' has returned an incorrect number of values (got 1, but "
            "expected 2)")):
        z.backward()
    assert x.grad is None and y.grad is None

    z = (x * 2).sum()
    z.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match=re.escape(
            "hook '<lambda>' has returned an incorrect number of values (got 2, but "
            "expected 1)")):
        z.backward()
    assert x.grad is None


def test_no_grad_and_enable_grad_decorate_without_parentheses_as_in_pytorch(torch_mod):
    for lib in (torch_mod, minigrad):
        @lib.no_grad
        def double(x):
            return x * 2

        @lib.enable_grad
        def triple(x):
            return x * 3

        @lib.inference_mode()
        def quadruple(x):
            return x * 4

        x = lib.ones(2, requires_grad=True)
        assert not double(x).requires_grad
        with lib.no_grad():
            assert triple(x).requires_grad
        assert not quadruple(x).requires_grad
        with lib.inference_mode():
            assert not (x * 2).requires_grad
        with lib.inference_mode(False):
            assert (x * 2).requires_grad
        assert double.__name__ == "double" and lib.is_grad_enabled()


@pytest.mark.parametrize("leaf_dtype, grad_dtype", [("float32", "float64"), ("float32", "int64"),
                                                    ("float64", "float32"),
                                                    ("float32", "float16")])
def test_a_grad_of_another_dtype_is_refused_in_pytorch_s_words(torch_mod, leaf_dtype,
                                                                grad_dtype):
    errors = []
    for lib in (torch_mod, minigrad):
        x = lib.ones(3, dtype=getattr(lib, leaf_dtype), requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            x.grad = lib.zeros(3, dtype=getattr(lib, grad_dtype))
        errors.append(str(info.value))
        assert x.grad is None
    assert errors[0] == errors[1]
