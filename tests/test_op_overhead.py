"""The ops' shortcuts for when nothing is recorded give exactly what `Function.apply` gives.

Inside backward and under no_grad, the shape ops, `sum`, `mm` and `where` skip `apply` and
build the result themselves (`view_of`, `plain`). Each test compares that result with the one
the general path returns (the op class's `apply`, unrecorded): same bits, dtype, shape,
strides, memory and version counter; and checks that recorded calls keep their nodes and
that misuse still raises the same error either way.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg
from bitwise import FLOATS, awkward, same_bits
from minigrad.ops import linalg, linear, nn_ops, shaping
from minigrad.ops import reduce as red
from minigrad.ops import selection as sel
from minigrad.ops import shape as sh
from minigrad.ops.base import normalize_dims

# inf and NaN inputs on purpose: numpy's warnings about them are expected
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")



def assert_same_tensor(fast, general, input=None) -> None:
    """Same data (bits, dtype, shape, strides), no graph; a view shares input's memory and
    version counter and names it as its base, as `Function.apply` does for view ops."""
    assert same_bits(fast.data, general.data)
    assert fast.data.strides == general.data.strides
    assert fast.data.flags.writeable == general.data.flags.writeable
    assert fast.grad_fn is None and general.grad_fn is None
    assert not fast.requires_grad and not general.requires_grad
    assert fast._base is general._base
    if general.data.size:
        assert np.shares_memory(fast.data, general.data) == (general._base is not None)
    if general._base is not None:
        assert fast._vc is input._vc and general._vc is input._vc


def general(op, *args, **kwargs):
    """What `Function.apply` returns for the op, nothing recorded."""
    with mg.no_grad():
        return op.apply(*args, **kwargs)


# -- the views ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.bool_])
@pytest.mark.parametrize("layout", ["plain", "transposed", "sliced"])
def test_unrecorded_views_are_what_apply_gives(dtype, layout):
    base = awkward(np.float64, (6, 4))
    base = base.astype(dtype) if dtype in FLOATS else np.nan_to_num(base).astype(dtype)
    data = {"plain": base[:4, :3].copy(), "transposed": base.T[:3, :4].T,
            "sliced": base[::2, 1:]}[layout]
    cases = [
        (lambda x: x.t(), sh.T, {}),
        (lambda x: x.transpose(0, 1), sh.Transpose, {"d0": 0, "d1": 1}),
        (lambda x: x.transpose(-1, 0), sh.Transpose, {"d0": -1, "d1": 0}),
        (lambda x: x.unsqueeze(0), sh.Unsqueeze, {"dim": 0}),
        (lambda x: x.unsqueeze(-1), sh.Unsqueeze, {"dim": 2}),
        (lambda x: x.unsqueeze(1), sh.Unsqueeze, {"dim": 1}),
        (lambda x: x.expand(2, *x.shape), sh.Expand, {"shape": (2,) + data.shape}),
        (lambda x: x.expand(-1, -1), sh.Expand, {"shape": data.shape}),
        (lambda x: x[None].squeeze(0), None, None),
    ]
    for fast_fn, op, kwargs in cases:
        for grad_mode in (False, True):  # an input that needs no grad: nothing recorded either
            x = mg.tensor(data)
            with mg.set_grad_enabled(grad_mode):
                fast = fast_fn(x)
            if op is None:
                continue
            assert_same_tensor(fast, general(op, x, **kwargs), x)


@pytest.mark.parametrize("shape, new", [((4, 3), (3, 4)), ((4, 3), (-1,)), ((4, 3), (2, -1, 3)),
                                        ((4, 3), (12, 1)), ((1,), ()), ((), (1, 1)),
                                        ((0, 3), (-1, 3)), ((2, 0), (0,))])
def test_unrecorded_view_and_reshape_are_what_apply_gives(shape, new):
    x = mg.tensor(awkward(np.float32, shape) if np.prod(shape) >= 4 else np.ones(shape))
    full = shaping._infer(new, x.data.size, new)
    with mg.no_grad():
        assert_same_tensor(x.view(*new), general(sh.View, x, shape=full), x)
        assert_same_tensor(x.view(new), general(sh.View, x, shape=full), x)
        assert_same_tensor(x.reshape(*new), general(sh.View, x, shape=full), x)


def test_unrecorded_reshape_of_strided_memory_is_a_view_of_it():
    x = mg.tensor(awkward(np.float32, (4, 7)))[:, ::2]  # reshape (-1,) needs a copy
    with mg.no_grad():
        assert_same_tensor(x.reshape(2, 2, 4), general(sh.ReshapeAlias, x, shape=(2, 2, 4)), x)
        flat = x.reshape(-1)  # a copy, then a view of the copy
        assert same_bits(flat.data, x.data.reshape(-1))
        assert not np.shares_memory(flat.data, x.data)


@pytest.mark.parametrize("shape, dims, op", [((1, 3), 0, sh.SqueezeDim), ((4, 3), 0, sh.SqueezeDim),
                                             ((4, 1), -1, sh.SqueezeDim),
                                             ((1, 3, 1), None, sh.Squeeze),
                                             ((1, 3, 1), (0, 2), sh.SqueezeDims),
                                             ((1, 3, 1), (0, 1), sh.SqueezeDims),
                                             ((1,), 0, sh.SqueezeDim), ((), 0, sh.SqueezeDim),
                                             ((), -1, sh.SqueezeDim), ((), None, sh.Squeeze)])
def test_unrecorded_squeeze_is_what_apply_gives(shape, dims, op):
    x = mg.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    all_dims = normalize_dims(dims, x.ndim)
    with mg.no_grad():
        fast = x.squeeze() if dims is None else x.squeeze(dims)
        assert_same_tensor(fast, general(op, x, dims=all_dims), x)


def test_unrecorded_views_share_the_version_counter():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    with mg.no_grad():
        for view in (x.t(), x.view(4), x.unsqueeze(0), x.transpose(0, 1), x[None].squeeze(0)):
            before = x._version
            view.add_(1.0)
            assert x._version == before + 1 and view._version == x._version
    assert x.data.tolist() == [[6.0, 7.0], [8.0, 9.0]]


def test_a_view_made_under_no_grad_is_still_checked_by_backward():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()  # saves its output
    with mg.no_grad():
        y.view(2, 1).mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# -- sum, mm, where, sum_to_size --------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (0, False), (1, True),
                                          (-1, False), ((0, 1), False), ((1, 0), True), ((), True)])
def test_unrecorded_sum_is_what_apply_gives(dtype, dim, keepdim):
    x = awkward(np.float64, (4, 3))
    x = mg.tensor(x.astype(dtype) if dtype in FLOATS else np.nan_to_num(x).astype(dtype))
    with mg.no_grad():
        fast = x.sum(dim, keepdim=keepdim)
    if dim is None and not keepdim:
        slow = general(red.Sum, x)
    else:
        slow = general(red.SumDim, x, dims=normalize_dims(dim, 2), keepdim=keepdim)
    assert_same_tensor(fast, slow)
    assert type(fast.data) is np.ndarray
    assert same_bits(fast.data, np.asarray(np.sum(x.data, axis=dim, keepdims=keepdim)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (0, False), (1, True),
                                          (-1, False), ((0, 1), False), ((), True)])
def test_unrecorded_mean_is_what_apply_gives(dtype, dim, keepdim):
    x = mg.tensor(awkward(np.float64, (4, 3)).astype(dtype))
    with mg.no_grad():
        fast = x.mean(dim, keepdim=keepdim)
    if dim is None and not keepdim:
        slow = general(red.Mean, x)
    else:
        slow = general(red.MeanDim, x, dims=normalize_dims(dim, 2), keepdim=keepdim)
    assert_same_tensor(fast, slow)
    assert type(fast.data) is np.ndarray
    assert same_bits(fast.data, np.asarray(np.mean(x.data, axis=dim, keepdims=keepdim,
                                                   dtype=dtype)))


def test_recorded_mean_keeps_its_nodes_and_gradients():
    x = mg.tensor(np.ones((4, 3), np.float32), requires_grad=True)
    assert x.mean().grad_fn.name() == "MeanBackward0"
    assert x.mean(0).grad_fn.name() == "MeanBackward1"
    x.mean().backward()
    x.mean((0, 1), keepdim=True).backward()
    x.mean(()).sum().backward()
    twelfth = np.float32(1) / 12
    assert same_bits(x.grad.data, np.full((4, 3), twelfth + twelfth + np.float32(1)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_of_a_vector_over_its_only_dim_is_a_0d_array(dtype):
    x = mg.tensor(np.arange(5, dtype=dtype))
    for grad in (False, True):
        with mg.set_grad_enabled(grad):
            out = mg.tensor(x.data, requires_grad=grad).sum(0)
        assert type(out.data) is np.ndarray and out.shape == () and out.dtype == dtype


def test_recorded_sum_keeps_its_nodes_and_gradients():
    x = mg.tensor(awkward(np.float32), requires_grad=True)
    assert x.sum().grad_fn.name() == "SumBackward0"
    assert x.sum(0).grad_fn.name() == "SumBackward1"
    assert x.sum(None, keepdim=True).grad_fn.name() == "SumBackward1"
    x.sum(1, keepdim=True).backward(mg.tensor(np.arange(4, dtype=np.float32)[:, None]))
    assert same_bits(x.grad.data, np.repeat(np.arange(4, dtype=np.float32)[:, None], 3, 1))


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
@pytest.mark.parametrize("layout", ["plain", "transposed"])
def test_unrecorded_mm_is_what_apply_gives(dtype, layout):
    a = awkward(np.float64, (4, 3)).astype(dtype) if dtype != np.int64 else \
        np.arange(12).reshape(4, 3)
    b = (awkward(np.float64, (5, 3), seed=1).astype(dtype) if dtype != np.int64
         else np.arange(15).reshape(5, 3)).T
    if layout == "plain":
        b = b.copy()
    A, B = mg.tensor(a), mg.tensor(b)
    with mg.no_grad():
        assert_same_tensor(A.mm(B), general(linalg.Mm, A, B))


@pytest.mark.parametrize("cond", [np.array([[True, False, True]] * 4), [True, False, True],
                                  mg.tensor([[1, 0, 2]] * 4), np.ones((4, 3), np.int8)])
@pytest.mark.parametrize("other", [0.0, -0.0, 2, "tensor"])
def test_unrecorded_where_is_what_apply_gives(cond, other):
    a = mg.tensor(awkward(np.float32))
    b = mg.tensor(awkward(np.float32, seed=1)) if other == "tensor" else other
    c = np.asarray(cond.data if isinstance(cond, mg.Tensor) else cond, dtype=bool)
    with mg.no_grad():
        assert_same_tensor(sel.where(cond, a, b), general(sel.Where, a, b, condition=c))
        assert_same_tensor(sel.where(cond, b, a), general(sel.Where, b, a, condition=c))
        assert_same_tensor(mg.where(cond, a, b), general(sel.Where, a, b, condition=c))


def test_where_records_when_either_side_requires_grad():
    c = np.array([True, False])
    a, b = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([3.0, 4.0])
    assert sel.where(c, a, b).grad_fn.name() == "WhereBackward0"
    assert sel.where(c, b, a).grad_fn.name() == "WhereBackward0"
    assert sel.where(c, b, 0.0).grad_fn is None
    with mg.no_grad():
        assert sel.where(c, a, b).grad_fn is None


@pytest.mark.parametrize("g_shape, shape", [((128, 256), (256,)), ((4, 3), (1, 3)),
                                            ((4, 3), (4, 1)), ((2, 4, 3), (4, 1)), ((4, 3), (4, 3)),
                                            ((2, 1, 3), (1, 3)), ((5,), ()), ((), ()),
                                            ((3, 1), (1,))])
def test_sum_to_dims_is_the_dims_broadcasting_added(g_shape, shape):
    lead = len(g_shape) - len(shape)
    expected = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                          if n == 1 and g_shape[lead + i] != 1)
    assert red.sum_to_dims(g_shape, shape) == expected
    g = np.ones(g_shape, np.float32)
    if g_shape != shape:
        assert mg.tensor(g).sum_to_size(shape).shape == shape


# -- dims -------------------------------------------------------------------------------------
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


# -- the same errors, recorded or not ---------------------------------------------------------
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
    (lambda x: x.expand(4, 4), RuntimeError, "expand: the shape (4, 3) cannot be expanded to "
                                             "(4, 4)"),
    (lambda x: x.expand(3), RuntimeError, "expand: the number of sizes provided (1)"),
    (lambda x: x.expand(-2, 4, 3), RuntimeError, "cannot be expanded to (-2, 4, 3)"),
    (lambda x: x.expand(1, 3), ValueError, None),  # numpy's own refusal, as before
    (lambda x: x.mm(x), RuntimeError, "mm: shapes (4, 3) and (4, 3) cannot be multiplied"),
    (lambda x: x.mm(x[0]), RuntimeError, "mm: shapes (4, 3) and (3,) cannot be multiplied"),
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


# -- the MLP's ops ----------------------------------------------------------------------------
def addmm_general(bias, mat1, mat2):
    return bias + mat1 @ mat2  # what Addmm computed before it added in place


@pytest.mark.parametrize("dtype", FLOATS)
def test_linear_bias_added_in_place_gives_the_same_bits(dtype):
    x = awkward(dtype, (6, 4))
    w = awkward(dtype, (5, 4), seed=1)
    b = np.array([np.nan, -0.0, np.inf, 1.5, -np.inf], dtype)
    out = linear.linear(mg.tensor(x), mg.tensor(w, requires_grad=True),
                        mg.tensor(b, requires_grad=True))
    assert out.grad_fn.name() == "AddmmBackward0"
    with np.errstate(invalid="ignore", over="ignore"):
        assert same_bits(out.data, addmm_general(b, x, w.T))


@pytest.mark.parametrize("bias", [np.ones(5, np.float64), np.ones((6, 5), np.float32),
                                  np.ones((1, 5), np.float32), np.ones((2, 6, 5), np.float32),
                                  np.float32(2.0), 2.0, 3])
def test_addmm_other_biases_broadcast_and_promote_as_before(bias):
    x, w = awkward(np.float32, (6, 4)), awkward(np.float32, (4, 5), seed=1)
    b = mg.tensor(bias) if isinstance(bias, np.ndarray) else bias
    with mg.no_grad():
        out = linear.Addmm.apply(b, mg.tensor(x), mg.tensor(w))
    with np.errstate(invalid="ignore"):
        assert same_bits(out.data, addmm_general(bias, x, w))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_and_log_softmax_forward_bits_unchanged(dtype, dim):
    x = np.random.default_rng(8).standard_normal((5, 7)).astype(dtype) * 10
    x[0, 0] = -np.inf
    shifted = x - np.max(x, axis=dim, keepdims=True)
    e = np.exp(shifted)
    assert same_bits(mg.tensor(x).softmax(dim).data, e / e.sum(axis=dim, keepdims=True))
    assert same_bits(mg.tensor(x).log_softmax(dim).data,
                     shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True)))
    node = mg.tensor(x, requires_grad=True).log_softmax(dim).grad_fn
    assert node.name() == "LogSoftmaxBackward0" and isinstance(node, nn_ops.LogSoftmax._node_class)


@pytest.mark.parametrize("shape, dim", [((5, 7), 1), ((5, 7), 0), ((7,), 0), ((), 0),
                                        ((2, 3, 4), -1)])
@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_unrecorded_softmax_and_log_softmax_are_what_apply_gives(shape, dim, dtype):
    x = mg.tensor((np.random.default_rng(9).standard_normal(shape) * 4).astype(dtype))
    d = dim % max(len(shape), 1)
    with mg.no_grad():
        assert_same_tensor(x.softmax(dim), general(nn_ops.Softmax, x, dim=d))
        assert_same_tensor(x.log_softmax(dim), general(nn_ops.LogSoftmax, x, dim=d))
        assert type(x.log_softmax(dim).data) is np.ndarray


@pytest.mark.parametrize("bias", [np.arange(5, dtype=np.float32), np.ones(5, np.float64), None])
@pytest.mark.parametrize("x_shape", [(6, 4), (2, 3, 4), (4,)])
def test_linear_under_no_grad_is_what_the_recorded_path_computes(bias, x_shape):
    x = mg.tensor(awkward(np.float32, x_shape) if np.prod(x_shape) >= 4 else np.ones(x_shape))
    w = mg.tensor(awkward(np.float32, (5, 4), seed=1), requires_grad=True)
    b = None if bias is None else mg.tensor(bias, requires_grad=True)
    recorded = linear.linear(x, w, b)
    with mg.no_grad():
        fast = linear.linear(x, w, b)
    assert fast.grad_fn is None and recorded.grad_fn is not None
    assert same_bits(fast.data, recorded.data)


def test_linear_module_reads_its_current_parameters():
    lin = mg.nn.Linear(4, 3)
    x = mg.tensor(np.ones((2, 4), np.float32))
    lin.weight = mg.nn.Parameter(mg.zeros(3, 4))
    lin.bias = None
    assert lin(x).data.tolist() == [[0.0] * 3] * 2
    assert mg.nn.Linear(4, 3, bias=False)(x).grad_fn.name() == "MmBackward0"


# -- nll_loss: which labels are looked for ------------------------------------------------------
@pytest.mark.parametrize("labels, ignore_index", [
    ([0, 2, 1, 2], -100), ([0, 2, 1, 2], 2), ([0, 2, 1, 2], 3), ([0, -100, 1, 2], -100),
    ([0, 7, 1, 2], 7), ([0, -1, 1, 2], -1), ([1, 1, 1, 1], 1),
])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.int8])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
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
        np.testing.assert_allclose(loss.data, want, rtol=1e-6)
        np.testing.assert_allclose(t.grad.data, grad, rtol=1e-6)


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


# -- in place, nothing recorded (an optimizer's update) -----------------------------------------
def test_unrecorded_in_place_with_numbers_and_tensors():
    p = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with mg.no_grad():
        p -= 0.5 * mg.tensor([[2.0, 2.0], [2.0, 2.0]])
        p.mul_(2)
        p.add_(mg.tensor([1.0, -1.0]))  # broadcast along the rows
        p.div_(2.0)
    assert p.data.tolist() == [[0.5, 0.5], [2.5, 2.5]] and p._version == 4
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
        assert x.data.tolist() == [1.0, 2.0] and x._version == 0  # nothing written
        e = mg.tensor([1.0]).expand(3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            e.mul_(2.0)
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            e.add_(mg.tensor([1.0, 2.0, 3.0]))
        assert e.data.tolist() == [1.0, 1.0, 1.0] and e._version == 0
