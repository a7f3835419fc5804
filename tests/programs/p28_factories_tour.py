"""Factories with every spelling of a size a tutorial uses: *size, a tuple, size=, Size; and
the random ones, checked by shape and range only."""
import minigrad as torch

print(torch.zeros(2, 3).shape, torch.zeros((2, 3)).shape, torch.zeros(size=(2, 3)).shape)
print(torch.ones([2]).shape, torch.empty(3, 1).shape, torch.zeros(torch.Size([1, 2])).shape)
print(torch.randn(size=(2, 2)).shape, torch.rand(4).shape, torch.randn(()).shape)
print(torch.full((2, 2), 7), torch.full((2,), 7.0).dtype, torch.full((1,), True).dtype)
print(torch.eye(3), torch.eye(2, 3).shape)
print(torch.arange(5), torch.arange(1, 4, 0.5), torch.arange(0, 1, 0.25).dtype)
print(torch.linspace(0, 1, 5), torch.logspace(0, 2, 3))
r = torch.randint(0, 10, (3, 4))
print(r.shape, r.dtype, bool(((r >= 0) & (r < 10)).all()), torch.randint(5, (2,)).shape)
p = torch.randperm(6)
print(p.dtype, sorted(p.tolist()))
n = torch.normal(2.0, 3.0, size=(1000,))
print(n.shape, abs(n.mean().item() - 2) < 0.5, torch.normal(torch.zeros(3), torch.ones(3)).shape)
print(torch.normal(mean=torch.arange(1., 4.), std=0.1).shape, torch.normal(0.0, torch.ones(2)).shape)
t = torch.tensor([[1.0, 2.0]])
print(torch.zeros_like(t), torch.ones_like(t, dtype=torch.int64), torch.full_like(t, 3))
print(torch.empty_like(t).shape, torch.rand_like(t).shape, torch.randn_like(t).dtype)
print(t.new_zeros(2), t.new_ones((1, 2)), t.new_full((2,), 5.0), t.new_tensor([1, 2]).dtype)
s = torch.Size([2, 3, 4])
print(s, s[1:], s.numel(), len(s), s == (2, 3, 4), torch.ones(s).size(1))
