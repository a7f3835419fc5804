"""The MLP step's cheaper op paths give what the general paths give, bit for bit.

TBackward0 and ReluBackward0 take numpy shortcuts when nothing is recorded; these tests feed
them the gradients the shortcuts do not expect (another dtype, another shape, a transposed
layout) and compare with the recorded (create_graph=True) path and with numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from bitwise import FLOATS, awkward, same_bits
from minigrad import events
from minigrad.ops import losses as L
from test_mlp_overhead import grads_both_ways, leaf, upstream

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


# -- TBackward0 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 4), (1, 4), (5,), ()])
def test_t_backward_bits_plain_and_create_graph(dtype, shape):
    w = leaf(awkward(dtype, shape, 11) if np.prod(shape) >= 4 else np.array(1.5, dtype))
    grads_both_ways(lambda: upstream(w.t() * w.t()), [w])


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
    assert out.shape == (3, 4) and same_bits(out.data, g.T)
    # a transposed array is not laid out as .grad must be: the engine copied it
    assert w.grad.data.flags.c_contiguous and same_bits(w.grad.data, g.T)
    assert not np.shares_memory(w.grad.data, out.data)


def test_t_backward_under_create_graph_is_still_a_recorded_view():
    w = leaf(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    y = w.t()
    (gw,) = mg.autograd.grad((y * y).sum(), w, create_graph=True)
    assert gw.grad_fn.name() == "TBackward0" and gw._base is not None
    gw.sum().backward()
    assert same_bits(w.grad.data, np.full((2, 3), 2.0, np.float32))


# -- ReluBackward0 ------------------------------------------------------------------------------
@pytest.mark.parametrize("create_graph", [False, True])
def test_relu_backward_with_a_gradient_of_another_dtype(create_graph):
    x = leaf(awkward(np.float32, (4, 3), 14))
    y = F.relu(x * 1.0)
    g = awkward(np.float64, (4, 3), 15)
    y.backward(mg.tensor(g), create_graph=create_graph)
    want = np.where(y.data > 0, g, 0.0).astype(np.float32)
    assert same_bits(x.grad.data, want)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("new_grad", [np.array([2.0, -0.0, np.inf], np.float32),
                                      np.array([[-1.0], [np.nan]], np.float32),
                                      np.array([3, -1, 4])])
def test_relu_backward_with_a_gradient_a_pre_hook_reshaped(create_graph, new_grad):
    """A pre-hook may hand backward any array: not the shortcut's case, np.where's result."""
    x = leaf(np.array([[-1.0, 0.0, 2.0], [3.0, -0.0, np.inf]], np.float32))
    y = F.relu(x)
    y.grad_fn.register_prehook(lambda grads: (mg.tensor(new_grad),))
    seen = []
    with events.listen(seen.append):
        y.sum().backward(create_graph=create_graph)
    (step,) = [e for e in seen if isinstance(e, events.BackwardStep)
               and e.node.name() == "ReluBackward0"]
    assert same_bits(step.grad_inputs[0].data, np.where(y.data > 0, new_grad, 0.0))


# -- nll_loss / cross_entropy: the usual (N, C) case skips the other shape checks ------------
@pytest.mark.parametrize("x_shape, labels, error, words", [
    ((3, 4), [0, 1], ValueError, "Expected input batch_size (3) to match target batch_size (2)."),
    ((3, 4), 1, ValueError, "Expected target of 1 dims for input of shape (3, 4) (N, C, ...), "
                            "got target of shape ()"),
    ((3, 4), [[0, 1, 2]], ValueError, "Expected target of 1 dims for input of shape (3, 4)"),
    ((4,), [1], ValueError, "Expected target of 0 dims for input of shape (4,)"),
    ((), 0, ValueError, "Expected target of 0 dims for input of shape () (N, C, ...)"),
    ((2, 4, 5), [[0] * 6] * 2, RuntimeError, "Expected target size [2, 5], got [2, 6]"),
    ((2, 4, 5), [0, 1], ValueError, "Expected target of 2 dims for input of shape (2, 4, 5)"),
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


@pytest.mark.parametrize("x_shape, labels", [((4,), 2), ((2, 4, 3), [[0, 1, 3], [2, 2, 0]]),
                                             ((0, 4), np.zeros(0, np.int64))])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_loss_other_shapes_still_accepted(x_shape, labels, loss):
    x = leaf(np.random.default_rng(16).standard_normal(x_shape).astype(np.float32))
    grads_both_ways(lambda: getattr(F, loss)(x * x, mg.tensor(labels), reduction="sum") * 3, [x])


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
