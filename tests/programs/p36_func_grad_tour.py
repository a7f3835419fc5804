"""In the style of the torch.func whirlwind tour: grad, grad_and_value, argnums and has_aux on
small functions, gradients of gradients, and vmap of grad over a batch of inputs."""
import minigrad as torch
from minigrad.func import grad, grad_and_value, vmap

x = torch.tensor(0.5, dtype=torch.float64)
print(grad(torch.sin)(x), torch.cos(x))
print(grad(grad(torch.sin))(x), -torch.sin(x))
print(grad(grad(grad(torch.sin)))(x), -torch.cos(x))


def f(x, y):
    return (x ** 2 * y).sum()


x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
y = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
print(grad(f)(x, y))
print(grad(f, argnums=1)(x, y))
gx, gy = grad(f, argnums=(0, 1))(x, y)
print(gx, gy)

w = torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64)
X = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0], [2.0, 0.5, -1.5]], dtype=torch.float64)


def loss_with_aux(w, X):
    pred = X @ w
    return (pred ** 2).mean(), pred


g, pred = grad(loss_with_aux, has_aux=True)(w, X)
print(g, pred)
g, (value, pred) = grad_and_value(loss_with_aux, has_aux=True)(w, X)
print(value, g)


def row_loss(w, row):
    return (row @ w).tanh() ** 2


per_row = vmap(grad(row_loss), in_dims=(None, 0))(w, X)
print(per_row.shape)
print(per_row)
print(torch.allclose(per_row.sum(0), grad(lambda w: row_loss(w, X).sum())(w)))
