"""Embedding against PyTorch: lookups, the weight's gradient (repeats add up, padding_idx gets
none), max_norm, from_pretrained, init, repr and errors."""

from __future__ import annotations

import numpy as np
import pytest
from layer_parity import assert_layer_matches

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.testing import gradgradcheck

IDX = np.array([[1, 2, 0, 2], [4, 1, 1, 3]])


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -1},
                                    {"max_norm": 0.5}, {"max_norm": 1.0, "norm_type": 1.0}])
def test_embedding_matches_pytorch(kwargs, torch_mod):
    assert_layer_matches(lambda lib: lib.nn.Embedding(5, 3, **kwargs), IDX, torch_mod)


def test_padding_row_gets_no_gradient_and_starts_at_zero():
    emb = nn.Embedding(5, 3, padding_idx=2)
    assert np.all(emb.weight.array[2] == 0)
    emb(mg.tensor(IDX)).sum().backward()
    assert np.all(emb.weight.grad.array[2] == 0)
    np.testing.assert_array_equal(emb.weight.grad.array[1], [3.0, 3.0, 3.0])  # used 3 times


def test_node_has_one_edge_to_the_weight(torch_mod):
    for lib in (mg, torch_mod):
        w = lib.tensor(np.ones((5, 3)), requires_grad=True)
        y = lib.nn.functional.embedding(lib.tensor(IDX), w)
        assert y.grad_fn.name() == "EmbeddingBackward0"
        assert len(y.grad_fn.next_functions) == 1


def test_double_backward():
    w = mg.tensor(np.random.default_rng(0).standard_normal((5, 3)), requires_grad=True)
    assert gradgradcheck(lambda w: F.embedding(IDX, w) ** 2, (w,))


def test_from_pretrained_shares_and_freezes(torch_mod):
    table = mg.tensor(np.arange(12.0).reshape(4, 3))
    emb = nn.Embedding.from_pretrained(table)
    assert not emb.weight.requires_grad and emb.weight.array is table.array
    np.testing.assert_array_equal(emb(mg.tensor([3, 0])).array, table.array[[3, 0]])
    assert nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    theirs = torch_mod.nn.Embedding.from_pretrained(torch_mod.tensor(table.array),
                                                    padding_idx=1)
    assert repr(nn.Embedding.from_pretrained(table, padding_idx=1)) == repr(theirs)


def test_init_and_repr():
    mg.manual_seed(0)
    emb = nn.Embedding(1000, 4)
    assert abs(emb.weight.array.std() - 1) < 0.05  # N(0, 1)
    assert repr(nn.Embedding(5, 3, padding_idx=0, max_norm=1.0)) == (
        "Embedding(5, 3, padding_idx=0, max_norm=1.0)")
    assert repr(nn.Embedding(5, 3)) == "Embedding(5, 3)"


@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.Embedding(5, 3)(mg.tensor([5])), IndexError, "index out of range in self"),
    (lambda: nn.Embedding(5, 3)(mg.tensor([1.0])), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
     "Long, Int; but got minigrad.FloatTensor instead"),
    (lambda: nn.Embedding(5, 3, padding_idx=5), AssertionError,
     "Padding_idx must be within num_embeddings"),
    (lambda: nn.Embedding.from_pretrained(mg.ones(3)), AssertionError,
     "Embeddings parameter is expected to be 2-dimensional"),
])
def test_misuse_gets_pytorch_s_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
