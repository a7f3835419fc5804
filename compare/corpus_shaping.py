"""Corpus cases for shaping, indexing helpers and sorting (see corpus.py).

Index tensors and masks are inputs drawn as integers and booleans, which need no gradient on
either side; the ops that pick elements (sort, topk, median, ...) get distinct values.
"""

from __future__ import annotations

from typing import Any

from compare.cases import Case, distinct, normal
from compare.cases import cases as _cases


def ints(high: int, *shape: int) -> Any:
    return lambda rng: rng.integers(0, high, shape)


def mask(*shape: int) -> Any:
    return lambda rng: rng.random(shape) > 0.5


def _pieces(pieces: tuple) -> Any:
    """Every piece of a split used, each weighted differently (so each gradient differs)."""
    out = pieces[0]
    for i, p in enumerate(pieces[1:], 2):
        out = out + p * i if p.shape == out.shape else out + p.sum() * i
    return out


M = {"A": normal(4, 3)}
DM = {"A": distinct(4, 3)}
T3 = {"b": normal(2, 3, 4)}

SHAPING_CASES = _cases("shapes", M, [
    ("A.split(2) (pieces share a node)", lambda A: _pieces(A.split(2))),
    ("A.split(2, dim=1) (last piece smaller)", lambda A: _pieces(A.split(2, dim=1))),
    ("A.split([1, 3])", lambda A: _pieces(A.split([1, 3]))),
    ("A.chunk(3, 1)", lambda A: _pieces(A.chunk(3, 1))),
    ("A.unbind(1)", lambda A: _pieces(A.unbind(1))),
    ("torch.unbind(A) (one piece used)", lambda A, torch: torch.unbind(A)[2] * 3),
    ("A.tensor_split(3) (a slice each)", lambda A: _pieces(A.tensor_split(3))),
    ("A.tensor_split([1, 2], dim=1)", lambda A: _pieces(A.tensor_split([1, 2], dim=1))),
    ("A.narrow_copy(0, 1, 2)", lambda A: A.narrow_copy(0, 1, 2)),
    ("A.flip(0)", lambda A: A.flip(0)),
    ("torch.flip(b, (0, 2))", lambda b, torch: torch.flip(b, (0, 2)), T3),
    ("A.fliplr()", lambda A: A.fliplr()),
    ("A.flipud()", lambda A: A.flipud()),
    ("A.roll(1, 0)", lambda A: A.roll(1, 0)),
    ("A.roll((1, -1), (0, 1))", lambda A: A.roll((1, -1), (0, 1))),
    ("A.roll(5) (flattened)", lambda A: A.roll(5)),
    ("A.repeat(2, 1, 3)", lambda A: A.repeat(2, 1, 3)),
    ("A.tile((2,))", lambda A: A.tile((2,))),
    ("A.repeat_interleave(2, dim=1)", lambda A: A.repeat_interleave(2, dim=1)),
    ("A.repeat_interleave(r, dim=0) (tensor)",
     lambda A, r: A.repeat_interleave(r, dim=0), {"A": normal(4, 3), "r": ints(3, 4)}),
    ("b.movedim(0, -1)", lambda b: b.movedim(0, -1), T3),
    ("torch.moveaxis(b, (0, 1), (2, 0))", lambda b, torch: torch.moveaxis(b, (0, 1), (2, 0)),
     T3),
    ("A.unflatten(0, (2, 2))", lambda A: A.unflatten(0, (2, 2))),
    ("A.diagonal()", lambda A: A.diagonal()),
    ("b.diagonal(1, 0, 2)", lambda b: b.diagonal(1, 0, 2), T3),
    ("b.diagonal(-1, 2, 1)", lambda b: b.diagonal(-1, 2, 1), T3),
    ("torch.diag(x) (vector to matrix)", lambda x, torch: torch.diag(x, 1), {"x": normal(3)}),
    ("A.diag_embed()", lambda A: A.diag_embed()),
    ("A.tril()", lambda A: A.tril()),
    ("A.triu(1)", lambda A: A.triu(1)),
    ("torch.tril(b, -1)", lambda b, torch: torch.tril(b, -1), T3),
    ("x.unfold(0, 3, 2)", lambda x: x.unfold(0, 3, 2), {"x": normal(7)}),
    ("A.unfold(0, 2, 1) (windows overlap)", lambda A: A.unfold(0, 2, 1)),
    ("torch.hstack([A, A])", lambda A, torch: torch.hstack([A, A * 2])),
    ("torch.vstack([x, y]) (1-D)", lambda x, y, torch: torch.vstack([x, y]),
     {"x": normal(3), "y": normal(3)}),
])

GATHERING_CASES = _cases("indexing", M, [
    ("A.gather(1, idx)", lambda A, idx: A.gather(1, idx), {"A": normal(4, 3),
                                                           "idx": ints(3, 4, 2)}),
    ("torch.gather(A, 0, idx) (repeats add up)", lambda A, idx, torch: torch.gather(A, 0, idx),
     {"A": normal(4, 3), "idx": ints(4, 5, 3)}),
    ("A.scatter(0, perm, S)", lambda A, S: A.scatter(0, A.argsort(0)[:2], S),
     {"A": distinct(4, 3), "S": normal(2, 3)}),
    ("A.scatter(1, idx, 0.5)", lambda A, idx: A.scatter(1, idx, 0.5),
     {"A": normal(4, 3), "idx": ints(3, 4, 2)}),
    ("A.scatter_add(0, idx, S)", lambda A, idx, S: A.scatter_add(0, idx, S),
     {"A": normal(4, 3), "idx": ints(4, 2, 3), "S": normal(2, 3)}),
    ("A.index_select(0, i)", lambda A, i: A.index_select(0, i), {"A": normal(4, 3),
                                                                 "i": ints(4, 5)}),
    ("A.index_add(1, i, S, alpha=2)", lambda A, i, S: A.index_add(1, i, S, alpha=2),
     {"A": normal(4, 3), "i": ints(3, 2), "S": normal(4, 2)}),
    ("A.index_fill(1, i, -1.)", lambda A, i: A.index_fill(1, i, -1.0),
     {"A": normal(4, 3), "i": ints(3, 2)}),
    ("A.index_fill(0, i, v.sum())", lambda A, i, v: A.index_fill(0, i, v.sum()),
     {"A": normal(4, 3), "i": ints(4, 2), "v": normal(2)}),
    ("A.masked_fill(m, 0.)", lambda A, m: A.masked_fill(m, 0.0), {"A": normal(4, 3),
                                                                  "m": mask(4, 3)}),
    ("A.masked_fill(m, s) (0-d tensor)", lambda A, m, s: A.masked_fill(m, s),
     {"A": normal(4, 3), "m": mask(4, 3), "s": normal()}),
    ("A.masked_fill(m, 1.) (mask broadcasts)", lambda A, m: A.masked_fill(m, 1.0),
     {"A": normal(4, 3), "m": mask(3)}),
    ("A.masked_select(m)", lambda A, m: A.masked_select(m), {"A": normal(4, 3),
                                                             "m": mask(4, 3)}),
    ("A.masked_scatter(m, S)", lambda A, m, S: A.masked_scatter(m, S),
     {"A": normal(4, 3), "m": mask(4, 3), "S": normal(4, 3)}),
    ("A.take(i)", lambda A, i: A.take(i), {"A": normal(4, 3), "i": ints(12, 2, 2)}),
    ("z.masked_fill_(m, 0.)", lambda A, m: (A * 1).masked_fill_(m, 0.0),
     {"A": normal(4, 3), "m": mask(4, 3)}),
    ("z.scatter_(1, idx, S)", lambda A, idx, S: (A * 1).scatter_(1, idx, S),
     {"A": normal(4, 3), "idx": ints(3, 4, 1), "S": normal(4, 1)}),
    ("z.index_fill_(0, i, 2.)", lambda A, i: (A * 1).index_fill_(0, i, 2.0),
     {"A": normal(4, 3), "i": ints(4, 1)}),
    ("A[torch.where(A > 0)]", lambda A, torch: A[torch.where(A > 0)]),
    ("A[A.nonzero(as_tuple=True)]", lambda A: A[(A > 0).nonzero(as_tuple=True)]),
])

SORTING_CASES = _cases("reductions", DM, [
    ("A.sort(1).values", lambda A: A.sort(1).values),
    ("A.sort(0, descending=True).values", lambda A: A.sort(0, descending=True).values),
    ("torch.sort(A).values * 2", lambda A, torch: torch.sort(A).values * 2),
    ("A.sort(dim=0, stable=True).values", lambda A: A.sort(dim=0, stable=True).values),
    ("A.msort()", lambda A: A.msort()),
    ("A.topk(2).values", lambda A: A.topk(2).values),
    ("A.topk(2, dim=0, largest=False)[0]", lambda A: A.topk(2, dim=0, largest=False)[0]),
    ("A.kthvalue(2, 1).values", lambda A: A.kthvalue(2, 1).values),
    ("A.median()", lambda A: A.median()),
    ("A.median(0).values", lambda A: A.median(0).values),
    ("A.nanmedian()", lambda A: A.nanmedian()),
    ("A.nanmedian(1, keepdim=True).values", lambda A: A.nanmedian(1, keepdim=True).values),
    ("A.mode(1).values", lambda A: A.mode(1).values),
    ("A.gather(1, A.argsort(1)) (sort by hand)", lambda A: A.gather(1, A.argsort(1))),
    ("softmax of the top 2", lambda A: A.topk(2).values.softmax(-1)),
])

SHAPING: list[Case] = SHAPING_CASES + GATHERING_CASES + SORTING_CASES
