"""In the style of the autograd tutorials: torch.autograd.grad, retain_graph, a second
derivative with create_graph, requires_grad_, no_grad and detach, and a gradient hook."""
import minigrad as torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
(g2,) = torch.autograd.grad(g.sum(), x)
print(g2)

w = torch.tensor([0.5, -1.0], requires_grad=True)
loss = (w * w).sum()
loss.backward(retain_graph=True)
loss.backward()
print(w.grad)
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

with torch.no_grad():
    z = w * 2
print(z.requires_grad, w.detach().requires_grad, torch.is_grad_enabled())

h = torch.ones(3).requires_grad_()
h.register_hook(lambda grad: grad * 10)
(h * 2).sum().backward()
print(h.grad)

a = torch.ones(2, 2, requires_grad=True)
b = a + 2
b.retain_grad()
out = (b * b * 3).mean()
out.backward()
print(b.grad, a.grad, b.grad_fn.name(), out.grad_fn.name())
print(torch.autograd.grad((a ** 2).sum(), [a])[0])
