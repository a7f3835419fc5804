"""What the nn state machine (test_state_machine_nn.py) found, each shrunk to a plain case and
run side by side with PyTorch: the same result (dtype, shape, values) or the same error (class
and words; minigrad may add a hint). What it found in tensor() of Python data is in
tests/core/test_python_data_torch.py."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from side_by_side import agree, outcome


def _huber_backward(t):
    x = t.ones(2, requires_grad=True)
    t.nn.functional.huber_loss(x, t.zeros(2, dtype=t.float64)).backward()


def _embedding_twice(t):
    weight = t.ones(3, 2, requires_grad=True)
    out = t.nn.functional.embedding(t.tensor([0, 2]), weight).sum()
    out.backward()
    out.backward()


def _empty_batch_norm_twice(t, affine):
    """Two losses of one empty BatchNorm output, each backward: PyTorch's graph of an empty
    batch saves the weight alone, so only an affine one refuses the second."""
    bn = t.nn.BatchNorm1d(3, affine=affine, track_running_stats=False)
    x = t.ones(2, 3, 0, requires_grad=True)
    y = bn(x)
    for _ in range(2):
        t.nn.functional.mse_loss(y, t.ones(2, 3, 0)).backward()
    return x.grad


def _weighted(t, weights, n, replacement):
    return list(t.utils.data.WeightedRandomSampler(weights, n, replacement=replacement))


CASES = {
    # Dropout: p=0 and empty inputs are the input itself; p=1 zeros in the input's dtype
    "dropout p=0 is the input": lambda t: (lambda x: t.nn.functional.dropout(x, 0.0) is x)(
        t.ones(3)),
    "dropout p=1 of float64": lambda t: t.nn.functional.dropout(t.ones(3, dtype=t.float64), 1.0),
    "dropout p=1 of int64": lambda t: t.nn.functional.dropout(t.ones(3, dtype=t.int64), 1.0),
    "dropout of an empty int": lambda t: t.nn.functional.dropout(t.ones(0, dtype=t.int64)),
    # convolutions: the bias's dtype first; an empty batch runs no kernel and checks no dtype
    "conv2d: bias dtype checked before the input's dims": lambda t: t.nn.functional.conv2d(
        t.ones(3), t.ones(2, 1, 1, 1), t.ones(2, dtype=t.float64)),
    "conv2d of an empty float64 batch": lambda t: t.nn.functional.conv2d(
        t.ones(0, 1, 3, 3, dtype=t.float64), t.ones(2, 1, 2, 2)),
    "conv2d of an empty int64 batch": lambda t: t.nn.functional.conv2d(
        t.ones(0, 1, 3, 3, dtype=t.int64), t.ones(2, 1, 2, 2)),
    "conv1d of an empty plane": lambda t: t.nn.functional.conv1d(
        t.ones(2, 1, 0), t.ones(2, 1, 1)),
    "conv_transpose2d of an empty batch to an empty plane": lambda t:
        t.nn.functional.conv_transpose2d(t.ones(0, 1, 1, 1), t.ones(1, 1, 2, 2), padding=1),
    "conv_transpose2d of an empty batch, output too small": lambda t:
        t.nn.functional.conv_transpose2d(t.ones(0, 1, 1, 1), t.ones(1, 1, 1, 1), padding=1),
    # norms
    "batch_norm of an empty int64 batch": lambda t: t.nn.functional.batch_norm(
        t.ones(0, 3, dtype=t.int64), None, None, t.ones(3), training=True),
    "batch_norm: a float64 weight for float16": lambda t: t.nn.functional.batch_norm(
        t.ones(2, 3, dtype=t.float16), None, None, t.ones(3, dtype=t.float64), training=True),
    "batch_norm of an empty batch, backward twice": lambda t: _empty_batch_norm_twice(
        t, False),
    "batch_norm of an empty batch, affine, backward twice": lambda t: _empty_batch_norm_twice(
        t, True),
    "group_norm: one value per channel, before the groups' check": lambda t:
        t.nn.functional.group_norm(t.ones(2, 1), 2),
    "group_norm: one value per channel, in eval too": lambda t: t.nn.GroupNorm(1, 1).eval()(
        t.ones(1, 1)),
    "layer_norm: dtypes before the shape": lambda t: t.nn.functional.layer_norm(
        t.ones(2, 3), (4,), t.ones(4, dtype=t.float64)),
    "layer_norm of an empty int64": lambda t: t.nn.functional.layer_norm(
        t.ones(0, 3, dtype=t.int64), (3,)),
    # pools
    "adaptive_avg_pool2d to 1x1 of a 2-D input": lambda t:
        t.nn.functional.adaptive_avg_pool2d(t.ones(2, 3), 1),
    "adaptive_avg_pool2d of None": lambda t: t.nn.functional.adaptive_avg_pool2d(
        t.ones(1, 2, 3), (None, 1)),
    "adaptive_avg_pool2d of an empty int64 batch": lambda t:
        t.nn.functional.adaptive_avg_pool2d(t.ones(0, 1, 2, 2, dtype=t.int64), 2),
    "max_pool2d with padding of int64": lambda t: t.nn.functional.max_pool2d(
        t.tensor([[[[-5, -7], [-6, -8]]]]), 2, stride=1, padding=1),
    "softmax of an empty int64": lambda t: t.softmax(t.ones(0, dtype=t.int64), 0),
    # losses and linear
    "huber_loss of two dtypes: its backward refuses": _huber_backward,
    "linear: a float64 bias": lambda t: t.nn.functional.linear(
        t.ones(2, 3), t.ones(4, 3), t.ones(4, dtype=t.float64)),
    "embedding's saved indices are freed by backward": _embedding_twice,
    # data
    "WeightedRandomSampler: too many without replacement, before the weights": lambda t:
        _weighted(t, [1.0, -1.0], 3, False),
    "WeightedRandomSampler: one sample of a negative weight": lambda t:
        _weighted(t, [1.0, -1.0], 1, True),
    "collate: arrays and a number": lambda t: t.utils.data.default_collate(
        [np.ones(2), np.float64(1.0)]),
    "collate: numpy scalars of float16 and int32": lambda t: t.utils.data.default_collate(
        [np.float16(1.5), np.int32(2)]),
    # where: the condition, input and other broadcast in turn
    "where of shapes that do not broadcast": lambda t: t.where(
        t.ones(0, 2) > 0, t.ones(0, 2), t.ones(0)),
    "where: the condition and the input do not broadcast": lambda t: t.where(
        t.ones(3) > 0, t.ones(2), t.ones(1)),
    # views
    "expand checks the last dim first": lambda t: t.ones(2, 3).expand(3, 4),
    "[...] of a 0-d tensor": lambda t: t.tensor(2.0)[...],
}


# PyTorch refuses these in the words of an inner step that fails ("only one dimension can be
# inferred"); minigrad says why (the output size is too small): the error's class is compared
CLASS_ONLY = {"conv_transpose2d of an empty batch, output too small"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name, torch_mod):
    words = name not in CLASS_ONLY
    ours = outcome(lambda: CASES[name](minigrad), words)
    theirs = outcome(lambda: CASES[name](torch_mod), words)
    assert agree(ours, theirs), f"minigrad: {ours}\nPyTorch:  {theirs}"
