"""A tour of shaping, indexing helpers and sorting: split, chunk, flip, roll, repeat, tril,
gather, masked_fill, sort, topk and friends, with a gradient through some of them."""
import minigrad as torch

x = torch.arange(12.0).reshape(3, 4)
print(x.split(2, dim=1), x.chunk(3), x.unbind(1)[0])
print(x.flip(0), x.roll(1, dims=1), x.repeat(1, 2).shape, x.tile((2,)).shape)
print(x.tril(), x.triu(diagonal=1), x.diagonal(), torch.diag(torch.tensor([1, 2])))
print(x.movedim(0, 1).shape, x.unflatten(1, (2, 2)).shape, x.repeat_interleave(2, dim=0).shape)
idx = torch.tensor([[0, 1], [2, 3], [1, 0]])
print(x.gather(1, idx), x.index_select(0, torch.tensor([2, 0])))
print(x.masked_fill(x > 5, -1.0), x.masked_select(x > 8), (x > 9).nonzero())
print(torch.where(x > 6), torch.zeros(3, 4).scatter(1, idx, 1.0))
v = torch.tensor([3.0, 1.0, 2.0, 5.0, 4.0])
print(v.sort(), v.sort(descending=True).indices, v.argsort(), v.topk(2))
print(v.kthvalue(2), v.median(), torch.tensor([1, 2, 2, 3]).mode(), torch.unique(torch.tensor([3, 1, 3])))
w = x.clone().requires_grad_()
loss = (w.flip(0) * w.tril()).sum() + w.gather(1, idx).sum() + w.sort(dim=1).values[:, -1].sum()
loss.backward()
print(w.grad)
print(w.split(2, dim=1)[0].grad_fn.name(), w.flip(0).grad_fn.name(), w.gather(1, idx).grad_fn.name())
