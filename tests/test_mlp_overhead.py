"""The MLP step's backward fast paths give what the Tensor-op formulas give, bit for bit.

When nothing is recorded (a plain `backward()`), AddmmBackward0, MmBackward0, ReluBackward0,
LogSoftmaxBackward0 and NllLossBackward0 work on the numpy arrays directly. Under
`create_graph=True` they still run their Tensor-op formulas, so that the gradient has a graph.
Each test runs the same backward both ways and compares the `.grad` bits (so +0.0 vs -0.0, inf
and NaN count); others check that the graph, the saved-tensor checks and the events did not
change.
"""

from __future__ import annotations

import numpy as np
import pytest

import bitwise
import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from bitwise import FLOATS, same_bits
from minigrad import events
from minigrad.ops import reduce
from minigrad.ops.elementwise import Relu

# the awkward values (inf, NaN) make numpy warn; the bits are what is checked
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def awkward(dtype, shape, seed=0) -> np.ndarray:
    return bitwise.awkward(dtype, shape, seed)


def leaf(array) -> mg.Tensor:
    return mg.tensor(array, requires_grad=True)


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
            assert same_bits(a.data, b.data), (p.shape, a.data, b.data)
    assert any(g is not None and g.requires_grad for g in graphed)


def upstream(out: mg.Tensor, seed: int = 1) -> mg.Tensor:
    """A loss whose gradient at `out` is awkward (with -0.0, inf, NaN): sum(out * G)."""
    g = awkward(out.dtype, out.shape, seed) if out.data.size >= 4 else \
        np.random.default_rng(seed).standard_normal(out.shape).astype(out.dtype)
    return (out * mg.tensor(g)).sum()


# -- AddmmBackward0 / MmBackward0 ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("needs", ["all", "weight", "input", "bias"])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_backward_bits_plain_and_create_graph(dtype, needs, bias):
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((5, 4)).astype(dtype), requires_grad=needs in ("all",
                                                                                      "input"))
    w = mg.tensor(rng.standard_normal((3, 4)).astype(dtype),
                  requires_grad=needs in ("all", "weight"))
    b = mg.tensor(rng.standard_normal(3).astype(dtype), requires_grad=needs in ("all", "bias"))
    params = [t for t in (x, w, b) if t.requires_grad]
    if not bias:
        if needs == "bias":
            return
        b = None
    # (x * x) and (w * w) make the gradient of x and w depend on them, so create_graph has
    # something to record whichever of them requires grad
    grads_both_ways(lambda: upstream(F.linear(x * x, w * w, b) * F.linear(x, w, b)), params)


@pytest.mark.parametrize("layout", ["plain", "transposed"])
def test_mm_backward_bits_plain_and_create_graph(layout):
    rng = np.random.default_rng(1)
    a = leaf(rng.standard_normal((4, 6)).astype(np.float32))
    b0 = leaf(rng.standard_normal((6, 3) if layout == "plain" else (3, 6)).astype(np.float32))
    b = b0 if layout == "plain" else b0.t()
    grads_both_ways(lambda: upstream(a.mm(b) * a.mm(b)), [a, b0])


def test_linear_grad_layouts_unchanged():
    """The weight's gradient is C-contiguous (taken as .grad without a copy) either way."""
    lin = nn.Linear(4, 3)
    x = mg.tensor(np.random.default_rng(2).standard_normal((5, 4)).astype(np.float32))
    lin(x).sum().backward()
    assert lin.weight.grad.data.flags.c_contiguous
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


# -- ReluBackward0 ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(6, 7), (5,), ()])
def test_relu_backward_bits_plain_and_create_graph(dtype, shape):
    x = leaf(awkward(dtype, shape, 4) if shape and np.prod(shape) >= 4 else
             np.array(-0.5, dtype))
    grads_both_ways(lambda: upstream(F.relu(x * x - 1) * x), [x])


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
    assert same_bits(y.data, np.maximum(x, 0, dtype=x.dtype))
    assert Relu._zeros[np.dtype(dtype)].shape == () and not Relu._zeros[np.dtype(dtype)].any()


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
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"


# -- LogSoftmaxBackward0, NllLossBackward0 --------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, dim", [((6, 7), 1), ((6, 7), 0), ((7,), 0), ((2, 3, 4), 1),
                                        ((), 0)])
def test_log_softmax_backward_bits_plain_and_create_graph(dtype, shape, dim):
    x = leaf(np.random.default_rng(5).standard_normal(shape).astype(dtype))
    grads_both_ways(lambda: upstream(F.log_softmax(x, dim) * x), [x])


@pytest.mark.parametrize("keepdim", [True, False])
def test_sum_of_a_0d_tensor_over_dim_0_is_itself(keepdim):
    """(PyTorch allows dim 0 and -1 on a 0-d tensor; log_softmax's backward sums that way.)"""
    x = leaf(2.5)
    y = x.sum(0, keepdim=keepdim) * 3
    assert y.shape == () and y.item() == 7.5
    y.backward()
    assert x.grad.item() == 3.0
    assert mg.tensor(2.5).sum(-1).item() == 2.5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("scale", [1.0, -3.0, np.inf])
def test_cross_entropy_backward_bits_plain_and_create_graph(dtype, reduction, scale):
    rng = np.random.default_rng(6)
    x = leaf(rng.standard_normal((5, 4)).astype(dtype))
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


def test_log_softmax_output_modified_in_place_still_raises():
    x = leaf([[1.0, 2.0, 3.0]])
    y = F.log_softmax(x, 1)
    with mg.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="output 0 of LogSoftmax,"):
        y.sum().backward()


# -- the whole step -----------------------------------------------------------------------------
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
        assert same_bits(a.data, b.data)
        assert a.grad_fn is None and b.requires_grad


def test_mlp_step_graph_and_backward_events_unchanged():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))
    x = mg.tensor(np.ones((4, 6), np.float32))
    loss = F.cross_entropy(model(x), mg.tensor([0, 2, 1, 2]))
    node, names = loss.grad_fn, []
    while node is not None and node.name() != "AccumulateGrad":
        names.append(node.name())
        node = next((n for n, _ in node.next_functions if n is not None
                     and n.name() not in ("AccumulateGrad", "TBackward0")), None)
    assert names == ["NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0",
                     "ReluBackward0", "AddmmBackward0"]
    seen = []
    with events.listen(seen.append):
        loss.backward()
    steps = [(e.node.name(), e.summed_dims, e.grad_inputs) for e in seen
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


# -- sum_to_array -------------------------------------------------------------------------------
@pytest.mark.parametrize("g_shape, shape", [((4, 3), (3,)), ((2, 4, 3), (3,)), ((4, 3), (4, 1)),
                                             ((4, 3), (1, 3)), ((2, 4, 3), (4, 1)),
                                             ((4, 3), (4, 3)), ((4, 3), ()), ((5,), ())])
def test_sum_to_array_is_keepdims_sum_and_reshape(g_shape, shape):
    g = awkward(np.float32, g_shape, 9)
    got, dims = reduce.sum_to_array(g, shape)
    assert type(got) is np.ndarray
    assert dims == reduce.sum_to_dims(g_shape, shape)
    want = g.sum(axis=dims, keepdims=True).reshape(shape) if dims else g.reshape(shape)
    assert same_bits(got, want)


@pytest.mark.parametrize("g_shape, shape", [((2, 3), (3, 2)), ((3,), (2, 3)), ((4, 3), (2,))])
def test_sum_to_array_still_refuses_shapes_that_do_not_broadcast(g_shape, shape):
    with pytest.raises(ValueError):
        reduce.sum_to_array(np.zeros(g_shape, np.float32), shape)
