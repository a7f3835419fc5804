"""The engine: order, depth, fan-in, higher order, hooks, events, grad modes, old spellings."""

import io
import textwrap
from contextlib import redirect_stdout

import numpy as np
import pytest

import minigrad
from minigrad.autograd import backward_steps, events


def test_walk_snippet_runs_unchanged_with_import_minigrad_as_torch():
    source = textwrap.dedent("""
        import minigrad as torch
        x = torch.rand(5, requires_grad=True); y = torch.ones(5, requires_grad=True)
        loss = torch.sum(x * y) * 3
        loss.backward()
        def walk(fn):
            print(fn)
            for nxt, _ in fn.next_functions:
                if nxt is not None:
                    if hasattr(nxt, "variable"):
                        print(nxt, nxt.variable, nxt.variable.grad)
                    else:
                        walk(nxt)
        walk(loss.grad_fn)
    """)
    out = io.StringIO()
    namespace: dict = {}
    with redirect_stdout(out):
        exec(source, namespace)
    lines = out.getvalue().splitlines()
    assert [line.split(" object")[0] for line in lines[:3]] == [
        "<MulBackward0", "<SumBackward0", "<MulBackward0"]
    assert lines[3].startswith("<AccumulateGrad object at") and "requires_grad=True" in lines[3]
    assert lines[4].startswith("<AccumulateGrad object at")
    x, y = namespace["x"], namespace["y"]
    np.testing.assert_allclose(x.grad.array, 3 * y.array)
    assert "tensor([3., 3., 3., 3., 3.])" in lines[3]


def test_deep_chain_has_no_recursion_limit():
    x = minigrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(200_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0


def test_wide_fan_in():
    x = minigrad.tensor(1.0, requires_grad=True)
    total = x * 1
    for _ in range(10_000 - 1):
        total = total + x
    total.backward()
    assert x.grad.item() == 10_000


def test_shared_leaf_has_two_edges_to_one_accumulator():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    (a, _), (b, _) = y.grad_fn.next_functions
    assert a is b and a.variable is x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [2.0, 4.0])


def test_second_derivative_via_create_graph():
    x = minigrad.tensor(2.0, requires_grad=True)
    y = x ** 3
    (g,) = minigrad.autograd.grad(y, x, create_graph=True)
    assert g.item() == 12.0 and g.grad_fn is not None
    (g2,) = minigrad.autograd.grad(g, x)
    assert g2.item() == 12.0


def test_create_graph_backward_makes_grad_differentiable():
    x = minigrad.tensor(2.0, requires_grad=True, dtype=minigrad.float64)
    (x ** 3).backward(create_graph=True)
    assert x.grad.item() == 12.0
    g = x.grad
    x.grad = None
    g.backward()
    assert x.grad.item() == 12.0


@pytest.mark.parametrize("make", [
    lambda x: x.exp() * x.sin(),
    lambda x: (x * x).tanh().sum() * x,
    lambda x: x.sigmoid() / (x + 3),
    lambda x: (x ** 2).log() + x.sqrt(),
])
def test_third_derivative_matches_finite_differences(make):
    def derivative(order, at):
        x = minigrad.tensor(at, requires_grad=True, dtype=minigrad.float64)
        y = make(x).sum()
        for _ in range(order):
            (y,) = minigrad.autograd.grad(y, x, create_graph=True)
            y = y.sum()
        return y.item()

    h = 1e-4
    numeric = (derivative(2, 1.3 + h) - derivative(2, 1.3 - h)) / (2 * h)
    assert derivative(3, 1.3) == pytest.approx(numeric, rel=1e-5)


def test_broadcasting_is_summed_back():
    a = minigrad.ones(2, 3, requires_grad=True)
    b = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = minigrad.tensor([[10.0], [20.0]], requires_grad=True)
    (a * b * c).sum().backward()
    np.testing.assert_allclose(b.grad.array, [30.0, 30.0, 30.0])
    np.testing.assert_allclose(c.grad.array, [[6.0], [6.0]])
    assert a.grad.shape == (2, 3)


def test_each_node_runs_once_after_all_its_gradient_arrived():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    loss = (h * 2 + h * 3 + h.sin()).sum()
    seen = []
    with events.listen(lambda e: seen.append(e) if isinstance(e, events.BackwardStep) else None):
        loss.backward()
    names = [s.node.name() for s in seen]
    assert names.count("ExpBackward0") == 1
    exp_step = next(s for s in seen if s.node.name() == "ExpBackward0")
    expected = 5 + np.cos(np.exp([1.0, 2.0]))
    np.testing.assert_allclose(exp_step.grad_outputs[0].array, expected, rtol=1e-6)
    np.testing.assert_allclose(x.grad.array, expected * np.exp([1.0, 2.0]), rtol=1e-6)


def test_backward_step_events_count_and_order():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    y = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True, name="y")
    loss = (x * y).sum() * 3
    got = []
    with events.listen(got.append):
        loss.backward()
    kinds = [type(e).__name__ for e in got]
    # (the saved tensors are freed once the pass has ended: the last event says which)
    assert kinds[0] == "BackwardBegin" and kinds[-2:] == ["BackwardEnd", "SavedFreed"]
    assert [n.display_name() for n in got[-1].nodes] == ["MulBackward0"] * 2  # (they saved)
    steps = [e for e in got if isinstance(e, events.BackwardStep)]
    assert [s.node.display_name() for s in steps] == [
        "MulBackward0", "SumBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]
    assert [s.index for s in steps] == [1, 2, 3, 4, 5]
    assert [s.node.variable for s in steps[3:]] == [x, y]
    assert got[-2].steps == 5
    accumulated = [e for e in got if isinstance(e, events.GradAccumulated)]
    assert [a.tensor for a in accumulated] == [x, y]
    assert accumulated[0].grad is None
    np.testing.assert_array_equal(accumulated[0].total.array, [12.0, 15.0, 18.0])


def test_backward_steps_can_pause_and_resume():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = minigrad.tensor([3.0, 4.0], requires_grad=True)
    loss = (x * y).sum() * 2
    steps = backward_steps(loss)
    first = next(steps)
    assert first.node.name() == "MulBackward0" and first.index == 1
    assert x._grad is None
    rest = list(steps)
    assert [s.node.display_name() for s in rest] == [
        "SumBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]
    np.testing.assert_allclose(x.grad.array, [6.0, 8.0])


def test_step_count_equals_nodes_executed_in_a_bigger_graph():
    x = minigrad.randn(4, 3, requires_grad=True)
    w = minigrad.randn(3, 2, requires_grad=True)
    loss = (x @ w).relu().softmax(1).log().mean()
    steps = list(backward_steps(loss))
    distinct = {id(s.node) for s in steps}
    assert len(steps) == len(distinct) == 7  # five ops, then one AccumulateGrad per leaf
    assert [s.node.name() for s in steps][:5] == [
        "MeanBackward0", "LogBackward0", "SoftmaxBackward0", "ReluBackward0", "MmBackward0"]


def test_summed_dims_reported_for_broadcast():
    a = minigrad.ones(2, 3, requires_grad=True)
    b = minigrad.ones(3, requires_grad=True)
    steps = list(backward_steps((a + b).sum()))
    add = next(s for s in steps if s.node.name() == "AddBackward0")
    assert add.summed_dims == (None, (0,))


def test_hook_order_prehook_node_hook_tensor_hook():
    log = []
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    w = minigrad.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    z = y.sum()
    z.grad_fn.register_prehook(lambda go: log.append("prehook Sum"))
    z.grad_fn.register_hook(lambda gi, go: log.append("hook Sum"))
    y.register_hook(lambda g: log.append("tensor y"))
    y.grad_fn.register_prehook(lambda go: log.append("prehook Mul"))
    y.grad_fn.register_hook(lambda gi, go: log.append("hook Mul"))
    x.register_hook(lambda g: log.append("tensor x"))
    z.backward()
    assert log == ["prehook Sum", "hook Sum", "tensor y", "prehook Mul", "hook Mul", "tensor x"]


def test_hooks_replace_gradients():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 10)
    handle = x.register_hook(lambda g: g + 1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [31.0, 31.0])
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.array, [3.0, 3.0])


def test_node_hooks_replace_gradients_and_fire_events():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    y.grad_fn.register_prehook(lambda go: (go[0] * 5,))
    fired = []
    with events.listen(lambda e: fired.append(e) if isinstance(e, events.HookFired) else None):
        y.backward()
    np.testing.assert_allclose(x.grad.array, [10.0, 10.0])
    assert fired[0].where == "prehook"
    assert fired[0].before[0].item() == 1.0 and fired[0].after[0].item() == 5.0


def test_grad_modes():
    x = minigrad.ones(2, requires_grad=True)
    with minigrad.no_grad():
        assert (x * 2).grad_fn is None
        with minigrad.enable_grad():
            assert (x * 2).grad_fn is not None
    with minigrad.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert minigrad.is_grad_enabled()

    @minigrad.no_grad()
    def f(t):
        return t * 2

    assert f(x).grad_fn is None
    d = (x * 2).detach()
    assert d.grad_fn is None and not d.requires_grad


def test_backward_inputs_only_accumulates_into_those():
    x = minigrad.ones(2, requires_grad=True)
    y = minigrad.ones(2, requires_grad=True)
    (x * y).sum().backward(inputs=[x])
    assert x.grad is not None and y.grad is None


def test_old_spellings():
    v = minigrad.autograd.Variable(minigrad.ones(2), requires_grad=True)
    assert v.requires_grad
    t = minigrad.Tensor([[1.0, 2.0]])
    assert t.dtype == minigrad.float32 and t.shape == (1, 2)
    assert minigrad.tensor([1, 2]).type(minigrad.float).dtype == minigrad.float32
    assert minigrad.tensor([1.0]).double().dtype == minigrad.float64
    assert minigrad.tensor([1.5]).long().dtype == minigrad.long
    assert minigrad.float is minigrad.float32


def test_repr_like_pytorch():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert repr(x + 2) == "tensor([3., 4., 5.], grad_fn=<AddBackward0>)"
    assert repr(x) == "tensor([1., 2., 3.], requires_grad=True)"
    assert repr(minigrad.tensor([4.0, 10.0, 18.0])) == "tensor([ 4., 10., 18.])"
    assert repr(minigrad.tensor(96.0)) == "tensor(96.)"
    assert repr(minigrad.tensor([1.5410, -0.2934, -2.1788])) == \
        "tensor([ 1.5410, -0.2934, -2.1788])"
    assert repr(minigrad.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(minigrad.tensor([1.0], dtype=minigrad.float64)) == \
        "tensor([1.], dtype=minigrad.float64)"
    assert repr(minigrad.tensor([[1.0, 2.0], [3.0, 4.5]])) == \
        "tensor([[1.0000, 2.0000],\n        [3.0000, 4.5000]])"
    assert repr(minigrad.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(minigrad.zeros(0)) == "tensor([])"


def test_float32_default_and_float64_everywhere():
    assert minigrad.tensor([1.0]).dtype == np.float32
    assert minigrad.randn(2).dtype == np.float32
    x = minigrad.randn(3, dtype=minigrad.float64, requires_grad=True)
    y = (x.exp() * 2).sum()
    y.backward()
    assert y.dtype == np.float64 and x.grad.dtype == np.float64
    assert (minigrad.tensor([1, 2]) * 2.5).dtype == np.float32


def test_views_share_the_version_counter():
    a = minigrad.zeros(2, 3)
    v = a[0]
    v.add_(1)
    assert a._version == v._version == 1
    np.testing.assert_array_equal(a.array[0], [1.0, 1.0, 1.0])


def test_max_dim_returns_values_and_indices():
    a = minigrad.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    values, indices = a.max(dim=1)
    assert values.grad_fn.name() == "MaxBackward0" and indices.grad_fn is None
    assert indices.tolist() == [1, 0]
    values.sum().backward()
    np.testing.assert_array_equal(a.grad.array, [[0, 1, 0], [1, 0, 0]])


def test_user_function_cube():
    class Cube(minigrad.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward"
    assert type(y.grad_fn).__name__ == "CubeBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [3.0, 12.0])


def test_every_builtin_op_has_a_formula_and_docstring():
    from minigrad.autograd.function import Function

    def all_subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from all_subclasses(sub)

    builtin = [c for c in all_subclasses(Function) if c.__module__.startswith("minigrad.")]
    assert len(builtin) > 40
    for cls in builtin:
        if cls.__name__.startswith("_"):
            continue
        assert cls._node_class.formula, f"{cls.__name__} has no formula"
        assert cls.__doc__, f"{cls.__name__} has no docstring"


def test_grads_never_share_memory():
    """`a + b` sends one gradient to both leaves; each .grad must still be its own array."""
    a = minigrad.ones(3, requires_grad=True)
    b = minigrad.ones(3, requires_grad=True)
    c = minigrad.ones(2, 3, requires_grad=True)
    seed = minigrad.ones(3)
    (a + b).backward(seed)
    (c + 0).sum().backward()
    arrays = [a.grad.array, b.grad.array, c.grad.array, seed.array]
    for i, x in enumerate(arrays):
        for y in arrays[i + 1:]:
            assert not np.shares_memory(x, y)
    a.grad.zero_()
    assert b.grad.array.tolist() == [1.0, 1.0, 1.0] and seed.array.tolist() == [1.0, 1.0, 1.0]
    assert c.grad.array.flags.writeable


def test_code_between_backward_steps_runs_in_the_callers_grad_mode():
    x = minigrad.ones(2, requires_grad=True)
    steps = backward_steps((x * 2).sum())
    next(steps)
    assert minigrad.is_grad_enabled()
    assert (x * 3).grad_fn is not None
    list(steps)
    assert minigrad.is_grad_enabled()


def test_views_of_one_gradient_do_not_share_memory_between_leaves():
    """`x.view(6) + y`: x's gradient is a view of the same array that y gets."""
    x = minigrad.ones(2, 3, requires_grad=True)
    y = minigrad.ones(6, requires_grad=True)
    (x.view(6) + y).sum().backward()
    assert not np.shares_memory(x.grad.array, y.grad.array)
    w = minigrad.ones(4, 3, requires_grad=True)
    (minigrad.ones(2, 3) @ w.t()).sum().backward()
    assert w.grad.array.flags.c_contiguous


def test_mul_by_a_constant_keeps_only_what_backward_needs():
    """As PyTorch (`x*3` saves other=3, self=None): the intermediate tensor is not kept."""
    import weakref

    x = minigrad.ones(3, requires_grad=True)
    h = x * 2
    kept = weakref.ref(h)
    y = h * 3
    del h
    assert kept() is None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.array, [6.0, 6.0, 6.0])


def test_a_node_keeps_the_settings_apply_got():
    # keyword arguments are settings, not inputs: no edge, but the node (and the ForwardOp
    # event) keep them for explanations
    x = minigrad.ones(2, 3, requires_grad=True)
    assert x.sum(1).grad_fn.settings == {"dims": (1,), "keepdim": False}
    assert (x ** 2).grad_fn.settings == {"p": 2}
    assert (x * 2).grad_fn.settings == {}
    node = (x ** 2).grad_fn
    node.settings["p"] = 3  # a copy: the node's own stay as they were
    assert node.settings == {"p": 2}
