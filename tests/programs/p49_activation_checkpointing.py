"""Activation checkpointing as the torch.utils.checkpoint docs and the memory tutorials show
it: a deep block run under checkpoint (both implementations), checkpoint_sequential over a
Sequential, the gradients they give (the ones of the plain run), what the graph records,
and the errors and warnings a learner meets on the way."""
import warnings

import minigrad as torch
from minigrad import nn
from minigrad.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(),
                      nn.Linear(16, 8))
x = torch.randn(4, 8, requires_grad=True)


def grads(run):
    block.zero_grad()
    x.grad = None
    out = run(x)
    out.pow(2).sum().backward()
    return out, [x.grad.clone()] + [p.grad.clone() for p in block.parameters()]


plain_out, plain = grads(block)
for reentrant in (False, True):
    out, got = grads(lambda t, r=reentrant: checkpoint(block, t, use_reentrant=r))
    same = all(torch.allclose(a, b, atol=1e-6) for a, b in zip(plain, got))
    print(f"use_reentrant={reentrant}: {out.grad_fn.name()} same grads: {same}",
          torch.equal(out, plain_out))

out, got = grads(lambda t: checkpoint_sequential(block, 2, t, use_reentrant=False))
print("checkpoint_sequential:", out.shape,
      all(torch.allclose(a, b, atol=1e-6) for a, b in zip(plain, got)))


def attention_like(q, k):
    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ k


q, k = torch.randn(2, 3, 4, requires_grad=True), torch.randn(2, 3, 4, requires_grad=True)
y = checkpoint(attention_like, q, k, use_reentrant=False)
y.sum().backward()
q_grad, k_grad = q.grad.clone(), k.grad.clone()
q.grad = k.grad = None
attention_like(q, k).sum().backward()
print("two inputs:", torch.allclose(q_grad, q.grad, atol=1e-6),
      torch.allclose(k_grad, k.grad, atol=1e-6))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint(block, x)
print("without use_reentrant:", caught[0].category.__name__,
      "use_reentrant" in str(caught[0].message))

dropout_block = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
x.grad = None
torch.manual_seed(1)
checkpoint(dropout_block, x, use_reentrant=False).sum().backward()
replayed, x.grad = x.grad, None
torch.manual_seed(1)
dropout_block(x).sum().backward()
print("dropout's mask replayed (RNG state kept):", torch.allclose(replayed, x.grad))

frozen = torch.randn(4, 8)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    z = checkpoint(block, frozen, use_reentrant=True)
print(z.requires_grad, [str(w.message)[:52] for w in caught])
try:
    torch.autograd.grad(checkpoint(block, x, use_reentrant=True).sum(), x)
except RuntimeError as error:
    print("reentrant and autograd.grad:", str(error)[:60])
