"""d2l's attention chapters written with einsum, as many readers rewrite them: masked softmax
over valid lengths, scaled dot-product and additive attention, multi-head attention whose
heads are an einsum away, checked against F.scaled_dot_product_attention; tensordot and
bilinear scoring; and what the graph records for an einsum (PyTorch's own nodes)."""
import math

import minigrad as torch
import minigrad.nn.functional as F
from minigrad import nn


def masked_softmax(X, valid_lens):
    """Softmax over the last axis, keys past each valid length masked out (d2l's)."""
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = X.reshape(-1, shape[-1])
    mask = torch.arange(shape[-1], dtype=torch.float32)[None, :] < valid_lens[:, None]
    X[~mask] = -1e6
    return F.softmax(X.reshape(shape), dim=-1)


torch.manual_seed(0)
probs = masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3]))
print(probs.shape, (probs[0, :, 2:] == 0).all().item(), (probs[1, :, 3:] == 0).all().item())

B, Q, K, D = 2, 3, 5, 4
queries, keys = torch.randn(B, Q, D, requires_grad=True), torch.randn(B, K, D)
values = torch.randn(B, K, 6, requires_grad=True)
scores = torch.einsum("bqd,bkd->bqk", queries, keys) / math.sqrt(D)
print(scores.shape, torch.allclose(scores, queries @ keys.transpose(1, 2) / math.sqrt(D)))
weights = masked_softmax(scores, torch.tensor([2, 5]))
out = torch.einsum("bqk,bkv->bqv", weights, values)
print(out.shape, out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
mask = torch.arange(K)[None, None, :] < torch.tensor([2, 5])[:, None, None]
reference = F.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)
print("matches sdpa:", torch.allclose(out, reference, atol=1e-6))
out.sum().backward()
print(queries.grad.shape, values.grad.shape, bool(values.grad[0, 2:].abs().sum() == 0))

# multi-head: split D into h heads, attend per head, merge (the einsum spells the heads)
h, d_model = 2, 8
W_q, W_k, W_v = (nn.Linear(d_model, d_model, bias=False) for _ in range(3))
X = torch.randn(B, K, d_model)
q, k, v = (w(X).reshape(B, K, h, d_model // h) for w in (W_q, W_k, W_v))
att = torch.einsum("bqhd,bkhd->bhqk", q, k).div(math.sqrt(d_model // h)).softmax(-1)
merged = torch.einsum("bhqk,bkhd->bqhd", att, v).reshape(B, K, d_model)
by_sdpa = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                         v.transpose(1, 2)).transpose(1, 2).reshape(B, K, -1)
print(att.shape, merged.shape, torch.allclose(merged, by_sdpa, atol=1e-6))
print(torch.einsum("ii", torch.eye(3) * 2).item(), torch.einsum("i,j->ij", torch.ones(2),
                                                                  torch.arange(3.)).tolist())
print(torch.einsum("...ij->...ji", torch.ones(2, 3, 4)).shape, torch.einsum("bij->", X).shape)

# additive scores through tensordot, bilinear scores through nn.Bilinear
W = torch.ones(d_model, 3)
print(torch.tensordot(X, W, dims=1).shape, torch.tensordot(X, X, dims=([1, 2], [1, 2])).shape)
bilinear = nn.Bilinear(d_model, d_model, 1)
print(bilinear, bilinear(X, X).shape, bilinear(X, X).grad_fn.name())
