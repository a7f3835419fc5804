"""Packing padded sequences: the rows that are real, time step by time step (the op behind
`nn.utils.rnn.pack_padded_sequence`; PackedSequence and the other helpers are in
nn/utils/rnn.py).

A batch of sequences of lengths 3, 2 and 1, padded to (time 3, batch 3): packing keeps step 0
of all three, step 1 of the first two, step 2 of the first, in that order, so an RNN can run
each step on only the sequences still going. `batch_sizes` says how many rows each step has
([3, 2, 1]). Backward puts each row's gradient back in its (time, batch) place; the padding
gets 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.gathering import index_add
from minigrad.ops.views import reshape, transpose

__all__: list[str] = []  # (reached through nn.utils.rnn.pack_padded_sequence)


def packed_rows(batch_sizes: tuple, batch: int) -> np.ndarray:
    """The row of the (time * batch) flattened input that each packed row comes from."""
    return np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)]
                          ).astype(np.int64)


class PackPaddedSequence(Function, numpy_forward=True):
    """the real rows of padded sequences, time step by time step"""

    node_name = "PackPaddedSequenceBackward0"
    formula = r"d(pack x)/dx = each row's gradient back in its (time, batch) place, 0 at padding"
    source = "pack_padded_sequence({0}, {batch_sizes})"
    gradients = ("{g} back in its (time, batch) places",)
    jvp_refused = ("Trying to use forward AD with _pack_padded_sequence that does not support it "
                   "because it has not been implemented yet.")  # (PyTorch's words)

    @staticmethod
    def forward(ctx, input, *, batch_sizes, batch_first):
        x = input.array.swapaxes(0, 1) if batch_first else input.array
        ctx.time_major = x.shape
        rows = packed_rows(batch_sizes, x.shape[1])
        return x.reshape((-1,) + x.shape[2:])[rows]

    @staticmethod
    def backward(ctx, grad):
        settings = ctx.settings
        time, batch = ctx.time_major[:2]
        rows = constant(packed_rows(settings["batch_sizes"], batch))
        zeros = constant(np.zeros((time * batch,) + ctx.time_major[2:], grad.array.dtype))
        out = reshape(index_add(zeros, 0, rows, grad), ctx.time_major)
        return transpose(out, 0, 1) if settings["batch_first"] else out


def pack(input: Any, batch_sizes: tuple, batch_first: bool) -> Any:
    return PackPaddedSequence.apply(input, batch_sizes=tuple(batch_sizes),
                                    batch_first=batch_first)
