"""The Parametrizations tutorial: a symmetric weight and a skew-symmetric one whose matrix
exponential is a rotation, two parametrizations stacked, right_inverse when a weight is
assigned, caching, removing a parametrization; then weight_norm and spectral_norm from
torch.nn.utils.parametrizations, and the older hook-based weight_norm."""
import minigrad as torch
import minigrad.nn.utils.parametrize as P
from minigrad import nn
from minigrad.nn.utils import parametrizations


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu(1)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)

    def right_inverse(self, A):
        return torch.zeros_like(A)


torch.manual_seed(0)
layer = nn.Linear(3, 3)
P.register_parametrization(layer, "weight", Symmetric())
print(layer)
A = layer.weight
print(torch.allclose(A, A.T), P.is_parametrized(layer), P.is_parametrized(layer, "bias"))
print(type(layer).__name__, layer.parametrizations.weight.original.shape)

rotation = nn.Linear(3, 3)
P.register_parametrization(rotation, "weight", Skew())
P.register_parametrization(rotation, "weight", MatrixExponential())
Q = rotation.weight
print(len(rotation.parametrizations.weight), torch.allclose(Q @ Q.T, torch.eye(3), atol=1e-5))
rotation.weight = torch.eye(3)
print(rotation.parametrizations.weight.original.abs().sum().item())
Q.sum().backward()
print(rotation.parametrizations.weight.original.grad is None)
loss = rotation(torch.ones(2, 3)).sum()
loss.backward()
print(rotation.parametrizations.weight.original.grad.shape)

with P.cached():
    first, second = layer.weight, layer.weight
print("cached: the same tensor", first is second, "outside:", layer.weight is layer.weight)
P.remove_parametrizations(layer, "weight", leave_parametrized=True)
print(type(layer).__name__, torch.allclose(layer.weight, layer.weight.T),
      sorted(name for name, _ in layer.named_parameters()))

normed = parametrizations.weight_norm(nn.Linear(4, 2))
print(sorted(name for name, _ in normed.named_parameters()))
g = normed.parametrizations.weight.original0
v = normed.parametrizations.weight.original1
print(g.shape, v.shape, torch.allclose(normed.weight.norm(dim=1, keepdim=True), g, atol=1e-6))
spectral = parametrizations.spectral_norm(nn.Linear(5, 5))
for _ in range(20):
    spectral(torch.ones(1, 5))
spectral.eval()
W = spectral.weight
u = torch.ones(5)
for _ in range(200):
    u = W.T @ (W @ u)
    u = u / u.norm()
print("largest singular value ~1:", abs((W @ u).norm().item() - 1) < 1e-2)
print(sorted(spectral.parametrizations.weight[0]._buffers))

old = nn.utils.weight_norm(nn.Linear(3, 2), name="weight")
print(sorted(name for name, _ in old.named_parameters()), old.weight_g.shape)
nn.utils.remove_weight_norm(old)
print(sorted(name for name, _ in old.named_parameters()))
