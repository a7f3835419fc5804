"""One gate, one numpy backward per op: both checked bit for bit over the op table.

`Function.apply` alone decides whether an op is recorded, so an op run under no_grad (or on
inputs that need no gradient) must give the bits of the recorded run. Some ops also have a
`backward_arrays`, the same gradients in numpy alone, which the engine calls when nothing is
recorded (no create_graph): for every node of every op's graph that has one, it must give the
bits `backward` gives, recorded or not. The last sections keep the behaviour the numpy paths
must not change (where's +0.0, relu's mask, nll_loss's two paths, errors, saved tensors).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from bitwise import FLOATS, awkward, same_bits
from minigrad.autograd import broadcast, events
from minigrad.autograd.function import Function
from minigrad.autograd.node import Node
from minigrad.autograd.tensor import make
from minigrad.ops import losses as L
from minigrad.ops import selection
from minigrad.ops.base import normalize_dims
from minigrad.ops.products import Addmm
from minigrad.ops.softmaxes import LogSoftmax
from minigrad.testing import strategies as mst
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_table import OPS

# inf and NaN on purpose: numpy's warnings about them are expected; the bits are checked
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

IDS = [spec.name for spec in OPS]
CASES = settings(max_examples=10, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ONE_CASE = settings(CASES, max_examples=1, derandomize=True, database=None,
                    phases=[Phase.generate])


def leaf(array) -> mg.Tensor:
    return mg.tensor(array, requires_grad=True)


def leaves(case: mst.OpCase, dtype, requires_grad: bool) -> tuple:
    return tuple(mg.tensor(t.array.astype(dtype), requires_grad=requires_grad)
                 for t in case.tensors)


def outputs(result) -> list:
    return [r for r in (result if isinstance(result, tuple) else (result,))
            if isinstance(r, mg.Tensor)]


def nodes_of(result) -> list[Node]:
    """Every node of the graph behind `result`, each once (AccumulateGrads left out)."""
    seen, todo = {}, [r.grad_fn for r in outputs(result) if r.grad_fn is not None]
    while todo:
        node = todo.pop()
        if id(node) in seen or node.display_name() == "AccumulateGrad":
            continue
        seen[id(node)] = node
        todo += [n for n, _ in node.next_functions if n is not None]
    return list(seen.values())


def all_functions(cls=Function) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *all_functions(sub)]
    return found


def defines_backward_arrays(cls: type) -> bool:
    return any("backward_arrays" in vars(c) for c in cls.__mro__ if c is not Function)


# -- (a) the forward: recorded or not, the same tensor -------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_unrecorded_forward_has_the_bits_of_the_recorded_one(spec: OpSpec, dtype) -> None:
    @CASES
    @given(case=mst.op_cases(spec))
    def check(case: mst.OpCase) -> None:
        recorded = outputs(case(*leaves(case, dtype, True)))
        with mg.no_grad():
            under_no_grad = outputs(case(*leaves(case, dtype, True)))
        constants = outputs(case(*leaves(case, dtype, False)))
        for plain in (under_no_grad, constants):
            assert len(plain) == len(recorded)
            for a, b in zip(plain, recorded):
                assert a.grad_fn is None and not a.requires_grad
                assert type(a.array) is np.ndarray and same_bits(a.array, b.array), case

    check()


# -- (b) backward_arrays: the bits of backward ----------------------------------------------------
def upstream_grads(node: Node, dtype, seed: int) -> list:
    """Awkward gradients (-0.0, inf, NaN where there is room) for each output of `node`."""
    grads = []
    for nr in range(node._num_outputs):
        shape = node.output_shape(nr)
        values = awkward(dtype, shape, seed) if np.prod(shape) >= 4 else \
            np.random.default_rng(seed).standard_normal(shape).astype(dtype)
        grads.append(mg.tensor(values))
    return grads


def call_backward(node: Node, grads: list) -> tuple:
    """What the engine gets from `node` (arrays or Tensors), made Tensors as broadcast.fit
    makes them."""
    out = node.call_backward(list(grads))
    return tuple(g if g is None or isinstance(g, mg.Tensor) else make(np.asarray(g), None, 0)
                 for g in out)


def check_backward_arrays(node: Node, grads: list) -> None:
    """`backward_arrays` (through the engine's call) vs `backward`, recorded and not."""
    cls = node._function
    with mg.no_grad():
        arrays = call_backward(node, grads)
        unrecorded = cls.backward(node, *grads)
    with mg.enable_grad():
        recorded = cls.backward(node, *grads)
    for want in (unrecorded, recorded):
        got = arrays if isinstance(arrays, tuple) else (arrays,)
        want = want if isinstance(want, tuple) else (want,)
        assert len(got) == len(want) == len(node.next_functions)
        for g, w in zip(got, want):
            assert (g is None) == (w is None), (node.name(), got, want)
            if g is not None:
                assert type(g) is mg.Tensor and g.grad_fn is None and not g.requires_grad
                assert same_bits(g.array, w.array), (node.name(), g.array, w.array)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_backward_arrays_has_the_bits_of_backward(spec: OpSpec, dtype) -> None:
    @CASES
    @given(case=mst.op_cases(spec))
    def check(case: mst.OpCase) -> None:
        xs = leaves(case, dtype, True)
        for needs in _needs_patterns(len(xs)):
            ins = tuple(x if need else mg.tensor(x.array) for x, need in zip(xs, needs))
            for i, node in enumerate(nodes_of(case(*ins))):
                if defines_backward_arrays(node._function):
                    check_backward_arrays(node, upstream_grads(node, dtype, i))

    check()


def _needs_patterns(n: int) -> list[tuple]:
    """Which inputs require grad: all, and (for several) each one alone."""
    return [(True,) * n] + ([tuple(i == j for j in range(n)) for i in range(n)] if n > 1 else [])


def test_every_backward_arrays_is_met_in_the_op_table():
    """A new `backward_arrays` cannot go untested: some op of the table records its node."""
    defining = {cls for cls in all_functions() if defines_backward_arrays(cls)
                and cls.__module__.startswith("minigrad.")}
    met = set()
    for spec in OPS:
        @ONE_CASE
        @given(case=mst.op_cases(spec))
        def collect(case: mst.OpCase) -> None:
            met.update(node._function for node in nodes_of(case(*leaves(case, np.float32, True))))

        collect()
    assert defining and defining <= met, sorted(c.__name__ for c in defining - met)


def test_backward_arrays_with_a_gradient_of_another_dtype_or_layout():
    """What the engine may hand a backward: a float64 gradient for a float32 relu, a
    transposed one for t() (recorded and unrecorded paths agree)."""
    x = leaf(awkward(np.float32, (4, 3), 14))
    y = F.relu(x * 1.0)
    check_backward_arrays(y.grad_fn, [mg.tensor(awkward(np.float64, (4, 3), 15))])
    w = leaf(awkward(np.float32, (3, 4), 11))
    check_backward_arrays(w.t().grad_fn, [mg.tensor(awkward(np.float32, (3, 4), 12)).t()])


# -- the whole backward, numpy path vs create_graph ---------------------------------------------
def grads_both_ways(loss_of, params) -> None:
    """Run backward plainly and with create_graph=True; the grads must have the same bits,
    and the second run must have recorded a graph for at least one of them."""
    results = []
    for create_graph in (False, True):
        for p in params:
            p.grad = None
        loss_of().backward(create_graph=create_graph)
        results.append([p.grad for p in params])
    plain, graphed = results
    for p, a, b in zip(params, plain, graphed):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.grad_fn is None and not a.requires_grad
            assert same_bits(a.array, b.array), (p.shape, a.array, b.array)
    assert any(g is not None and g.requires_grad for g in graphed)


def upstream(out: mg.Tensor, seed: int = 1) -> mg.Tensor:
    """A loss whose gradient at `out` is awkward (with -0.0, inf, NaN): sum(out * G)."""
    g = awkward(out.dtype, out.shape, seed) if out.array.size >= 4 else \
        np.random.default_rng(seed).standard_normal(out.shape).astype(out.dtype)
    return (out * mg.tensor(g)).sum()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("fn", [
    lambda x: x.tanh(),
    lambda x: (x * 0.9 + 0.1).tanh() * 1.7,
    lambda x: (0.3 - x) / 0.7,
])
def test_small_op_chain_grads_plain_and_create_graph(fn, dtype):
    x0 = np.linspace(-3, 3, 37).astype(dtype)
    grads = []
    for create_graph in (False, True):
        x = leaf(x0)
        grads += mg.autograd.grad(fn(x).sum(), [x], create_graph=create_graph)
    plain, recorded = grads
    assert plain.grad_fn is None
    assert plain.dtype == recorded.dtype and same_bits(plain.array, recorded.array)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("needs", ["all", "weight", "input", "bias"])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_backward_bits_plain_and_create_graph(dtype, needs, bias):
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((5, 4)).astype(dtype),
                  requires_grad=needs in ("all", "input"))
    w = mg.tensor(rng.standard_normal((3, 4)).astype(dtype),
                  requires_grad=needs in ("all", "weight"))
    b = mg.tensor(rng.standard_normal(3).astype(dtype), requires_grad=needs in ("all", "bias"))
    params = [t for t in (x, w, b) if t.requires_grad]
    if not bias:
        if needs == "bias":
            return
        b = None
    grads_both_ways(lambda: upstream(F.linear(x * x, w * w, b) * F.linear(x, w, b)), params)


@pytest.mark.parametrize("layout", ["plain", "transposed"])
def test_mm_backward_bits_plain_and_create_graph(layout):
    rng = np.random.default_rng(1)
    a = leaf(rng.standard_normal((4, 6)).astype(np.float32))
    b0 = leaf(rng.standard_normal((6, 3) if layout == "plain" else (3, 6)).astype(np.float32))
    b = b0 if layout == "plain" else b0.t()
    grads_both_ways(lambda: upstream(a.mm(b) * a.mm(b)), [a, b0])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 4), (1, 4), (5,), ()])
def test_t_backward_bits_plain_and_create_graph(dtype, shape):
    w = leaf(awkward(dtype, shape, 11) if np.prod(shape) >= 4 else np.array(1.5, dtype))
    grads_both_ways(lambda: upstream(w.t() * w.t()), [w])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(6, 7), (5,), ()])
def test_relu_backward_bits_plain_and_create_graph(dtype, shape):
    x = leaf(awkward(dtype, shape, 4) if shape and np.prod(shape) >= 4 else
             np.array(-0.5, dtype))
    grads_both_ways(lambda: upstream(F.relu(x * x - 1) * x), [x])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, dim", [((6, 7), 1), ((6, 7), 0), ((7,), 0), ((2, 3, 4), 1),
                                        ((), 0)])
def test_log_softmax_backward_bits_plain_and_create_graph(dtype, shape, dim):
    x = leaf(np.random.default_rng(5).standard_normal(shape).astype(dtype))
    grads_both_ways(lambda: upstream(F.log_softmax(x, dim) * x), [x])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("scale", [1.0, -3.0, np.inf])
def test_cross_entropy_backward_bits_plain_and_create_graph(dtype, reduction, scale):
    x = leaf(np.random.default_rng(6).standard_normal((5, 4)).astype(dtype))
    labels = mg.tensor([0, 3, 1, 1, 2])

    def loss_of():
        loss = F.cross_entropy(x * x, labels, reduction=reduction) * scale
        return loss.sum() if reduction == "none" else loss

    grads_both_ways(loss_of, [x])


@pytest.mark.parametrize("kwargs", [{"weight": [1.0, 2.0, 0.5, 1.0]}, {"ignore_index": 1}])
def test_nll_loss_general_path_bits_plain_and_create_graph(kwargs):
    x = leaf(np.random.default_rng(7).standard_normal((5, 4)).astype(np.float32))
    grads_both_ways(lambda: F.nll_loss(F.log_softmax(x * x, 1), [0, 3, 1, 1, 2], **kwargs) * -2,
                    [x])


@pytest.mark.parametrize("x_shape, labels", [((4,), 2), ((2, 4, 3), [[0, 1, 3], [2, 2, 0]]),
                                             ((0, 4), np.zeros(0, np.int64))])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_loss_other_shapes_still_accepted(x_shape, labels, loss):
    x = leaf(np.random.default_rng(16).standard_normal(x_shape).astype(np.float32))
    grads_both_ways(lambda: getattr(F, loss)(x * x, mg.tensor(labels), reduction="sum") * 3, [x])


def mlp_step(create_graph=False):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 5), nn.ReLU(),
                          nn.Linear(5, 3))
    x = mg.tensor(np.random.default_rng(8).standard_normal((4, 6)).astype(np.float32))
    loss = F.cross_entropy(model(x), mg.tensor([0, 2, 1, 2]))
    loss.backward(create_graph=create_graph)
    return loss, [p.grad for p in model.parameters()]


def test_mlp_step_grads_plain_and_create_graph_same_bits():
    _, plain = mlp_step()
    _, graphed = mlp_step(create_graph=True)
    for a, b in zip(plain, graphed):
        assert same_bits(a.array, b.array)
        assert a.grad_fn is None and b.requires_grad


def test_mlp_step_graph_and_backward_events_unchanged():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))
    x = mg.tensor(np.ones((4, 6), np.float32))
    loss = F.cross_entropy(model(x), mg.tensor([0, 2, 1, 2]))
    node, names = loss.grad_fn, []
    while node is not None and node.display_name() != "AccumulateGrad":
        names.append(node.display_name())
        node = next((n for n, _ in node.next_functions if n is not None
                     and n.display_name() not in ("AccumulateGrad", "TBackward0")), None)
    assert names == ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0",
                     "ReluBackward0", "AddmmBackward0"]
    seen = []
    with events.listen(seen.append):
        loss.backward()
    steps = [(e.node.display_name(), e.summed_dims, e.grad_inputs) for e in seen
             if isinstance(e, events.BackwardStep)]
    assert [name for name, _, _ in steps] == [
        "NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "AccumulateGrad",
        "TBackward0", "AccumulateGrad", "ReluBackward0", "AddmmBackward0", "AccumulateGrad",
        "TBackward0", "AccumulateGrad"]
    # the bias gradient is summed over the rows by the engine, and the step says so
    assert [summed for name, summed, _ in steps if name == "AddmmBackward0"] == [
        ((0,), None, None), ((0,), None, None)]
    for _, _, grad_inputs in steps:
        assert all(g is None or type(g) is mg.Tensor and g.grad_fn is None for g in grad_inputs)


# -- what the numpy backwards must keep ----------------------------------------------------------
def test_t_backward_gives_a_plain_transpose_and_a_contiguous_grad():
    w = leaf(awkward(np.float32, (3, 4), 12))
    g = awkward(np.float32, (4, 3), 13)
    seen = []
    with events.listen(seen.append):
        w.t().backward(mg.tensor(g))
    (step,) = [e for e in seen if isinstance(e, events.BackwardStep)
               and e.node.name() == "TBackward0"]
    (out,) = step.grad_inputs
    assert type(out) is mg.Tensor and out.grad_fn is None and not out.requires_grad
    assert out.shape == (3, 4) and same_bits(out.array, g.T)
    # a transposed array is not laid out as .grad must be: the engine copied it
    assert w.grad.array.flags.c_contiguous and same_bits(w.grad.array, g.T)
    assert not np.shares_memory(w.grad.array, out.array)


def test_t_backward_under_create_graph_is_still_a_recorded_view():
    w = leaf(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    y = w.t()
    (gw,) = mg.autograd.grad((y * y).sum(), w, create_graph=True)
    assert gw.grad_fn.name() == "TBackward0" and gw._base is not None
    gw.sum().backward()
    assert same_bits(w.grad.array, np.full((2, 3), 2.0, np.float32))


def test_linear_grad_layouts_unchanged():
    """The weight's gradient is C-contiguous (taken as .grad without a copy) either way."""
    lin = nn.Linear(4, 3)
    x = mg.tensor(np.random.default_rng(2).standard_normal((5, 4)).astype(np.float32))
    lin(x).sum().backward()
    assert lin.weight.grad.array.flags.c_contiguous
    assert lin.weight.grad.shape == (3, 4) and lin.bias.grad.shape == (3,)


def test_addmm_create_graph_records_the_gradient_graph():
    x = leaf(np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32))
    lin = nn.Linear(4, 3)
    out = lin(x)
    gx, gw = mg.autograd.grad((out * out).sum(), [x, lin.weight], create_graph=True)
    assert gx.grad_fn.name() == "MmBackward0"
    assert gw.grad_fn.name() == "TBackward0"  # (grad^T @ x)^T, transposed back to the weight
    assert gw.grad_fn.next_functions[0][0].name() == "TBackward0"
    (gx.sum() + gw.sum()).backward()  # and it can be differentiated again
    assert x.grad is not None and lin.weight.grad is not None


def test_addmm_saved_input_modified_in_place_still_raises():
    x = leaf(np.ones((2, 4), np.float32))
    h = x * 2
    out = F.linear(h, leaf(np.ones((3, 4), np.float32)), leaf(np.ones(3, np.float32)))
    with mg.no_grad():
        h += 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_addmm_second_backward_still_raises_freed():
    out = nn.Linear(4, 3)(mg.tensor(np.ones((2, 4), np.float32)))
    loss = out.sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        loss.backward()


@pytest.mark.parametrize("dtype", [*FLOATS, np.int32, np.int64])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_relu_forward_is_np_maximum_with_0(dtype, requires_grad):
    if np.dtype(dtype).kind == "f":
        x = awkward(dtype, (6, 7), 10)
        x[0, :2] = [-0.0, 0.0]
    else:
        x = np.random.default_rng(10).integers(-5, 5, (6, 7)).astype(dtype)
        requires_grad = False
    y = F.relu(mg.tensor(x, requires_grad=requires_grad))
    assert same_bits(y.array, np.maximum(x, 0, dtype=x.dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_relu_backward_gives_plus_zero_where_input_is_not_positive(dtype):
    x = mg.tensor(np.array([-1.0, 0.0, 2.0, -0.0, 3.0, -np.inf], dtype), requires_grad=True)
    mg.relu(x).backward(mg.tensor(np.array([-5.0, np.nan, -7.0, np.inf, np.nan, -1.0], dtype)))
    assert x.grad.dtype == dtype
    expected = np.array([0.0, 0.0, -7.0, 0.0, np.nan, 0.0], dtype)
    assert same_bits(x.grad.array, expected)
    assert not np.signbit(x.grad.array[[0, 1, 3, 5]]).any()


def test_relu_double_backward_still_records_where():
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    y = mg.relu(x)
    (g,) = mg.autograd.grad((y * y).sum(), x, create_graph=True)
    assert g.grad_fn is not None and g.grad_fn.name() == "WhereBackward0"
    assert same_bits(g.array, np.array([0.0, 4.0], np.float32))


@pytest.mark.parametrize("create_graph", [False, True])
def test_relu_backward_with_a_gradient_of_another_dtype(create_graph):
    x = leaf(awkward(np.float32, (4, 3), 14))
    y = F.relu(x * 1.0)
    g = awkward(np.float64, (4, 3), 15)
    y.backward(mg.tensor(g), create_graph=create_graph)
    want = np.where(y.array > 0, g, 0.0).astype(np.float32)
    assert same_bits(x.grad.array, want)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("new_grad", [np.array([[2.0, -0.0, np.inf]] * 2, np.float32),
                                      np.array([[-1.0, np.nan, 0.5], [np.nan, 1.0, -2.0]],
                                               np.float32),
                                      np.arange(6, dtype=np.float32).reshape(3, 2).T])
def test_relu_backward_with_a_gradient_a_pre_hook_replaced(create_graph, new_grad):
    """A pre-hook may hand backward another array of the same size and dtype (PyTorch refuses
    any other): NaN, inf, -0.0, a transposed view; np.where's result bit for bit."""
    x = leaf(np.array([[-1.0, 0.0, 2.0], [3.0, -0.0, np.inf]], np.float32))
    y = F.relu(x)
    y.grad_fn.register_prehook(lambda grads: (mg.tensor(new_grad),))
    seen = []
    with events.listen(seen.append):
        y.sum().backward(create_graph=create_graph)
    (step,) = [e for e in seen if isinstance(e, events.BackwardStep)
               and e.node.name() == "ReluBackward0"]
    assert same_bits(step.grad_inputs[0].array, np.where(y.array > 0, new_grad, 0.0))


def test_relu_output_modified_in_place_still_raises():
    x = leaf([-1.0, 2.0])
    y = F.relu(x)
    with mg.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of Relu,"):
        y.sum().backward()


def test_relu_layer_still_records_relu_backward():
    y = nn.ReLU()(leaf([-1.0, 2.0]))
    assert y.grad_fn.name() == "ReluBackward0"
    assert y.grad_fn.next_functions[0][0].display_name() == "AccumulateGrad"


def test_tanh_double_backward_still_records_tanh_backward_backward():
    x = mg.tensor([0.3, -1.2], requires_grad=True)
    (g,) = mg.autograd.grad(x.tanh().sum(), [x], create_graph=True)
    assert g.grad_fn.name() == "TanhBackwardBackward0"
    (gg,) = mg.autograd.grad(g.sum(), [x])
    t = np.tanh(x.array)
    np.testing.assert_allclose(gg.array, -2 * t * (1 - t * t), rtol=1e-6)


def test_tanh_backward_still_refuses_a_modified_output():
    x = mg.tensor([0.3, -1.2], requires_grad=True)
    y = x.tanh()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    assert x.grad is None


def test_log_softmax_output_modified_in_place_still_raises():
    x = leaf([[1.0, 2.0, 3.0]])
    y = F.log_softmax(x, 1)
    with mg.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="output 0 of LogSoftmax,"):
        y.sum().backward()


@pytest.mark.parametrize("keepdim", [True, False])
def test_sum_of_a_0d_tensor_over_dim_0_is_itself(keepdim):
    """(PyTorch allows dim 0 and -1 on a 0-d tensor; log_softmax's backward sums that way.)"""
    x = leaf(2.5)
    y = x.sum(0, keepdim=keepdim) * 3
    assert y.shape == () and y.item() == 7.5
    y.backward()
    assert x.grad.item() == 3.0
    assert mg.tensor(2.5).sum(-1).item() == 2.5


# -- where: its bits (+0.0 where the other side is a +0, the chosen NaN bits kept) -----------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("zero", [0.0, 0])
def test_where_fast_path_is_np_where_bit_for_bit(dtype, zero):
    g = awkward(dtype)
    c = np.random.default_rng(1).random(g.shape) > 0.5
    for got, want in [(mg.where(c, mg.tensor(g), zero), np.where(c, g, zero)),
                      (mg.where(c, zero, mg.tensor(g)), np.where(c, zero, g))]:
        assert got.dtype == dtype
        assert same_bits(got.array, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_where_fast_path_gives_plus_zero_for_negative_inf_and_nan(dtype):
    g = np.array([-1.0, -0.0, np.inf, -np.inf, np.nan, 2.0], dtype)
    keep = np.array([False, False, False, False, False, True])
    out = mg.where(keep, mg.tensor(g), 0.0).array
    assert out.dtype == dtype
    assert np.array_equal(out, np.array([0, 0, 0, 0, 0, 2], dtype))
    assert not np.signbit(out).any() and not np.isnan(out).any()
    out = mg.where(~keep, 0.0, mg.tensor(g)).array
    assert np.array_equal(out, np.array([0, 0, 0, 0, 0, 2], dtype))
    assert not np.signbit(out).any()


def test_where_fast_path_keeps_nan_bits_where_chosen():
    g = np.array([np.nan, -np.nan, 1.0], np.float32)
    out = mg.where(np.array([True, True, False]), mg.tensor(g), 0.0).array
    assert same_bits(out, np.array([np.nan, -np.nan, 0.0], np.float32))


def test_where_fast_path_on_a_non_contiguous_array():
    g = awkward(np.float32, (7, 6)).T  # a transposed view
    c = np.random.default_rng(2).random(g.shape) > 0.5
    assert same_bits(mg.where(c, mg.tensor(g), 0.0).array, np.where(c, g, 0.0))


@pytest.mark.parametrize("cond_shape, g_shape", [
    ((6, 1), (6, 7)),  # the condition broadcasts
    ((6, 7), (7,)),  # the value broadcasts
    ((), ()),  # 0-d
    ((6, 7), (6, 7)),
])
@pytest.mark.parametrize("other", [0.0, -0.0, 0, 1.5, False])
def test_where_other_cases_still_match_np_where(cond_shape, g_shape, other):
    g = awkward(np.float32, g_shape) if g_shape else np.array(-3.0, np.float32)
    c = np.random.default_rng(3).random(cond_shape) > 0.5
    for got, want in [(mg.where(c, mg.tensor(g), other), np.where(c, g, other)),
                      (mg.where(c, other, mg.tensor(g)), np.where(c, other, g))]:
        assert got.shape == want.shape
        assert same_bits(got.array, want)


def test_where_minus_zero_is_kept():
    """-0.0 is not the fast path's zero: its sign bit must survive."""
    out = mg.where(np.array([True, False]), mg.tensor([1.0, 2.0]), -0.0).array
    assert np.signbit(out).tolist() == [False, True]


def test_where_fast_path_with_two_tensors_or_int_arrays_is_not_taken():
    c = np.array([True, False, True])
    a, b = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([-0.0, -5.0, 0.0])
    assert same_bits(mg.where(c, a, b).array, np.where(c, a.array, b.array))
    ints = mg.tensor([1, 2, 3])
    assert np.array_equal(mg.where(c, ints, 0).array, [1, 0, 3])
    assert mg.where(c, ints, 0).dtype == ints.dtype


def test_where_fast_path_records_the_same_node_and_gradient():
    a = mg.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    c = np.array([[True, False], [False, True]])
    y = mg.where(c, a, 0.0)
    assert y.grad_fn.name() == "WhereBackward0"
    y.backward(mg.tensor([[-1.0, -1.0], [np.inf, 2.0]]))
    assert same_bits(a.grad.array, np.array([[-1.0, 0.0], [0.0, 2.0]], np.float32))


def test_keep_or_zero_matches_np_where_for_random_masks():
    rng = np.random.default_rng(4)
    for dtype in FLOATS:
        for shape in [(1,), (5,), (3, 4), (2, 3, 4), (128, 256)]:
            x = awkward(dtype, shape, seed=int(rng.integers(1000))) if np.prod(shape) >= 4 \
                else rng.standard_normal(shape).astype(dtype)
            keep = rng.random(shape) > 0.5
            assert same_bits(selection._keep_or_zero(x, keep), np.where(keep, x, 0.0))


def test_where_records_when_either_side_requires_grad():
    c = np.array([True, False])
    a, b = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([3.0, 4.0])
    assert selection.choose(c, a, b).grad_fn.name() == "WhereBackward0"
    assert selection.choose(c, b, a).grad_fn.name() == "WhereBackward0"
    assert selection.choose(c, b, 0.0).grad_fn is None
    with mg.no_grad():
        assert selection.choose(c, a, b).grad_fn is None


# -- nll_loss: the usual (N, C) case and the general one give the same bits ------------------------
def general_only(monkeypatch):
    """Make NllLoss always take the general path (to compare against)."""
    monkeypatch.setattr(L, "_nll_plain", lambda x, labels, reduction:
                        L._nll_general(x, labels, None, reduction, -100))


def run_nll(x, labels, loss_fn=F.nll_loss, **kwargs):
    t = mg.tensor(x, requires_grad=True)
    loss = loss_fn(t, labels, **kwargs)
    loss.backward(mg.ones_like(loss) if loss.ndim else None)
    return loss.array, t.grad.array, loss.grad_fn.name()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("loss_fn", [F.nll_loss, F.cross_entropy])
def test_nll_plain_path_equals_general_path(monkeypatch, reduction, dtype, loss_fn):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 4)).astype(dtype)
    x[0, :] = [-0.0, np.inf, -np.inf, 0.0] if loss_fn is F.nll_loss else [-0.0, 9, -9, 0.0]
    labels = rng.integers(0, 4, 9)
    labels[0] = 0
    fast = run_nll(x, labels, loss_fn, reduction=reduction)
    with monkeypatch.context() as m:
        general_only(m)
        slow = run_nll(x, labels, loss_fn, reduction=reduction)
    assert fast[2] == slow[2] == "NllLossBackward0"
    for a, b in zip(fast[:2], slow[:2]):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a, b)  # NaN == NaN here
        finite = ~np.isnan(a)
        assert np.array_equal(np.signbit(a[finite]), np.signbit(b[finite]))


def test_nll_plain_path_direct_bits():
    rng = np.random.default_rng(6)
    for dtype in FLOATS:
        x = rng.standard_normal((128, 10)).astype(dtype)
        labels = rng.integers(0, 10, 128).astype(np.uint8)
        for reduction in ("mean", "sum", "none"):
            fast = L._nll_plain(x, labels, reduction)
            slow = L._nll_general(x, labels, None, reduction, -100)
            assert all(same_bits(a, b) for a, b in zip(fast, slow)), (dtype, reduction)


def test_nll_saves_the_same_node_and_values():
    x = mg.tensor(np.random.default_rng(7).standard_normal((5, 3)), requires_grad=True)
    loss = F.nll_loss(x, [0, 2, 1, 1, 0])
    node = loss.grad_fn
    assert node.name() == "NllLossBackward0"
    assert node.next_functions == ((x.grad_fn or x._accumulator(), 0),)
    (coef,) = node.unpack_saved()
    expected = np.zeros((5, 3))
    expected[range(5), [0, 2, 1, 1, 0]] = -1 / 5
    assert same_bits(coef.array, expected)


@pytest.mark.parametrize("case", ["weight", "ignored label", "1-D", "3-D", "empty batch"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_falls_back_to_the_general_path(monkeypatch, case, reduction):
    rng = np.random.default_rng(8)
    kwargs: dict = {"reduction": reduction}
    x = rng.standard_normal((6, 4)).astype(np.float32)
    labels = np.array([0, 1, 2, 3, 2, 1])
    if case == "weight":
        kwargs["weight"] = mg.tensor([1.0, 2.0, 0.5, 3.0])
    elif case == "ignored label":
        kwargs["ignore_index"] = 2
    elif case == "1-D":
        x, labels = x[0], np.array(3)
    elif case == "empty batch":  # 'mean' is 0/0 = nan, computed (without a warning) there
        x, labels = x[:0], labels[:0]
    else:
        x, labels = rng.standard_normal((3, 4, 5)).astype(np.float32), rng.integers(0, 4, (3, 5))
    calls = []
    general = L._nll_general
    monkeypatch.setattr(L, "_nll_plain", lambda *a: pytest.fail("plain path taken"))
    monkeypatch.setattr(L, "_nll_general", lambda *a: calls.append(1) or general(*a))
    loss, grad, name = run_nll(x, labels, **kwargs)
    # (an input (N, C, d) is viewed as (N, C, 1, d) for nll_loss2d, as in PyTorch: its losses
    # of reduction='none' are viewed back)
    nd_name = "ViewBackward0" if reduction == "none" else "NllLoss2DBackward0"
    assert calls and name == (nd_name if case == "3-D" else "NllLossBackward0")
    assert grad.shape == x.shape and np.isfinite(grad).all()


def test_nll_ignore_index_not_present_takes_the_plain_path(monkeypatch):
    x = np.random.default_rng(9).standard_normal((4, 3)).astype(np.float32)
    labels = np.array([0, 1, 1, 0])
    fast = run_nll(x, labels, ignore_index=2)
    with monkeypatch.context() as m:
        m.setattr(L, "_nll_general", lambda *a: pytest.fail("general path taken"))
        run_nll(x, labels, ignore_index=2)
    with monkeypatch.context() as m:
        general_only(m)
        slow = run_nll(x, labels, ignore_index=2)
    assert all(same_bits(a, b) for a, b in zip(fast[:2], slow[:2]))


def test_nll_plain_path_against_a_numpy_reference():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((7, 5)).astype(np.float32)
    labels = rng.integers(0, 5, 7)
    loss, grad, _ = run_nll(x, labels)
    assert np.isclose(loss, -x[np.arange(7), labels].mean(), rtol=1e-6)
    expected = np.zeros_like(x)
    expected[np.arange(7), labels] = -1 / 7
    assert same_bits(grad, expected)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 3, 7, 2049, 4097])
def test_nll_plain_mean_coefficients_are_the_general_paths_bits(dtype, n):
    """-1 / total, with total the batch size in the input's dtype (rounded for float16)."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 3)).astype(dtype)
    labels = rng.integers(0, 3, n)
    fast = L._nll_plain(x, labels, "mean")
    slow = L._nll_general(x, labels, None, "mean", -100)
    assert all(same_bits(a, b) for a, b in zip(fast, slow))


@pytest.mark.parametrize("x_shape, labels, error, words", [
    ((3, 4), [0, 1], ValueError, "Expected input batch_size (3) to match target batch_size (2)."),
    # (PyTorch's words, checked against torch 2.13 in tests/nn/test_losses_more.py)
    ((3, 4), 1, ValueError, "Expected input batch_size (3) to match target batch_size (0)."),
    ((3, 4), [[0, 1, 2]], ValueError, "Expected input batch_size (3) to match target "
                                      "batch_size (1)."),
    ((4,), [1, 2], ValueError, "For 1D input, 1D target must have size 1, but got target "
                               "size: 2"),
    ((2, 4, 5), [[0] * 6] * 2, RuntimeError, "Expected target size [2, 5], got [2, 6]"),
    ((2, 4, 5), [0, 1], RuntimeError, "Expected target size [2, 5], got [2]"),
    ((3, 4), [0, 1.0, 2], RuntimeError, "expected target dtype to be Long or Byte"),
    ((3, 4), [0, 4, 1], IndexError, "Target 4 is out of bounds."),
    ((3, 4), [0, -1, 1], IndexError, "Target -1 is out of bounds."),
])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_loss_misuse_errors_unchanged(x_shape, labels, error, words, loss):
    x = leaf(np.zeros(x_shape, np.float32))
    with pytest.raises(error) as info:
        getattr(F, loss)(x, mg.tensor(labels))
    assert words in str(info.value)


@pytest.mark.parametrize("labels, ignore_index", [
    ([0, 2, 1, 2], -100), ([0, 2, 1, 2], 2), ([0, 2, 1, 2], 3), ([0, -100, 1, 2], -100),
    ([0, 7, 1, 2], 7), ([0, -1, 1, 2], -1), ([1, 1, 1, 1], 1),
])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8])  # (PyTorch refuses int32 and int8:
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])  # tests/nn/test_loss_arguments)
def test_nll_loss_ignores_exactly_the_ignored_labels(labels, ignore_index, dtype, reduction):
    labels = np.array(labels)
    if dtype == np.uint8 and (labels < 0).any():
        return
    x = np.random.default_rng(10).standard_normal((4, 3)).astype(np.float32)
    t = mg.tensor(x, requires_grad=True)
    loss = mg.nn.functional.nll_loss(t, labels.astype(dtype), ignore_index=ignore_index,
                                      reduction=reduction)
    loss.backward(mg.ones_like(loss))
    keep = labels != ignore_index
    picked = np.where(keep, -x[np.arange(4), np.where(keep, labels, 0)], 0.0).astype(np.float32)
    grad = np.zeros_like(x)
    grad[np.arange(4)[keep], labels[keep]] = -1
    if reduction == "mean":
        want, grad = picked.sum() / keep.sum(), grad / keep.sum()
    else:
        want = picked.sum() if reduction == "sum" else picked
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(loss.array, want, rtol=1e-6)
        np.testing.assert_allclose(t.grad.array, grad, rtol=1e-6)


@pytest.mark.parametrize("labels", [[0, 3, 1], [0, -1, 1], [-101, 0, 1]])
def test_nll_loss_out_of_range_labels_still_raise(labels):
    with pytest.raises(IndexError, match=f"Target {[v for v in labels if not 0 <= v < 3][0]} "
                                         "is out of bounds."):
        mg.nn.functional.nll_loss(mg.tensor(np.zeros((3, 3))), np.array(labels))


def test_nll_loss_single_sample_and_empty_batch():
    x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = mg.nn.functional.nll_loss(x, mg.tensor(2))
    assert loss.item() == -2.0
    empty = mg.nn.functional.nll_loss(mg.tensor(np.zeros((0, 3))), np.zeros(0, np.int64),
                                      reduction="sum")
    assert empty.item() == 0.0


# -- views, reductions, dims, products and their errors, recorded or not ---------------------------
def test_unrecorded_views_share_the_version_counter():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    with mg.no_grad():
        for view in (x.t(), x.view(4), x.unsqueeze(0), x.transpose(0, 1), x[None].squeeze(0)):
            before = x._version
            view.add_(1.0)
            assert x._version == before + 1 and view._version == x._version
    assert x.array.tolist() == [[6.0, 7.0], [8.0, 9.0]]


def test_a_view_made_under_no_grad_is_still_checked_by_backward():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()  # saves its output
    with mg.no_grad():
        y.view(2, 1).mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_of_a_vector_over_its_only_dim_is_a_0d_array(dtype):
    x = mg.tensor(np.arange(5, dtype=dtype))
    for grad in (False, True):
        with mg.set_grad_enabled(grad):
            out = mg.tensor(x.array, requires_grad=grad).sum(0)
        assert type(out.array) is np.ndarray and out.shape == () and out.dtype == dtype


def test_recorded_sum_keeps_its_nodes_and_gradients():
    x = mg.tensor(awkward(np.float32), requires_grad=True)
    assert x.sum().grad_fn.name() == "SumBackward0"
    assert x.sum(0).grad_fn.name() == "SumBackward1"
    assert x.sum(None, keepdim=True).grad_fn.name() == "SumBackward1"
    x.sum(1, keepdim=True).backward(mg.tensor(np.arange(4, dtype=np.float32)[:, None]))
    assert same_bits(x.grad.array, np.repeat(np.arange(4, dtype=np.float32)[:, None], 3, 1))


def test_recorded_mean_keeps_its_nodes_and_gradients():
    x = mg.tensor(np.ones((4, 3), np.float32), requires_grad=True)
    assert x.mean().grad_fn.name() == "MeanBackward0"
    assert x.mean(0).grad_fn.name() == "MeanBackward1"
    x.mean().backward()
    x.mean((0, 1), keepdim=True).backward()
    x.mean(()).sum().backward()
    twelfth = np.float32(1) / 12
    assert same_bits(x.grad.array, np.full((4, 3), twelfth + twelfth + np.float32(1)))


@pytest.mark.parametrize("g_shape, shape", [((128, 256), (256,)), ((4, 3), (1, 3)),
                                            ((4, 3), (4, 1)), ((2, 4, 3), (4, 1)), ((4, 3), (4, 3)),
                                            ((2, 1, 3), (1, 3)), ((5,), ()), ((), ()),
                                            ((3, 1), (1,))])
def test_sum_to_dims_is_the_dims_broadcasting_added(g_shape, shape):
    lead = len(g_shape) - len(shape)
    expected = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                          if n == 1 and g_shape[lead + i] != 1)
    assert broadcast.sum_to_dims(g_shape, shape) == expected
    g = np.ones(g_shape, np.float32)
    if g_shape != shape:
        assert mg.tensor(g).sum_to_size(shape).shape == shape


@pytest.mark.parametrize("ndim", [0, 1, 2, 3])
def test_normalize_dims_fast_int_path_agrees_with_the_loop(ndim):
    for d in range(-ndim - 2, ndim + 2):
        try:
            want = normalize_dims([d], ndim)
        except IndexError as exc:
            with pytest.raises(IndexError, match=re.escape(str(exc))):
                normalize_dims(d, ndim)
        else:
            assert normalize_dims(d, ndim) == want


@pytest.mark.parametrize("call, error, words", [
    (lambda x: mg.tensor(np.ones((2, 2, 2))).t(), RuntimeError, "t() expects a tensor with <= 2"),
    (lambda x: x.view(5), RuntimeError, "shape '[5]' is invalid for input of size 12"),
    (lambda x: x.view(-1, 5), RuntimeError, "shape '[-1, 5]' is invalid for input of size 12"),
    (lambda x: x.view(0, -1), RuntimeError, "shape '[0, -1]' is invalid for input of size 12"),
    (lambda x: x.t().view(12), RuntimeError, "view size is not compatible with input tensor's"),
    (lambda x: x.unsqueeze(3), IndexError, "Dimension out of range (expected to be in range "
                                           "of [-3, 2], but got 3)"),
    (lambda x: x.unsqueeze(-4), IndexError, "but got -4)"),
    (lambda x: x.squeeze(2), IndexError, "Dimension out of range (expected to be in range of "
                                         "[-2, 1], but got 2)"),
    (lambda x: x.sum(2), IndexError, "Dimension out of range (expected to be in range of "
                                     "[-2, 1], but got 2)"),
    (lambda x: x.sum((0, -3)), IndexError, "but got -3)"),
    (lambda x: x.expand(4, 4), RuntimeError, "The expanded size of the tensor (4) must match "
                                             "the existing size (3) at non-singleton dimension 1."),
    (lambda x: x.expand(3), RuntimeError, "the number of sizes provided (1)"),
    (lambda x: x.expand(-2, 4, 3), RuntimeError, "numel: integer multiplication overflow"),
    (lambda x: x.expand(1, 3), RuntimeError, "The expanded size of the tensor (1) must match "
                                             "the existing size (4) at non-singleton dimension 0."),
    (lambda x: x.mm(x), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)"),
    (lambda x: x.mm(x[0]), RuntimeError, "mat2 must be a matrix"),
])
def test_misuse_raises_the_same_error_recorded_or_not(call, error, words):
    messages = []
    for requires_grad, grad_mode in [(True, True), (False, True), (True, False)]:
        x = mg.tensor(np.arange(12, dtype=np.float32).reshape(4, 3), requires_grad=requires_grad)
        with mg.set_grad_enabled(grad_mode), pytest.raises(error) as info:
            call(x)
        messages.append(str(info.value))
    assert len(set(messages)) == 1, messages
    if words is not None:
        assert words in messages[0]


def addmm_general(bias, mat1, mat2):
    return bias + mat1 @ mat2  # what Addmm computed before it added in place


@pytest.mark.parametrize("dtype", FLOATS)
def test_linear_bias_added_in_place_gives_the_same_bits(dtype):
    x = awkward(dtype, (6, 4))
    w = awkward(dtype, (5, 4), seed=1)
    b = np.array([np.nan, -0.0, np.inf, 1.5, -np.inf], dtype)
    out = F.linear(mg.tensor(x), mg.tensor(w, requires_grad=True),
                        mg.tensor(b, requires_grad=True))
    assert out.grad_fn.name() == "AddmmBackward0"
    with np.errstate(invalid="ignore", over="ignore"):
        assert same_bits(out.array, addmm_general(b, x, w.T))


@pytest.mark.parametrize("bias", [np.ones(5, np.float64), np.ones((6, 5), np.float32),
                                  np.ones((1, 5), np.float32), np.ones((2, 6, 5), np.float32),
                                  np.float32(2.0), 2.0, 3])
def test_addmm_other_biases_broadcast_and_promote_as_before(bias):
    x, w = awkward(np.float32, (6, 4)), awkward(np.float32, (4, 5), seed=1)
    b = mg.tensor(bias) if isinstance(bias, np.ndarray) else bias
    with mg.no_grad():
        out = Addmm.apply(b, mg.tensor(x), mg.tensor(w))
    with np.errstate(invalid="ignore"):
        assert same_bits(out.array, addmm_general(bias, x, w))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_and_log_softmax_forward_bits_unchanged(dtype, dim):
    x = np.random.default_rng(8).standard_normal((5, 7)).astype(dtype) * 10
    x[0, 0] = -np.inf
    shifted = x - np.max(x, axis=dim, keepdims=True)
    e = np.exp(shifted)
    assert same_bits(mg.tensor(x).softmax(dim).array, e / e.sum(axis=dim, keepdims=True))
    assert same_bits(mg.tensor(x).log_softmax(dim).array,
                     shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True)))
    node = mg.tensor(x, requires_grad=True).log_softmax(dim).grad_fn
    assert node.name() == "LogSoftmaxBackward0" and isinstance(node, LogSoftmax._node_class)


# (a float64 bias next to float32 is refused, as in PyTorch: test_promotion_torch.py)
@pytest.mark.parametrize("bias", [np.arange(5, dtype=np.float32), np.ones(5, np.float32), None])
@pytest.mark.parametrize("x_shape", [(6, 4), (2, 3, 4), (4,)])
def test_linear_under_no_grad_is_what_the_recorded_path_computes(bias, x_shape):
    x = mg.tensor(awkward(np.float32, x_shape) if np.prod(x_shape) >= 4 else np.ones(x_shape))
    w = mg.tensor(awkward(np.float32, (5, 4), seed=1), requires_grad=True)
    b = None if bias is None else mg.tensor(bias, requires_grad=True)
    recorded = F.linear(x, w, b)
    with mg.no_grad():
        fast = F.linear(x, w, b)
    assert fast.grad_fn is None and recorded.grad_fn is not None
    assert same_bits(fast.array, recorded.array)


def test_linear_module_reads_its_current_parameters():
    lin = mg.nn.Linear(4, 3)
    x = mg.tensor(np.ones((2, 4), np.float32))
    lin.weight = mg.nn.Parameter(mg.zeros(3, 4))
    lin.bias = None
    assert lin(x).array.tolist() == [[0.0] * 3] * 2
    assert mg.nn.Linear(4, 3, bias=False)(x).grad_fn.name() == "MmBackward0"


@pytest.mark.parametrize("g_shape, shape", [((4, 3), (3,)), ((2, 4, 3), (3,)), ((4, 3), (4, 1)),
                                             ((4, 3), (1, 3)), ((2, 4, 3), (4, 1)),
                                             ((4, 3), (4, 3)), ((4, 3), ()), ((5,), ())])
def test_sum_to_array_is_keepdims_sum_and_reshape(g_shape, shape):
    g = awkward(np.float32, g_shape, 9)
    got, dims = broadcast.sum_to_array(g, shape)
    assert type(got) is np.ndarray
    assert dims == broadcast.sum_to_dims(g_shape, shape)
    want = g.sum(axis=dims, keepdims=True).reshape(shape) if dims else g.reshape(shape)
    assert same_bits(got, want)


@pytest.mark.parametrize("g_shape, shape", [((2, 3), (3, 2)), ((3,), (2, 3)), ((4, 3), (2,))])
def test_sum_to_array_still_refuses_shapes_that_do_not_broadcast(g_shape, shape):
    with pytest.raises(ValueError):
        broadcast.sum_to_array(np.zeros(g_shape, np.float32), shape)


# -- in place, nothing recorded (an optimizer's update) --------------------------------------------
def test_unrecorded_in_place_with_numbers_and_tensors():
    p = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with mg.no_grad():
        p -= 0.5 * mg.tensor([[2.0, 2.0], [2.0, 2.0]])
        p.mul_(2)
        p.add_(mg.tensor([1.0, -1.0]))  # broadcast along the rows
        p.div_(2.0)
    assert p.array.tolist() == [[0.5, 0.5], [2.5, 2.5]] and p._version == 4
    assert p.grad_fn is None and p.requires_grad


@pytest.mark.parametrize("grad_mode", [False, True])
def test_unrecorded_in_place_errors_unchanged(grad_mode):
    with mg.set_grad_enabled(grad_mode):
        x = mg.tensor([1.0, 2.0])
        with pytest.raises(RuntimeError, match=re.escape(
                "output with shape [2] doesn't match the broadcast shape [2, 2]")):
            x.add_(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
        with pytest.raises(RuntimeError, match=re.escape(  # as x.sub(...) says it
                "sub: shapes (2,) and (3,) do not broadcast. The size of tensor a (2) must "
                "match the size of tensor b (3) at non-singleton dimension 0")):
            x.sub_(mg.tensor([1.0, 2.0, 3.0]))
        assert x.array.tolist() == [1.0, 2.0] and x._version == 0  # nothing written
        e = mg.tensor([1.0]).expand(3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            e.mul_(2.0)
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            e.add_(mg.tensor([1.0, 2.0, 3.0]))
        assert e.array.tolist() == [1.0, 1.0, 1.0] and e._version == 0
