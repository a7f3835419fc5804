"""`MultiheadAttention`, as in torch.nn.

Written with ordinary recorded ops (linear, matmul, softmax, dropout), as PyTorch 2.13's
`multi_head_attention_forward` computes it when a gradient is needed, so the graph shows each
head's softmax(q k^T / sqrt(d) + mask) v and the output projection.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.functional_attention import _additive
from minigrad.nn.layers import Linear
from minigrad.nn.module import Module, Parameter
from minigrad.surface import dtypes
from minigrad.surface.factories import empty


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's output projection: a Linear under the name PyTorch gives it."""


class MultiheadAttention(Module):
    """Attention with `num_heads` heads over `embed_dim` features (PyTorch's parameters:
    `in_proj_weight` (3*embed_dim, embed_dim) holding the query, key and value projections,
    `in_proj_bias`, and `out_proj`)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Any = None,
                 vdim: Any = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if embed_dim // num_heads * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or \
                (vdim not in (None, embed_dim)):
            raise NotImplementedError("minigrad's MultiheadAttention has no add_bias_kv, "
                                      "add_zero_attn or kdim/vdim other than embed_dim")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = self.vdim = embed_dim
        self._qkv_same_embed_dim, self.batch_first = True, batch_first
        self.head_dim = embed_dim // num_heads
        dtype = dtype or dtypes.float32
        self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, dtype=dtype,
                                              device=device))
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=dtype, device=device))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype, device=device)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any = None,
                need_weights: bool = True, attn_mask: Any = None,
                average_attn_weights: bool = True, is_causal: bool = False) -> tuple:
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                               "Transformer module method `generate_square_subsequent_mask` to "
                               "create this mask.")
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        if not batched:
            query, key, value = (x.unsqueeze(1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        out, weights = self._attend(query, key, value, key_padding_mask, need_weights,
                                    attn_mask, average_attn_weights)
        if not batched:
            out = out.squeeze(1)
            weights = None if weights is None else weights.squeeze(0)
        elif self.batch_first:
            out = out.transpose(1, 0)
        return out, weights

    def _attend(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any,
                need_weights: bool, attn_mask: Any, average: bool) -> tuple:
        """PyTorch's multi_head_attention_forward, on (length, batch, embed_dim) inputs."""
        length, batch, e = query.shape
        if e != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but "
                                 f"got {e}")
        source, heads, hd = key.shape[0], self.num_heads, self.head_dim
        w, b = self.in_proj_weight, self.in_proj_bias
        parts = [F.linear(x, w[i * e:(i + 1) * e], None if b is None else b[i * e:(i + 1) * e])
                 for i, x in enumerate((query, key, value))]
        q, k, v = (p.reshape(n, batch * heads, hd).transpose(0, 1)
                   for p, n in zip(parts, (length, source, source)))
        mask = self._mask(attn_mask, key_padding_mask, q.dtype, batch, length, source)
        p = self.dropout if self.training else 0.0
        scores = (q * math.sqrt(1.0 / hd)) @ k.transpose(-2, -1)
        if mask is not None:
            scores = scores + mask
        weights = scores.softmax(-1)
        if p > 0.0:
            weights = F.dropout(weights, p, training=True)
        out = (weights @ v).transpose(0, 1).reshape(length * batch, e)
        out = self.out_proj(out).reshape(length, batch, e)
        if not need_weights:
            return out, None
        weights = weights.reshape(batch, heads, length, source)
        return out, (weights.mean(dim=1) if average else weights)

    def _mask(self, attn_mask: Any, key_padding_mask: Any, dtype: np.dtype, batch: int,
              length: int, source: int) -> Any:
        """attn_mask (L, S) or (N*heads, L, S) and key_padding_mask (N, S), True = masked out,
        as one additive mask."""
        mask = _additive(attn_mask, dtype, allowed_is_true=False)
        if mask is not None:
            want = (length, source) if mask.ndim == 2 else (batch * self.num_heads, length, source)
            if tuple(mask.shape) != want:
                raise RuntimeError(f"The shape of the {mask.ndim}D attn_mask is {mask.shape}, "
                                   f"but should be {want}.")
        padding = _additive(key_padding_mask, dtype, allowed_is_true=False)
        if padding is None:
            return mask
        padding = ops.expand(padding.reshape(batch, 1, 1, source), batch, self.num_heads, 1,
                             source).reshape(batch * self.num_heads, 1, source)
        return padding if mask is None else mask + padding
