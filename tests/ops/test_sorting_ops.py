"""Sorting and order statistics against PyTorch: the named tuples (type, fields, repr), ties
and NaN broken as PyTorch's CPU kernels break them, index dtypes, nodes, gradients; the
integer functions (argsort, unique, searchsorted, bincount, histc); PyTorch's errors.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg
from minigrad.surface import return_types

A = np.array([[3.0, -1.0, 2.0, 2.0], [0.5, 0.5, np.nan, -4.0], [1.0, 7.0, 1.0, 1.0]])
TIES = np.array([[2.0, 1.0, 2.0, 1.0, 3.0], [5.0, 5.0, 0.0, 0.0, 0.0], [1.0, 2.0, 2.0, 1.0, 1.0]])


def same(ours, theirs) -> None:
    np.testing.assert_array_equal(np.asarray(ours.detach().numpy()),
                                  np.asarray(theirs.detach().numpy()))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


DISTINCT = np.array([[3.0, -1.0, 2.5, 2.0], [0.5, 0.7, np.nan, -4.0], [1.0, 7.0, 1.2, 1.1]])
# sort, median and mode break ties as PyTorch does; topk and kthvalue choose among tied
# elements by their selection algorithm (PyTorch leaves it unspecified), so they meet no ties
TIES_KEPT = [
    lambda x: x.sort(), lambda x: x.sort(0), lambda x: x.sort(1, descending=True),
    lambda x: x.sort(stable=True, descending=True, dim=0), lambda x: x.sort(0, False),
    lambda x: x.median(1), lambda x: x.median(0, keepdim=True), lambda x: x.nanmedian(1),
    lambda x: x.nanmedian(0), lambda x: x.mode(), lambda x: x.mode(0, keepdim=True),
    lambda x: x.max(1), lambda x: x.min(0),
]
SELECTING = [
    lambda x: x.topk(2), lambda x: x.topk(1, dim=0, largest=False),
    lambda x: x.topk(3, largest=False, sorted=True), lambda x: x.topk(2, sorted=False),
    lambda x: x.kthvalue(2), lambda x: x.kthvalue(3, 0, keepdim=True),
]


@pytest.mark.parametrize("values, fn", [(v, f) for v in (A, TIES) for f in TIES_KEPT]
                         + [(DISTINCT, f) for f in SELECTING])
def test_values_and_indices_match_pytorch(fn, values, torch_mod):
    x, tx = mg.tensor(values, requires_grad=True), torch_mod.tensor(values, requires_grad=True)
    ours, theirs = fn(x), fn(tx)
    assert type(ours).__module__ == "minigrad.return_types"
    assert type(ours)._torch_name == type(theirs).__name__ and ours._fields == ("values",
                                                                                 "indices")
    values_, indices = ours
    same(values_, theirs.values)
    same(indices, theirs.indices)
    assert indices.grad_fn is None and not indices.requires_grad
    assert values_.grad_fn.name() == theirs.values.grad_fn.name()
    seed = np.linspace(-1, 1, values_.detach().numpy().size).reshape(values_.shape)
    values_.backward(mg.tensor(seed))
    theirs.values.backward(torch_mod.tensor(seed))
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("values", [A, TIES, np.array(2.5), np.array([4.0, 1.0, 3.0, 2.0])])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_all_elements_is_the_lower_one(name, values, torch_mod):
    x, tx = mg.tensor(values, requires_grad=True), torch_mod.tensor(values, requires_grad=True)
    ours, theirs = getattr(x, name)(), getattr(tx, name)()
    same(ours, theirs)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    ours.backward()
    theirs.backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_the_named_tuples_print_and_unpack_like_pytorchs(torch_mod):
    x = mg.tensor([[2.0, 1.0], [0.0, 3.0]])
    result = x.sort()
    text = repr(result)
    theirs = repr(torch_mod.tensor([[2.0, 1.0], [0.0, 3.0]]).sort())
    assert text == theirs.replace("torch.", "minigrad.")
    assert text.startswith("minigrad.return_types.sort(\nvalues=tensor(")
    values, indices = result
    assert values is result.values and indices is result[1]
    assert repr(x.max(0)).startswith("minigrad.return_types.max(\nvalues=")
    assert repr(x.min(0)).startswith("minigrad.return_types.min(\nvalues=")
    assert isinstance(x.topk(1), return_types.topk) and isinstance(x.topk(1), tuple)
    assert mg.return_types.median is return_types.median


def test_functions_and_0d_inputs(torch_mod):
    for fn in (lambda t, x: t.sort(x), lambda t, x: t.topk(x, 1), lambda t, x: t.median(x, 0),
               lambda t, x: t.kthvalue(x, 1), lambda t, x: t.mode(x), lambda t, x: t.msort(
                   x.reshape(1))):
        ours, theirs = fn(mg, mg.tensor(1.5)), fn(torch_mod, torch_mod.tensor(1.5))
        ours = ours if isinstance(ours, tuple) else (ours,)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        for a, b in zip(ours, theirs):
            same(a, b)


@pytest.mark.parametrize("call", [
    lambda t, x: t.argsort(x), lambda t, x: x.argsort(0, descending=True),
    lambda t, x: x.argsort(dim=1, stable=True), lambda t, x: t.unique(x),
    lambda t, x: x.unique(return_inverse=True, return_counts=True),
    lambda t, x: t.unique(x // 1, dim=0, return_counts=True),
    lambda t, x: t.unique(t.tensor([3, 1, 3, 2]), sorted=False, return_inverse=True),
    lambda t, x: t.searchsorted(t.tensor([1.0, 2.0, 2.0, 5.0]), t.tensor([2.0, 0.0, 9.0])),
    lambda t, x: t.searchsorted(t.tensor([1.0, 2.0, 2.0, 5.0]), t.tensor([[2.0]]), right=True),
    lambda t, x: t.searchsorted(t.tensor([1.0, 3.0]), t.tensor([[0.0, 2.0], [5.0, 3.0]])),
    lambda t, x: t.searchsorted(t.tensor([1.0, 3.0]), 2.0),
    lambda t, x: t.searchsorted(t.tensor([1.0, 2.0, 5.0]), t.tensor([2.0]), side="right",
                                out_int32=True),
    lambda t, x: t.searchsorted(t.tensor([[1.0, 3.0], [2.0, 4.0]]), t.tensor([[3.0], [3.0]])),
    lambda t, x: t.searchsorted(t.tensor([5.0, 1.0, 3.0]), t.tensor([2.0, 4.0]),
                                sorter=t.tensor([1, 2, 0])),
    lambda t, x: t.bincount(t.tensor([1, 1, 4])), lambda t, x: t.tensor([0, 2]).bincount(
        minlength=5),
    lambda t, x: t.bincount(t.tensor([1, 1, 3]), t.tensor([0.5, 1.0, 2.0])),
    lambda t, x: t.bincount(t.tensor([1, 1, 3]), t.tensor([1, 2, 3])),
    lambda t, x: t.bincount(t.tensor([0, 2]), t.tensor([1.0, 2.0], dtype=t.float64)),
    lambda t, x: t.histc(t.tensor([1.0, 2.0, 1.0, 7.0]), bins=4, min=0, max=3),
    lambda t, x: t.histc(t.tensor([2.0, 2.0]), bins=4), lambda t, x: x.histc(5),
])
def test_integer_results_match_pytorch(call, torch_mod):
    x = TIES * 1.5
    ours, theirs = call(mg, mg.tensor(x)), call(torch_mod, torch_mod.tensor(x))
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        same(a, b)
        assert a.grad_fn is None


ERRORS = [
    lambda t, x: x.sort(2), lambda t, x: x.topk(5), lambda t, x: x.topk(-1),
    lambda t, x: x.topk(1, dim=-3), lambda t, x: x.kthvalue(5), lambda t, x: x.kthvalue(0),
    lambda t, x: x.median(2), lambda t, x: t.zeros(0, 3).median(0),
    lambda t, x: t.zeros(0, 3).nanmedian(0), lambda t, x: x.mode(3), lambda t, x: x.argsort(2),
    lambda t, x: t.bincount(t.tensor([1.0, 2.0])), lambda t, x: t.bincount(t.tensor([1, -2])),
    lambda t, x: t.bincount(t.tensor([[1]])),
    lambda t, x: t.bincount(t.tensor([1, 2]), t.tensor([1.0])),
    lambda t, x: t.histc(t.tensor([1, 2])),
    lambda t, x: t.searchsorted(t.zeros(2, 3), t.zeros(3, 1)),
    lambda t, x: t.searchsorted(t.zeros(2, 3), t.zeros(2)),
    lambda t, x: t.searchsorted(t.zeros(2, 3), 1.0),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_misuse_raises_pytorchs_error_and_changes_nothing(fn, torch_mod):
    x, tx = mg.tensor(A, requires_grad=True), torch_mod.tensor(A, requires_grad=True)
    with pytest.raises(Exception) as theirs:
        fn(torch_mod, tx)
    with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value).splitlines()[0])):
        fn(mg, x)
    assert x.grad is None and x._version == 0
