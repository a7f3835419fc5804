"""`scaled_dot_product_attention`, as torch.nn.functional has it.

Written with ordinary recorded ops (matmul, softmax, a dropout mask), the way PyTorch 2.13
computes it on the CPU when a gradient is needed (its "math" path, whose root node is also
`UnsafeViewBackward0`), so the graph shows each step of softmax(q k^T / sqrt(d) + mask) v.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.ops.base import constant
from minigrad.surface import factories


def _additive(mask: Any, dtype: np.dtype, allowed_is_true: bool) -> Any:
    """A mask as what is added to the scores: a bool mask becomes 0 / -inf (True marks the
    positions that take part in scaled_dot_product_attention, the ones masked out in
    MultiheadAttention, as in PyTorch); a float mask is added as it is."""
    if mask is None:
        return None
    if mask.dtype.kind != "b":
        return mask
    blocked = ~mask.array if allowed_is_true else mask.array
    return constant(np.where(blocked, -np.inf, 0.0).astype(dtype))


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False,
                                 scale: float | None = None, enable_gqa: bool = False) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value, scale = 1/sqrt(query.size(-1)).

    `attn_mask`: bool (True = may attend) or float (added to the scores); `is_causal`: each
    position attends to itself and the ones before it."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if enable_gqa:
        raise NotImplementedError("minigrad's scaled_dot_product_attention has no grouped-query "
                                  "attention (enable_gqa=True); repeat key and value per head")
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    factor = math.sqrt(scale)  # (PyTorch's math path scales both sides by sqrt(scale))
    scores = (query * factor) @ (key.transpose(-2, -1) * factor)
    if is_causal:
        length, source = query.shape[-2], key.shape[-2]
        attn_mask = Tensor(np.tril(np.ones((length, source), dtype=bool)))
    mask = _additive(attn_mask, scores.dtype, allowed_is_true=True)
    if mask is not None:
        scores = scores + mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:  # (as F.dropout: keep with probability 1 - p, scaled by 1/(1 - p))
        keep = factories.generator().random(weights.shape) >= dropout_p
        scale = 0.0 if dropout_p == 1.0 else 1.0 / (1.0 - dropout_p)
        weights = ops.mul(weights, constant((keep * scale).astype(weights.dtype)))
    return weights @ value
