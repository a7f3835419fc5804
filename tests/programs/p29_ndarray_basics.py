"""In the style of d2l's "data manipulation": arange, numel, reshape, elementwise ops,
concatenation, broadcasting, slicing and assignment, saving memory, the numpy round trip."""
import minigrad as torch

x = torch.arange(12)
print(x, x.shape, x.numel())
X = x.reshape(3, 4)
print(X, x.reshape(-1, 4).shape)
print(torch.zeros((2, 3, 4)).shape, torch.ones((2, 3, 4)).sum(), torch.randn(3, 4).shape)
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
print(x + y, x - y, x * y, x / y, x ** y)
print(torch.exp(x))
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y, X.sum())
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a, b, a + b)
print(X[-1], X[1:3])
X[1, 2] = 9
print(X)
X[0:2, :] = 12
print(X)
before = id(Y)
Y = Y + X
print(id(Y) == before)
Z = torch.zeros_like(Y)
print('id(Z):', id(Z) > 0)
zid = id(Z)
Z[:] = X + Y
print('same Z:', id(Z) == zid)
before = id(X)
X += Y
print(id(X) == before)
A = X.numpy()
B = torch.tensor(A)
print(type(A).__name__, type(B).__name__)
a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))
