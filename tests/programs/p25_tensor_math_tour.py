"""A tour of the Tensor methods that op-by-op comparison tests (tinygrad's, teenygrad's) meet
first: statistics, cumulative ops, rounding, special functions, logic and tests."""
import minigrad as torch

x = torch.tensor([[1.0, -2.5, 3.25], [0.5, 4.0, -1.0]])
print(x.std(), x.var(dim=1), x.std(dim=0, unbiased=False), x.var(correction=0))
print(x.prod(), x.prod(dim=1), x.cumsum(dim=1), x.cumprod(0))
print(x.logsumexp(dim=1), torch.logsumexp(x, 0))
print(x.floor(), x.ceil(), x.round(), x.trunc(), x.sign())
print(torch.erf(x), x.abs().sqrt(), x.exp().log1p())
print(x.mean(axis=1), x.sum(axis=0, keepdim=True), x.amax(dim=(0, 1)), x.max(dim=1))
print(x.clamp(min=torch.tensor([0.0, -1.0, 1.0])), x.clip(-1, 1))
print((x > 0).any(), (x > 0).all(dim=1), torch.isnan(x / 0 * 0), torch.isinf(x / 0))
print(torch.isclose(x, x + 1e-9), torch.allclose(x, x * (1 + 1e-9)), torch.equal(x, x.clone()))
print(torch.tensor([True, False]) & torch.tensor([True, True]), ~torch.tensor([True, False]))
print(torch.div(torch.tensor([7, -7]), 2, rounding_mode='floor'),
      torch.div(torch.tensor([7., -7.]), 2, rounding_mode='trunc'))
print(x.norm(p=1), x.norm(dim=1), torch.tan(torch.tensor([0.0, 0.5])), x.square().sum())
y = x.clone().requires_grad_()
(y.std() + y.cumsum(1).sum() + y.prod(1).sum() + y.logsumexp(1).sum()).backward()
print(y.grad.shape, y.std().grad_fn.name(), y.cumsum(1).grad_fn.name(), y.var().grad_fn.name())
