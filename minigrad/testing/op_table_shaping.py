"""Op-table entries for shaping, indexing helpers and sorting (see op_table.py;
`unary`/`binary` are in op_spec.py).

Index tensors are made from what both engines have, so that the source reads the same in
either: `minigrad.arange(n) // 2` (positions with repeats), `x.argsort(dim)` (a permutation,
distinct positions for scatter), a drawn `mask` or list of `indices`. Ops that pick elements
(sort, topk, median, ...) draw DISTINCT values: a tie would make the gradient a choice.
Multi-output ops (split, chunk, unbind) are checked through one of their pieces here, and
through all of them in tests/ops/test_shaping_*.py.
"""

from __future__ import annotations

import minigrad
from minigrad.testing.domains import DISTINCT
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_spec import binary as _binary
from minigrad.testing.op_spec import unary as _unary


def _nonscalar(*values, tol: float = 0.0, **params) -> bool:
    """Joint check for ops along dim 0 of same-shape inputs: the first is not 0-d. (They are
    left out of expressions, which draw shapes by the shape rule alone.)"""
    return values[0].ndim >= 1


def _arange(torch, n: int):
    return torch.arange(n)


SHAPING_OPS = [
    _unary("split", lambda x, dim: x.split(2, dim)[0], "SplitBackward0",
           "{0}.split(2, {dim})[0]", shapes="nonscalar", params=("dim",)),
    _unary("unsafe_chunk", lambda x, dim: x.unsafe_chunk(2, dim)[0], "UnsafeSplitBackward0",
           "{0}.unsafe_chunk(2, {dim})[0]", shapes="nonscalar", params=("dim",)),
    _unary("split_sizes", lambda x, dim: x.split([x.shape[dim] - 1, 1], dim)[1],
           "SplitWithSizesBackward0", "{0}.split([{0}.shape[{dim}] - 1, 1], {dim})[1]",
           shapes="nonscalar", params=("dim",)),
    _unary("chunk", lambda x, dim: x.chunk(2, dim)[-1], "SplitBackward0",
           "{0}.chunk(2, {dim})[-1]", shapes="nonscalar", params=("dim",)),
    _unary("unbind", lambda x, dim: x.unbind(dim)[0], "UnbindBackward0", "{0}.unbind({dim})[0]",
           shapes="nonscalar", params=("dim",)),
    _unary("tensor_split", lambda x, dim: x.tensor_split(2, dim)[0], "SliceBackward0",
           "{0}.tensor_split(2, {dim})[0]", shapes="nonscalar", params=("dim",)),
    _unary("narrow_copy", lambda x, dim: x.narrow_copy(dim, x.shape[dim] - 1, 1),
           "NarrowCopyBackward0", "{0}.narrow_copy({dim}, {0}.shape[{dim}] - 1, 1)",
           shapes="nonscalar", params=("dim",)),
    _unary("flip", lambda x, dimset: x.flip(dimset), "FlipBackward0", "{0}.flip({dimset})",
           shapes="nonscalar", params=("dimset",)),
    _unary("fliplr", lambda x: x.fliplr(), "FlipBackward0", "{0}.fliplr()", shapes="ndim2"),
    _unary("flipud", lambda x: x.flipud(), "FlipBackward0", "{0}.flipud()", shapes="nonscalar"),
    _unary("roll", lambda x, dim: x.roll(1, dim), "RollBackward0", "{0}.roll(1, {dim})",
           shapes="nonscalar", params=("dim",)),
    _unary("roll_flat", lambda x: x.roll(2), "RollBackward0", "{0}.roll(2)"),
    _unary("roll_dims", lambda x: x.roll((1, -1), (0, 1)), "RollBackward0",
           "{0}.roll((1, -1), (0, 1))", shapes="ndim2"),
    _unary("repeat", lambda x: x.repeat(*([2] * (x.dim() + 1))), "RepeatBackward0",
           "{0}.repeat(*([2] * ({0}.dim() + 1)))"),
    _unary("tile", lambda x: x.tile((2,)), "RepeatBackward0", "{0}.tile((2,))"),
    _unary("repeat_interleave", lambda x, dim: x.repeat_interleave(2, dim=dim), "ViewBackward0",
           "{0}.repeat_interleave(2, dim={dim})", shapes="nonscalar", params=("dim",)),
    _unary("repeat_interleave_flat", lambda x: x.repeat_interleave(3), "ViewBackward0",
           "{0}.repeat_interleave(3)"),
    _unary("repeat_interleave_tensor",
           lambda x: x.repeat_interleave(minigrad.arange(x.shape[0]) % 3 + 1, dim=0),
           "IndexSelectBackward0",
           "{0}.repeat_interleave(minigrad.arange({0}.shape[0]) % 3 + 1, dim=0)",
           shapes="nonscalar", torch_fn=lambda torch, x: x.repeat_interleave(
               _arange(torch, x.shape[0]) % 3 + 1, dim=0)),
    _unary("movedim", lambda x, dim: x.movedim(dim, 0), "PermuteBackward0",
           "{0}.movedim({dim}, 0)", shapes="nonscalar", params=("dim",)),
    _unary("unflatten", lambda x: x.unflatten(0, (1, x.shape[0])), "ViewBackward0",
           "{0}.unflatten(0, (1, {0}.shape[0]))", shapes="nonscalar"),
    _unary("diagonal", lambda x: x.diagonal(), "DiagonalBackward0", "{0}.diagonal()",
           shapes="ndim2"),
    _unary("diagonal_dims", lambda x, dim0, dim1: x.diagonal(0, dim0, dim1), "DiagonalBackward0",
           "{0}.diagonal(0, {dim0}, {dim1})", shapes="ndim2", params=("dim0", "dim1")),
    _unary("diag", lambda x: x.flatten().diag(1), "DiagEmbedBackward0", "{0}.flatten().diag(1)"),
    _unary("diag_embed", lambda x: x.diag_embed(-1), "DiagEmbedBackward0",
           "{0}.diag_embed(-1)", shapes="nonscalar"),
    _unary("tril", lambda x: x.tril(), "TrilBackward0", "{0}.tril()", shapes="ndim2"),
    _unary("triu", lambda x: x.triu(1), "TriuBackward0", "{0}.triu(1)", shapes="ndim2"),
    _unary("unfold", lambda x, dim: x.unfold(dim, min(2, x.shape[dim]), 1), "UnfoldBackward0",
           "{0}.unfold({dim}, min(2, {0}.shape[{dim}]), 1)", shapes="nonscalar",
           params=("dim",)),
    _binary("hstack", lambda x, y: minigrad.hstack([x, y]), "CatBackward0",
            "minigrad.hstack([{0}, {1}])", shapes="same", in_expressions=False,
            torch_fn=lambda torch, x, y: torch.hstack([x, y])),
    _binary("vstack", lambda x, y: minigrad.vstack([x, y]), "CatBackward0",
            "minigrad.vstack([{0}, {1}])", shapes="same", in_expressions=False,
            torch_fn=lambda torch, x, y: torch.vstack([x, y])),
]

_MASK = "minigrad.tensor({mask})"

GATHERING_OPS = [
    _unary("gather", lambda x, dim: x.gather(dim, x.argsort(dim) // 2), "GatherBackward0",
           "{0}.gather({dim}, {0}.argsort({dim}) // 2)", shapes="nonscalar", params=("dim",),
           domains=(DISTINCT,)),
    _binary("scatter", lambda x, y: x.scatter(0, x.argsort(0)[:1], y[:1]), "ScatterBackward0",
            "{0}.scatter(0, {0}.argsort(0)[:1], {1}[:1])", shapes="same", valid=_nonscalar,
            in_expressions=False, domains=(DISTINCT,)),
    _unary("scatter_value", lambda x, dim: x.scatter(dim, x.argsort(dim) // 2, 0.5),
           "ScatterBackward1", "{0}.scatter({dim}, {0}.argsort({dim}) // 2, 0.5)",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
    _binary("scatter_add", lambda x, y: x.scatter_add(0, x.argsort(0) // 2, y),
            "ScatterAddBackward0", "{0}.scatter_add(0, {0}.argsort(0) // 2, {1})",
            shapes="same", valid=_nonscalar, in_expressions=False, domains=(DISTINCT,)),
    _unary("index_select",
           lambda x, dim: x.index_select(dim, minigrad.arange(x.shape[dim]) // 2),
           "IndexSelectBackward0", "{0}.index_select({dim}, minigrad.arange({0}.shape[{dim}]) "
           "// 2)", shapes="nonscalar", params=("dim",),
           torch_fn=lambda torch, x, dim: x.index_select(dim, _arange(torch, x.shape[dim]) // 2)),
    _binary("index_add", lambda x, y: x.index_add(0, minigrad.arange(x.shape[0]) // 2, y,
                                                  alpha=2), "IndexAddBackward0",
            "{0}.index_add(0, minigrad.arange({0}.shape[0]) // 2, {1}, alpha=2)",
            shapes="same", valid=_nonscalar, in_expressions=False,
            torch_fn=lambda torch, x, y: x.index_add(0, _arange(torch, x.shape[0]) // 2, y,
                                                     alpha=2)),
    _unary("index_fill", lambda x, dim: x.index_fill(dim, minigrad.arange(x.shape[dim]) // 2,
                                                     -1.0),
           "IndexFillBackward0", "{0}.index_fill({dim}, minigrad.arange({0}.shape[{dim}]) // 2, "
           "-1.0)", shapes="nonscalar", params=("dim",),
           torch_fn=lambda torch, x, dim: x.index_fill(dim, _arange(torch, x.shape[dim]) // 2,
                                                       -1.0)),
    _binary("index_fill_tensor",
            lambda x, y: x.index_fill(0, minigrad.arange(1), y.sum()), "IndexFillBackward1",
            "{0}.index_fill(0, minigrad.arange(1), {1}.sum())", valid=_nonscalar,
            in_expressions=False,
            torch_fn=lambda torch, x, y: x.index_fill(0, _arange(torch, 1), y.sum())),
    _unary("masked_fill", lambda x, mask: x.masked_fill(minigrad.tensor(mask), 0.5),
           "MaskedFillBackward0", "{0}.masked_fill(" + _MASK + ", 0.5)", params=("mask",),
           torch_fn=lambda torch, x, mask: x.masked_fill(torch.tensor(mask), 0.5)),
    _binary("masked_fill_tensor", lambda x, y, mask: x.masked_fill(minigrad.tensor(mask), y.sum()),
            "MaskedFillBackward1", "{0}.masked_fill(" + _MASK + ", {1}.sum())", params=("mask",),
            torch_fn=lambda torch, x, y, mask: x.masked_fill(torch.tensor(mask), y.sum())),
    _unary("masked_select", lambda x, mask: x.masked_select(minigrad.tensor(mask)),
           "MaskedSelectBackward0", "{0}.masked_select(" + _MASK + ")", params=("mask",),
           torch_fn=lambda torch, x, mask: x.masked_select(torch.tensor(mask))),
    _binary("masked_scatter", lambda x, y, mask: x.masked_scatter(minigrad.tensor(mask), y),
            "MaskedScatterBackward0", "{0}.masked_scatter(" + _MASK + ", {1})", shapes="same",
            params=("mask",),
            torch_fn=lambda torch, x, y, mask: x.masked_scatter(torch.tensor(mask), y)),
    _unary("take", lambda x, indices: x.take(minigrad.tensor(indices)), "TakeBackward0",
           "{0}.take(minigrad.tensor({indices}))", shapes="nonscalar", params=("indices",),
           torch_fn=lambda torch, x, indices: x.take(torch.tensor(indices))),
    _unary("masked_fill_", lambda x, mask: x.clone().masked_fill_(minigrad.tensor(mask), 0.5),
           "MaskedFillBackward0", "{0}.clone().masked_fill_(" + _MASK + ", 0.5)",
           params=("mask",), in_expressions=False,
           torch_fn=lambda torch, x, mask: x.clone().masked_fill_(torch.tensor(mask), 0.5)),
    _unary("scatter_", lambda x, dim: x.clone().scatter_(dim, x.argsort(dim) // 2, 0.5),
           "ScatterBackward1", "{0}.clone().scatter_({dim}, {0}.argsort({dim}) // 2, 0.5)",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,), in_expressions=False),
    _binary("scatter_add_", lambda x, y: x.clone().scatter_add_(0, x.argsort(0) // 2, y),
            "ScatterAddBackward0", "{0}.clone().scatter_add_(0, {0}.argsort(0) // 2, {1})",
            shapes="same", valid=_nonscalar, in_expressions=False, domains=(DISTINCT,)),
    _unary("index_fill_", lambda x: x.clone().index_fill_(0, minigrad.arange(1), -1.0),
           "IndexFillBackward0", "{0}.clone().index_fill_(0, minigrad.arange(1), -1.0)",
           shapes="nonscalar", in_expressions=False,
           torch_fn=lambda torch, x: x.clone().index_fill_(0, _arange(torch, 1), -1.0)),
]

SORTING_OPS = [
    _unary("sort", lambda x, dim: x.sort(dim).values, "SortBackward0", "{0}.sort({dim}).values",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
    _unary("sort_descending", lambda x, dim: x.sort(dim, descending=True).values,
           "SortBackward0", "{0}.sort({dim}, descending=True).values", shapes="nonscalar",
           params=("dim",), domains=(DISTINCT,)),
    _unary("sort_stable", lambda x, dim: x.sort(dim=dim, stable=True).values, "SortBackward1",
           "{0}.sort(dim={dim}, stable=True).values", shapes="nonscalar", params=("dim",),
           domains=(DISTINCT,)),
    _unary("msort", lambda x: x.msort(), "SortBackward0", "{0}.msort()", shapes="nonscalar",
           domains=(DISTINCT,)),
    _unary("topk", lambda x, dim: x.topk(1, dim).values, "TopkBackward0",
           "{0}.topk(1, {dim}).values", shapes="nonscalar", params=("dim",),
           domains=(DISTINCT,)),
    _unary("topk_smallest", lambda x, dim: x.topk(min(2, x.shape[dim]), dim, largest=False).values,
           "TopkBackward0", "{0}.topk(min(2, {0}.shape[{dim}]), {dim}, largest=False).values",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
    _unary("kthvalue", lambda x, dim: x.kthvalue(x.shape[dim], dim, keepdim=True).values,
           "KthvalueBackward0", "{0}.kthvalue({0}.shape[{dim}], {dim}, keepdim=True).values",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
    _unary("median", lambda x: x.median(), "MedianBackward0", "{0}.median()",
           domains=(DISTINCT,)),
    _unary("median_dim", lambda x, dim: x.median(dim).values, "MedianBackward1",
           "{0}.median({dim}).values", shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
    _unary("nanmedian", lambda x: x.nanmedian(), "NanmedianBackward0", "{0}.nanmedian()",
           domains=(DISTINCT,)),
    _unary("nanmedian_dim", lambda x, dim: x.nanmedian(dim).values, "NanmedianBackward1",
           "{0}.nanmedian({dim}).values", shapes="nonscalar", params=("dim",),
           domains=(DISTINCT,)),
    _unary("mode", lambda x, dim: x.mode(dim).values, "ModeBackward0", "{0}.mode({dim}).values",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
]

SHAPING: list[OpSpec] = SHAPING_OPS + GATHERING_OPS + SORTING_OPS
