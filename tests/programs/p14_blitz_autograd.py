"""In the style of the 60-minute blitz's autograd page: Q = 3a^3 - b^2 with an external
gradient, the derivative checked by hand, and freezing a model's parameters."""
import minigrad as torch
from minigrad import nn, optim

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)
print(Q.grad_fn.name(), [f.name() if f else None for f, _ in Q.grad_fn.next_functions])

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
c = x + y
print(f"Does `c` require gradients?: {c.requires_grad}")
d = x + z
print(f"Does `d` require gradients?: {d.requires_grad}")

model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
for param in model.parameters():
    param.requires_grad = False
model[2] = nn.Linear(8, 10)
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
model(torch.rand(4, 8)).sum().backward()
print([p.grad is None for p in model.parameters()])
optimizer.step()
print(sum(p.requires_grad for p in model.parameters()))
