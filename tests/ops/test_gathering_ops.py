"""Indexing helpers against PyTorch: values, dtypes, nodes and gradients of the calls the op
table does not draw (index dtypes, broadcast masks, 0-d values, in-place forms), the integer
functions (nonzero, argwhere, where(cond)), and PyTorch's errors with nothing changed.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg

A = np.arange(12, dtype=np.float64).reshape(4, 3) * 0.5 - 2.25
IDX = [[0, 1, 2], [1, 2, 3]]
MASK = [[True, False, True], [False, False, True], [True, True, False], [False, True, False]]


def both(torch):
    """(engine, leaf A, int tensor maker) for minigrad and PyTorch."""
    return [(mg, mg.tensor(A, requires_grad=True)), (torch, torch.tensor(A, requires_grad=True))]


def node(t) -> str | None:
    return None if t.grad_fn is None else t.grad_fn.name().split("::")[-1]


CALLS = [
    lambda x, t: x.gather(0, t.tensor(IDX)),
    lambda x, t: x.gather(1, t.tensor(IDX, dtype=t.int32)[:, :2].T.contiguous()),
    lambda x, t: t.gather(x, -1, t.tensor([[2], [0], [0], [1]])),
    lambda x, t: x.scatter(0, t.tensor(IDX), x[:2] * 2),
    lambda x, t: x.scatter(1, t.tensor([[0], [2], [1], [0]]), -1.5),
    lambda x, t: x.scatter(0, t.tensor(IDX), value=3.0),
    lambda x, t: x.scatter_add(0, t.tensor([[0, 0, 0], [0, 3, 0]]), x[1:3] * 3),
    lambda x, t: t.scatter_add(x, 1, t.tensor([[1, 1]] * 4), x[:, :2]),
    lambda x, t: x.index_select(0, t.tensor([3, 0, 3])),
    lambda x, t: x.index_select(1, t.tensor(2)),
    lambda x, t: t.index_select(x, 0, t.tensor([1], dtype=t.int32)),
    lambda x, t: x.index_add(0, t.tensor([1, 1]), x[:2] * 2),
    lambda x, t: x.index_add(1, t.tensor([0, 2]), x[:, 1:], alpha=-0.5),
    lambda x, t: x.index_fill(1, t.tensor([0, 2]), 7.0),
    lambda x, t: x.index_fill(0, t.tensor([1]), x[0, 0] * 2),
    lambda x, t: x.masked_fill(t.tensor(MASK), -1.0),
    lambda x, t: x.masked_fill(t.tensor([True, False, True]), 2.0),
    lambda x, t: x[0].masked_fill(t.tensor(MASK), 2.0),
    lambda x, t: x.masked_fill(t.tensor(MASK), t.tensor(5.0)),
    lambda x, t: x.masked_fill(t.tensor(MASK), x[1, 1]),
    lambda x, t: t.masked_fill(x, t.tensor(MASK), 1),
    lambda x, t: x.masked_select(t.tensor(MASK)),
    lambda x, t: x[0].masked_select(t.tensor(MASK)),
    lambda x, t: t.masked_select(x, t.tensor([False, True, True])),
    lambda x, t: x.masked_scatter(t.tensor(MASK), x.flip(0) * 2),
    lambda x, t: x.take(t.tensor([[0, 11], [-1, 5]])),
    lambda x, t: t.take(x, t.tensor(4)),
    lambda x, t: (x * 1).masked_fill_(t.tensor(MASK), 0.0),
    lambda x, t: (x * 1).masked_fill_(t.tensor(MASK), x[0, 1]),
    lambda x, t: (x * 1).scatter_(0, t.tensor(IDX), 2.0),
    lambda x, t: (x * 1).scatter_(1, t.tensor([[0], [1], [2], [0]]), x[:, :1] * 4),
    lambda x, t: (x * 1).scatter_add_(0, t.tensor(IDX), x[2:]),
    lambda x, t: (x * 1).index_fill_(0, t.tensor([0, 3]), -2.0),
    lambda x, t: (x * 1).index_add_(0, t.tensor([2]), x[:1]),
    lambda x, t: (x * 1).masked_scatter_(t.tensor(MASK), x * 3),
    lambda x, t: t.zeros(4, 3, dtype=t.float64).scatter_(0, t.tensor(IDX), x[:2]),
]


@pytest.mark.parametrize("fn", CALLS)
def test_calls_match_pytorch_values_nodes_and_gradients(fn, torch_mod):
    (_, x), (_, tx) = both(torch_mod)
    ours, theirs = fn(x, mg), fn(tx, torch_mod)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert node(ours) == node(theirs)
    assert [None if n is None else n.name() for n, _ in ours.grad_fn.next_functions] == \
        [None if n is None else n.name() for n, _ in theirs.grad_fn.next_functions]
    seed = np.linspace(-1, 1, ours.detach().numpy().size).reshape(ours.shape)
    ours.backward(mg.tensor(seed))
    theirs.backward(torch_mod.tensor(seed))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("fn", [
    lambda x, t: x.gather(0, t.tensor(0)), lambda x, t: x.gather(-1, t.tensor([0, 0])),
    lambda x, t: x.index_select(0, t.tensor([0])), lambda x, t: x.index_select(0, t.tensor(0)),
    lambda x, t: x.scatter(0, t.tensor(0), 1.5), lambda x, t: x.scatter(0, t.tensor(0), x * 3),
    lambda x, t: x.index_fill(0, t.tensor([0]), -1.0), lambda x, t: x.take(t.tensor([0, -1])),
    lambda x, t: x.masked_fill(t.tensor(True), 1.0),
])
def test_a_0d_input_is_one_element_along_dim_0(fn, torch_mod):
    x, tx = mg.tensor(1.25, requires_grad=True), torch_mod.tensor(1.25, requires_grad=True)
    ours, theirs = fn(x, mg), fn(tx, torch_mod)
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    (ours * 2).sum().backward()
    (theirs * 2).sum().backward()
    assert x.grad.item() == tx.grad.item()


def test_a_0d_input_takes_one_index_only(torch_mod):
    with pytest.raises(RuntimeError) as theirs:
        torch_mod.tensor(1.0).index_select(0, torch_mod.tensor([0, 0]))
    with pytest.raises(RuntimeError, match=re.escape(str(theirs.value))):
        mg.tensor(1.0).index_select(0, mg.tensor([0, 0]))


def test_int_tensors_gather_scatter_and_fill_as_pytorch(torch_mod):
    for t in (mg, torch_mod):
        n = t.arange(6).reshape(2, 3)
        got = [n.gather(1, t.tensor([[2, 0], [1, 1]])), n.scatter(0, t.tensor([[1, 0, 1]]), 9),
               n.masked_fill(n > 2, 1.5), n.index_fill(1, t.tensor([0]), -1), n.take(
                   t.tensor([5, 0]))]
        if t is mg:
            ours = got
        else:
            theirs = got
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


def test_in_place_on_a_leaf_is_refused_and_changes_nothing():
    x = mg.tensor(A, requires_grad=True)
    for call in (lambda: x.masked_fill_(mg.tensor(MASK), 0.0),
                 lambda: x.scatter_(0, mg.tensor(IDX), 1.0),
                 lambda: x.index_fill_(0, mg.tensor([0]), 1.0)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
            call()
    assert np.array_equal(x.array, A) and x._version == 0


def test_in_place_with_a_src_that_requires_grad_is_recorded():
    target = mg.zeros(4, 3, dtype=mg.float64)
    src = mg.tensor(A[:2], requires_grad=True)
    target.scatter_(0, mg.tensor(IDX), src)
    assert target.grad_fn.name() == "ScatterBackward0" and target._version == 1
    target.sum().backward()
    np.testing.assert_array_equal(src.grad.numpy(), np.ones((2, 3)))


def test_in_place_does_not_broadcast_the_target():
    x = mg.zeros(3)
    with pytest.raises(RuntimeError, match=re.escape(
            "output with shape [3] doesn't match the broadcast shape [2, 3]")):
        x.masked_fill_(mg.ones(2, 3, dtype=mg.bool), 1.0)
    assert x._version == 0 and not x.array.any()


@pytest.mark.parametrize("make", [
    lambda t: t.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, -1.0]]), lambda t: t.tensor([0, 3, 0, 1]),
    lambda t: t.tensor(2.0), lambda t: t.tensor(0.0), lambda t: t.zeros(2, 0),
    lambda t: t.tensor([[[True, False]], [[False, True]]]),
])
def test_nonzero_argwhere_and_where_of_a_condition(make, torch_mod):
    ours, theirs = make(mg), make(torch_mod)
    pairs = [(ours.nonzero(), theirs.nonzero()), (mg.argwhere(ours), torch_mod.argwhere(theirs))]
    pairs += zip(ours.nonzero(as_tuple=True), theirs.nonzero(as_tuple=True))
    pairs += zip(mg.where(ours), torch_mod.where(theirs))
    assert len(mg.where(ours)) == len(torch_mod.where(theirs))
    for a, b in pairs:
        assert a.shape == tuple(b.shape) and str(a.dtype).endswith("int64")
        np.testing.assert_array_equal(a.numpy(), b.numpy())


ERRORS = [
    lambda x, t: x.gather(0, t.tensor(IDX).float()),
    lambda x, t: x.gather(0, t.tensor(IDX) + 2),
    lambda x, t: x.gather(0, t.tensor(IDX) - 3),
    lambda x, t: x.gather(0, t.tensor([0, 1])),
    lambda x, t: x.gather(1, t.zeros(5, 3, dtype=t.long)),
    lambda x, t: x.gather(2, t.tensor(IDX)),
    lambda x, t: x.scatter(0, t.tensor(IDX).double(), 1.0),
    lambda x, t: x.scatter(0, t.tensor(IDX) + 3, 1.0),
    lambda x, t: x.scatter(0, t.tensor(IDX)[0], 1.0),
    lambda x, t: x.scatter(0, t.tensor(IDX), t.ones(2, 3)),
    lambda x, t: x.scatter(0, t.tensor(IDX), t.ones(1, 1, dtype=t.float64)),
    lambda x, t: x.scatter(0, t.tensor(IDX), 1.0, reduce="max"),
    lambda x, t: x.scatter_add(0, t.tensor(IDX).float(), x),
    lambda x, t: x.scatter_add(0, t.tensor(IDX) + 5, x),
    lambda x, t: x.index_select(0, t.tensor([0.0])),
    lambda x, t: x.index_select(0, t.tensor([0, 9])),
    lambda x, t: x.index_select(0, t.tensor([-1])),
    lambda x, t: x.index_select(0, t.tensor([[0]])),
    lambda x, t: x.index_add(0, t.tensor([0.0]), x[:1]),
    lambda x, t: x.index_add(0, t.tensor([7]), x[:1]),
    lambda x, t: x.index_add(0, t.tensor([0]), x[:2]),
    lambda x, t: x.index_fill(0, t.tensor([0.0]), 1.0),
    lambda x, t: x.index_fill(0, t.tensor([0], dtype=t.int32), 1.0),
    lambda x, t: x.index_fill(0, t.tensor([7]), 1.0),
    lambda x, t: x.index_fill(0, t.tensor([0]), t.tensor([1.0])),
    lambda x, t: x.masked_fill(t.ones(4, 3), 0.0),
    lambda x, t: x.masked_fill(t.ones(4, 3, dtype=t.uint8), 0.0),
    lambda x, t: x.masked_fill(t.ones(4, 3, dtype=t.int64), 0.0),
    lambda x, t: x.masked_fill(t.tensor(MASK), t.tensor([1.0])),
    lambda x, t: x.masked_fill(t.ones(5, dtype=t.bool), 0.0),
    lambda x, t: x.masked_select(t.ones(4, 3)),
    lambda x, t: x.masked_scatter(t.tensor(MASK), t.ones(2, dtype=t.float64)),
    lambda x, t: x.masked_scatter(t.ones(4, 3), t.ones(12)),
    lambda x, t: x.masked_scatter(t.ones(4, 3), t.ones(12, dtype=t.float64)),
    lambda x, t: x.masked_scatter(t.ones(5, dtype=t.bool), t.ones(20, dtype=t.float64)),
    lambda x, t: x.masked_select(t.ones(5, dtype=t.bool)),
    lambda x, t: x.take(t.tensor([12])),
    lambda x, t: x.take(t.tensor([-13])),
    lambda x, t: x.take(t.tensor([1], dtype=t.int32)),
    lambda x, t: x.take(t.tensor([1.0])),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_misuse_raises_pytorchs_error_and_changes_nothing(fn, torch_mod):
    (_, x), (_, tx) = both(torch_mod)
    with pytest.raises(Exception) as theirs:
        fn(tx, torch_mod)
    words = str(theirs.value).splitlines()[0]
    with pytest.raises(type(theirs.value)) as ours:
        fn(x, mg)
    assert words in str(ours.value), (words, str(ours.value))
    assert x.grad is None and x._version == 0 and np.array_equal(x.array, A)


def test_scatter_with_reduce_has_no_derivative_as_in_pytorch():
    x = mg.tensor(A, requires_grad=True)
    y = x.scatter(0, mg.tensor(IDX), 2.0, reduce="multiply")
    expected = A.copy()
    for j, row in enumerate(np.array(IDX).T):
        for i in row:
            expected[i, j] *= 2.0
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    assert y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for 'scatter' with reduce"):
        y.sum().backward()
    assert x.grad is None
