"""Shaping ops against PyTorch: what the op table cannot say (multi-output nodes, views that
share memory, PyTorch's errors word for word with nothing changed, defaults and edge cases).
The gradients of single-output calls are checked by the op table (tests/ops/test_ops_table.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg

A = np.arange(12, dtype=np.float64).reshape(4, 3) * 0.5 - 2


def pair(torch, array=A):
    """The same leaf in both engines."""
    return mg.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


def node_name(t) -> str | None:
    return None if t.grad_fn is None else t.grad_fn.name().split("::")[-1]


def assert_same(ours, theirs):
    """Same values, dtype and node, piece by piece for tuples."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_same(o, t)
        return
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=0, atol=0)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert node_name(ours) == node_name(theirs)


MULTI = [
    lambda x: x.split(2),
    lambda x: x.split(2, 1),
    lambda x: x.split([1, 3]),
    lambda x: x.split([3, 0, 1], dim=0),
    lambda x: x.chunk(3),
    lambda x: x.chunk(5),
    lambda x: x.chunk(2, dim=-1),
    lambda x: x.unbind(),
    lambda x: x.unbind(-1),
]
SLICES = [  # tensor_split: each piece its own SliceBackward0
    lambda x: x.tensor_split(3), lambda x: x.tensor_split([1, 3]), lambda x: x.tensor_split(
        [3, 1], dim=0), lambda x: x.tensor_split(2, dim=-1),
]


@pytest.mark.parametrize("fn", MULTI)
def test_pieces_share_one_node_numbered_like_pytorch(fn, torch_mod):
    x, tx = pair(torch_mod)
    ours, theirs = fn(x), fn(tx)
    assert_same(ours, theirs)
    assert len({id(p.grad_fn) for p in ours}) == 1
    assert [p.output_nr for p in ours] == [p.output_nr for p in theirs]
    node, tnode = ours[0].grad_fn, theirs[0].grad_fn
    assert [(n.name(), i) for n, i in node.next_functions] == \
        [(n.name(), i) for n, i in tnode.next_functions]


@pytest.mark.parametrize("fn", SLICES)
def test_tensor_split_pieces_are_slices(fn, torch_mod):
    x, tx = pair(torch_mod)
    ours, theirs = fn(x), fn(tx)
    assert_same(ours, theirs)
    assert [p.output_nr for p in ours] == [p.output_nr for p in theirs]
    assert all(p._base is x for p in ours)


@pytest.mark.parametrize("fn", MULTI + SLICES)
def test_pieces_used_or_not_give_pytorchs_gradient(fn, torch_mod):
    x, tx = pair(torch_mod)
    for used in ([0], [-1], None):
        x.grad = tx.grad = None
        for leaf in (x, tx):
            pieces = fn(leaf)
            chosen = pieces if used is None else [pieces[i] for i in used]
            sum((p * (k + 2)).sum() for k, p in enumerate(chosen)).backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_unbind_of_an_empty_dim_is_no_pieces(torch_mod):
    assert mg.zeros(0, 3, requires_grad=True).unbind() == torch_mod.zeros(0, 3).unbind() == ()


def test_pieces_are_views_sharing_memory_and_version():
    x = mg.tensor(A.copy())
    a, b = x.split(2)
    a[0, 0] = 100.0
    assert x.array[0, 0] == 100.0 and x._version == a._version == b._version == 1
    row = x.unbind()[3]
    row[1] = -7.0
    assert x.array[3, 1] == -7.0


def test_pieces_second_derivative(torch_mod):
    x, tx = pair(torch_mod)
    grads = []
    for engine, leaf in ((mg, x), (torch_mod, tx)):
        a, b = leaf.split(2)
        loss = (a ** 3).sum() + (b * a).sum()
        (g,) = engine.autograd.grad(loss, [leaf], create_graph=True)
        grads.append(engine.autograd.grad((g ** 2).sum(), [leaf])[0])
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy())


SINGLE = [
    lambda x, t: x.flip(0), lambda x, t: x.flip(0, 1), lambda x, t: t.flip(x, [-1]),
    lambda x, t: x.fliplr(), lambda x, t: x.flipud(), lambda x, t: x.roll(1),
    lambda x, t: x.roll(-2, 0), lambda x, t: t.roll(x, (1, 2), (0, 1)),
    lambda x, t: x.repeat(2, 3), lambda x, t: x.repeat(2, 1, 1), lambda x, t: x.repeat((1, 2)),
    lambda x, t: x.tile(2), lambda x, t: t.tile(x, (2, 1, 1)),
    lambda x, t: x.repeat_interleave(2), lambda x, t: x.repeat_interleave(3, dim=1),
    lambda x, t: t.repeat_interleave(x, t.tensor([0, 1, 2, 1]), dim=0),
    lambda x, t: x.repeat_interleave(t.tensor([2]), dim=1),
    lambda x, t: x.movedim(0, 1), lambda x, t: x.moveaxis(-1, 0),
    lambda x, t: t.movedim(x.reshape(2, 2, 3), (0, 1), (2, 0)),
    lambda x, t: x.unflatten(0, (2, 2)), lambda x, t: x.unflatten(-1, (-1, 1)),
    lambda x, t: x.diagonal(), lambda x, t: x.diagonal(1), lambda x, t: x.diagonal(-2),
    lambda x, t: t.diagonal(x, 0, 1, 0), lambda x, t: x.reshape(2, 2, 3).diagonal(0, -1, 0),
    lambda x, t: x[0].diag(), lambda x, t: x[0].diag(-1), lambda x, t: x.diag_embed(),
    lambda x, t: x.diag_embed(1, 0, 2), lambda x, t: x.tril(), lambda x, t: x.tril(-1),
    lambda x, t: x.triu(1), lambda x, t: t.triu(x.reshape(2, 2, 3), -1),
    lambda x, t: x.unfold(0, 2, 1), lambda x, t: x.unfold(1, 2, 2), lambda x, t: x.unfold(0, 4, 3),
    lambda x, t: t.hstack([x, x]), lambda x, t: t.vstack([x[0], x[1]]),
    lambda x, t: t.dstack([x, x]), lambda x, t: t.hstack([x[0], x[1]]),
    lambda x, t: x.narrow_copy(1, 1, 2), lambda x, t: x.narrow_copy(-1, -2, 1),
]


@pytest.mark.parametrize("fn", SINGLE)
def test_single_output_ops_match_pytorch(fn, torch_mod):
    x, tx = pair(torch_mod)
    ours, theirs = fn(x, mg), fn(tx, torch_mod)
    assert_same(ours, theirs)
    seed = np.linspace(-1, 1, ours.detach().numpy().size).reshape(ours.shape)
    ours.backward(mg.tensor(seed))
    theirs.backward(torch_mod.tensor(seed))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_diag_of_a_matrix_is_a_copy_recorded_as_diagonal(torch_mod):
    """PyTorch 2.13 calls its node DiagonalBackward0_copy; minigrad DiagonalBackward0."""
    x, tx = pair(torch_mod)
    ours, theirs = x.diag(1), tx.diag(1)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert theirs.grad_fn.name() == "DiagonalBackward0_copy"
    assert ours.grad_fn.name() == "DiagonalBackward0"
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    d = x.detach().diag()
    d[0] = 50.0
    assert x.array[0, 0] != 50.0  # a copy, not a view


def test_diagonal_and_unfold_are_views():
    x = mg.tensor(A.copy())
    x.diagonal()[1] = 9.0
    assert x.array[1, 1] == 9.0 and x._version == 1
    w = x.unfold(0, 2, 2)
    w[0, 0, 1] = -3.0
    assert x.array[1, 0] == -3.0
    overlapping = x.unfold(0, 2, 1)
    with pytest.raises(RuntimeError, match="more than one element of the written-to"):
        overlapping.mul_(2.0)


def test_unfold_of_a_0d_tensor(torch_mod):
    x, tx = pair(torch_mod, np.array(1.5))
    ours, theirs = x.unfold(0, 1, 1), tx.unfold(0, 1, 1)
    assert_same(ours, theirs)
    ours.sum().backward()
    theirs.sum().backward()
    assert x.grad.item() == tx.grad.item() == 1.0


ERRORS = [
    lambda x, t: x.split(0), lambda x, t: x.split(-1), lambda x, t: x.split([1, 2]),
    lambda x, t: x.split(2, 5), lambda x, t: x.chunk(0), lambda x, t: x.chunk(2, -3),
    lambda x, t: x.unbind(2), lambda x, t: t.tensor(1.0).unbind(),
    lambda x, t: x.flip(2), lambda x, t: x.flip(0, -2), lambda x, t: x[0].fliplr(),
    lambda x, t: t.tensor(1.0).flipud(), lambda x, t: x.roll((1, 2), 0),
    lambda x, t: x.roll((1, 2)), lambda x, t: x.roll(1, 2), lambda x, t: x.repeat(2),
    lambda x, t: x.repeat(-1, 2), lambda x, t: x.repeat_interleave(-1),
    lambda x, t: x.repeat_interleave(t.tensor([1, 2]), dim=0),
    lambda x, t: x.repeat_interleave(t.tensor([1, -2, 1, 1]), dim=0),
    lambda x, t: x.repeat_interleave(t.tensor([1.0, 2.0, 1.0, 1.0]), dim=0),
    lambda x, t: x.repeat_interleave(2, dim=2), lambda x, t: x.movedim((0, 0), (0, 1)),
    lambda x, t: x.movedim((0, 1), 0), lambda x, t: x.movedim(0, 2),
    lambda x, t: x.unflatten(0, (3, 2)), lambda x, t: x.unflatten(0, ()),
    lambda x, t: x.diagonal(0, 1, -1), lambda x, t: x.diagonal(0, 0, 2),
    lambda x, t: x.reshape(2, 2, 3).diag(), lambda x, t: x[0].tril(), lambda x, t: x[0].triu(1),
    lambda x, t: x.unfold(0, 5, 1), lambda x, t: x.unfold(0, 2, 0), lambda x, t: x.unfold(2, 1, 1),
    lambda x, t: x.diag_embed(0, 0, -3), lambda x, t: x.tensor_split(0),
    lambda x, t: x.tensor_split(t.tensor([[1]])), lambda x, t: x.narrow_copy(0, 3, 2),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_misuse_raises_pytorchs_error_and_changes_nothing(fn, torch_mod):
    x, tx = pair(torch_mod)
    with pytest.raises(Exception) as theirs:
        fn(tx, torch_mod)
    with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value).splitlines()[0])):
        fn(x, mg)
    assert x.grad is None and x._version == 0 and np.array_equal(x.array, A)


def test_normalize_dim_says_what_pytorch_says():
    from minigrad.ops.base import normalize_dim

    assert normalize_dim(-1, 2) == 1 and normalize_dim(0, 0) == 0 and normalize_dim(-1, 0) == 0
    with pytest.raises(IndexError, match=re.escape(
            "Dimension out of range (expected to be in range of [-2, 1], but got 5)")):
        normalize_dim(5, 2)


def _chain(t) -> list[str]:
    names, node = [], t.grad_fn
    while node is not None and node.next_functions:
        names.append(node.name().split("::")[-1])
        node = node.next_functions[0][0]
    return names


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_repeat_interleave_records_pytorchs_steps(shape, torch_mod):
    """A number of repeats: unsqueeze, expand, clone, view (after a flatten unless 1-D)."""
    array = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    ours = mg.tensor(array, requires_grad=True).repeat_interleave(2)
    theirs = torch_mod.tensor(array, requires_grad=True).repeat_interleave(2)
    assert _chain(ours) == _chain(theirs)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
