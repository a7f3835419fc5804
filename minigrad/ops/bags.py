"""Two ops of nn layers built on products: EmbeddingBag (a lookup that sums, averages or takes
the max of each bag of rows) and _trilinear, nn.Bilinear's x1^T W x2 (PyTorch's node names;
their backward formulas are Tensor ops, so a double backward runs through them).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.contractions import einsum
from minigrad.ops.index import ScatterAdd

__all__: list[str] = []  # (reached through nn.functional.embedding_bag and bilinear)


def bag_of(offsets: np.ndarray, n: int) -> np.ndarray:
    """Which bag each of the n indices is in (bag b holds offsets[b]:offsets[b + 1])."""
    return np.searchsorted(offsets, np.arange(n), side="right") - 1


class EmbeddingBag(Function, numpy_forward=True):
    """per bag of indices, the sum, mean or max of the weight rows they pick"""

    node_name = "EmbeddingBagBackward0"
    formula = r"dweight[r] += grad[bag] (sum; / bag size for mean; to the max's row for max)"
    source = "embedding_bag(indices, {0}, offsets, mode='{mode}')"
    gradients = ("index_add(zeros, indices, grad[bag] * share)", "grad[bag] . weight[index]")
    jvp_refused = ("Trying to use forward AD with _embedding_bag that does not support it "
                   "because it has not been implemented yet.")  # (PyTorch's words)

    @staticmethod
    def forward(ctx, weight, per_sample_weights, *, indices, offsets, mode, padding_idx):
        w, n_bags = weight.array, offsets.size
        bags = bag_of(offsets, indices.size)
        keep = indices != padding_idx if padding_idx is not None else np.ones(indices.size, bool)
        rows = w[indices] * keep[:, None]
        if per_sample_weights is not None:
            rows = rows * per_sample_weights.array[:, None]
        out = np.zeros((n_bags, w.shape[1]), w.dtype)
        if mode == "max":
            out[:] = -np.inf
            np.maximum.at(out, bags[keep], rows[keep])
            out[~np.isfinite(out)] = 0
            ctx.winner = _winners(rows, bags, keep, out)
        else:
            np.add.at(out, bags, rows)
            if mode == "mean":
                counts = np.bincount(bags[keep], minlength=n_bags).astype(w.dtype)
                out /= np.maximum(counts, 1)[:, None]
                ctx.counts = counts
        ctx.save_for_backward(weight, per_sample_weights)
        ctx.bags, ctx.keep, ctx.num_weights, ctx.weight_dtype = bags, keep, w.shape[0], w.dtype
        return out

    @staticmethod
    def backward(ctx, grad):
        weight, psw = ctx.unpack_saved()
        settings = ctx.settings
        idx, mode, bags = settings["indices"], settings["mode"], ctx.bags
        share = ctx.keep.astype(grad.array.dtype)[:, None]  # what of its bag's gradient each
        if mode == "mean":  # index gets: all (sum), a share (mean), the max's own (max)
            share = share / np.maximum(ctx.counts, 1)[bags][:, None]
        if mode == "max":
            share = ctx.winner.astype(grad.array.dtype)
        scaled = grad[constant(bags)] * constant(share)
        need_w, need_psw = ctx.needs_input_grad
        grad_w = None
        if need_w:
            by_row = scaled if psw is None else scaled * psw.unsqueeze(1)
            grad_w = ScatterAdd.apply(by_row, shape=weight.array.shape, key=(idx,))
        grad_psw = (scaled * weight[constant(idx)]).sum(1) if need_psw else None
        return grad_w, grad_psw


def _winners(rows: np.ndarray, bags: np.ndarray, keep: np.ndarray, out: np.ndarray
             ) -> np.ndarray:
    """(index, column) -> 1 where that index's row gave its bag's max (the first such)."""
    won = np.zeros(rows.shape, bool)
    taken = np.zeros(out.shape, bool)
    for i in range(rows.shape[0]):
        if keep[i]:
            hit = (rows[i] == out[bags[i]]) & ~taken[bags[i]]
            won[i], taken[bags[i]] = hit, taken[bags[i]] | hit
    return won


class Trilinear(Function, numpy_forward=True):
    """the bilinear form x1^T W x2, per sample and output feature"""

    node_name = "TrilinearBackward0"
    formula = r"y[n,o] = x1[n,i] W[o,i,j] x2[n,j]:  d/dx1 = grad W x2 ;  d/dW = grad x1 x2 ;  " \
        r"d/dx2 = grad x1 W"
    source = "_trilinear({0}, {1}, {2})"
    gradients = ("einsum('no,oij,nj->ni', {g}, {1}, {2})", "einsum('no,ni,nj->oij', {g}, {0}, "
                 "{2})", "einsum('no,ni,oij->nj', {g}, {0}, {1})")

    tangent = "_trilinear({t0}, {1}, {2}) + _trilinear({0}, {t1}, {2}) + _trilinear({0}, {1}, {t2})"

    @staticmethod
    def jvp(ctx, t1, tw, t2):
        """Linear in each input: the sum of the op with one input replaced by its tangent."""
        x1, weight, x2 = ctx.inputs
        return (einsum("ni,oij,nj->no", t1, weight, x2) + einsum("ni,oij,nj->no", x1, tw, x2)
                + einsum("ni,oij,nj->no", x1, weight, t2))

    @staticmethod
    def forward(ctx, x1, weight, x2):
        ctx.save_for_backward(x1, weight, x2)
        return np.einsum("ni,oij,nj->no", x1.array, weight.array, x2.array)

    @staticmethod
    def backward(ctx, grad):
        x1, weight, x2 = ctx.unpack_saved()
        n1, nw, n2 = ctx.needs_input_grad
        return (einsum("no,oij,nj->ni", grad, weight, x2) if n1 else None,
                einsum("no,ni,nj->oij", grad, x1, x2) if nw else None,
                einsum("no,ni,oij->nj", grad, x1, weight) if n2 else None)
