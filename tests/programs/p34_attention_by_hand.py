"""A hand-written causal self-attention head, as a learner writes one after a Transformer
tutorial: split into q, k, v, a tril mask filled with -inf, softmax, and the gradients."""
import math

import minigrad as torch
import minigrad.nn.functional as F
from minigrad import nn

torch.manual_seed(0)
B, T, C = 2, 5, 8
x = torch.randn(B, T, C)
qkv = nn.Linear(C, 3 * C)
q, k, v = qkv(x).split(C, dim=2)
print(q.shape, k.shape, v.shape, q.grad_fn.name())
att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
mask = torch.tril(torch.ones(T, T)).view(1, T, T)
att = att.masked_fill(mask[:, :T, :T] == 0, float('-inf'))
att = F.softmax(att, dim=-1)
print(bool((att.sum(-1) - 1).abs().max() < 1e-5), bool((att.triu(1) == 0).all()))
y = att @ v
print(y.shape, att.grad_fn.name())
y.sum().backward()
print(qkv.weight.grad.shape, bool(qkv.weight.grad.abs().sum() > 0))
heads = y.view(B, T, 2, C // 2).transpose(1, 2)
print(heads.shape, heads.contiguous().view(B, 2, -1).shape)
