"""The embedding lookup: rows of a weight table picked by integer indices. Its backward adds
each lookup's gradient into the row it read (repeats add up), the padding row excepted.
"""

from __future__ import annotations

from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.index import ScatterAdd
from minigrad.ops.tangent_rules import linear


class Embedding(Function, numpy_forward=True):
    """the rows of the weight picked by integer indices (a lookup table)"""

    node_name = "EmbeddingBackward0"
    formula = r"dweight[r] = sum of grad[i] over the i with indices[i] == r (none for " \
        r"padding_idx)"
    source = "embedding(indices, {0})"
    gradients = ("index_add(zeros, indices, {g})",)
    tangent = "embedding(indices, {t0})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, weight, *, indices, padding_idx=None):
        # (the indices are saved as PyTorch saves them: freed by a backward, so a second one
        # without retain_graph is refused)
        ctx.save_for_backward(constant(indices))
        ctx.padding_idx, ctx.rows = padding_idx, weight.array.shape
        return weight.array[indices]

    @staticmethod
    def backward(ctx, grad):
        idx = ctx.unpack_saved()[0].array.reshape(-1)
        flat = grad.reshape(-1, ctx.rows[1])
        if ctx.padding_idx is not None:  # that row's lookups send no gradient
            flat = flat * constant((idx != ctx.padding_idx)[:, None].astype(grad.dtype))
        return ScatterAdd.apply(flat, shape=ctx.rows, key=(idx,))
