"""Op-table entries for sums of products and the matrix exponential: einsum, tensordot,
matrix_exp (see op_table.py). Each runs as `call(lib, *tensors)` with `lib` minigrad or torch;
their root nodes are what PyTorch 2.13 records (einsum and tensordot are no node of their own:
their last step is a view, permute, sum or mul)."""

from __future__ import annotations

from collections.abc import Callable

import minigrad
from minigrad.testing.op_spec import OpSpec


def _both(name: str, call: Callable, node: str, source: str, shapes: str,
          arity: int = 2) -> OpSpec:
    """An entry whose `call(lib, *tensors)` runs on minigrad and, as `lib`, on torch."""
    return OpSpec(name, lambda *t: call(minigrad, *t), node, source, arity=arity,
                  torch_fn=lambda torch, *t: call(torch, *t), shapes=shapes,
                  in_expressions=False)


def _einsum(name: str, equation: str, node: str, shapes: str, arity: int = 2) -> OpSpec:
    inputs = ", ".join(f"{{{i}}}" for i in range(arity))
    return _both(name, lambda lib, *t: lib.einsum(equation, *t), node,
                 f"minigrad.einsum({equation!r}, {inputs})", shapes, arity)


CONTRACTIONS: list[OpSpec] = [
    _einsum("einsum_mm", "ij,jk->ik", "ViewBackward0", "mm_pair"),
    _einsum("einsum_bmm", "bij,bjk->bik", "ViewBackward0", "bmm_pair"),
    _einsum("einsum_attention", "bhqd,bhkd->bhqk", "ViewBackward0", "heads_pair"),
    _einsum("einsum_ellipsis", "...ij,...jk->...ik", "ViewBackward0", "ellipsis_pair"),
    _einsum("einsum_outer", "i,j->ij", "MulBackward0", "vector_pair"),
    _einsum("einsum_rows_dot", "ij,ij->i", "ViewBackward0", "same_pair"),
    _einsum("einsum_three", "ij,jk,kl->il", "ViewBackward0", "chain_triple", arity=3),
    _einsum("einsum_transpose", "ij->ji", "PermuteBackward0", "square", arity=1),
    _einsum("einsum_diagonal", "ii->i", "PermuteBackward0", "square", arity=1),
    _einsum("einsum_trace", "ii", "SumBackward1", "square", arity=1),
    _einsum("einsum_sum_all", "ijk->", "SumBackward1", "cube", arity=1),
    _both("einsum_sublist", lambda lib, a, b: lib.einsum(a, [0, 1], b, [1, 2], [0, 2]),
          "ViewBackward0", "minigrad.einsum({0}, [0, 1], {1}, [1, 2], [0, 2])", "mm_pair"),
    _both("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=2), "ViewBackward0",
          "minigrad.tensordot({0}, {1}, dims=2)", "tensordot_pair"),
    _both("tensordot_lists", lambda lib, a, b: lib.tensordot(a, b, dims=([0, 2], [2, 0])),
          "ViewBackward0", "minigrad.tensordot({0}, {1}, dims=([0, 2], [2, 0]))",
          "tensordot_lists"),
    _both("matrix_exp", lambda lib, a: lib.matrix_exp(a), "LinalgMatrixExpBackward0",
          "{0}.matrix_exp()", "square_batch", arity=1),
]
