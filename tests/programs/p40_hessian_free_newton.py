"""In the style of a numerical-optimisation exercise: Newton's method on a small logistic
regression, once with the full Hessian (torch.autograd.functional.hessian) and once without
forming it, by conjugate gradient on Hessian-vector products (torch.autograd.functional.hvp)."""
import minigrad as torch
from minigrad.autograd.functional import hessian, hvp

X = torch.tensor([[1.0, 0.5, -1.2], [1.0, -0.3, 0.8], [1.0, 1.5, 0.3], [1.0, -1.1, -0.4],
                  [1.0, 0.2, 1.9], [1.0, -0.7, -1.6]], dtype=torch.float64)
y = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], dtype=torch.float64)


def loss(w):
    logits = X @ w
    return (torch.nn.functional.softplus(logits) - y * logits).mean() + 0.05 * (w ** 2).sum()


def gradient(w):
    w = w.detach().requires_grad_()
    (g,) = torch.autograd.grad(loss(w), w)
    return g


w = torch.zeros(3, dtype=torch.float64)
for step in range(6):
    H = hessian(loss, w)
    g = gradient(w)
    # the 3x3 Newton step H d = g, solved by Gaussian elimination on [H | g]
    A = torch.cat([H, g.unsqueeze(1)], dim=1)
    for i in range(3):
        A[i] = A[i] / A[i, i]
        for j in range(3):
            if j != i:
                A[j] = A[j] - A[j, i] * A[i]
    w = w - A[:, 3]
    print(step, round(loss(w).item(), 6), round(g.norm().item(), 6))


def conjugate_gradient(w, b, steps=10):
    d = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    for _ in range(steps):
        _, Hp = hvp(loss, w, p)
        alpha = (r @ r) / (p @ Hp)
        d = d + alpha * p
        r_new = r - alpha * Hp
        if r_new.norm() < 1e-10:
            break
        p = r_new + ((r_new @ r_new) / (r @ r)) * p
        r = r_new
    return d


w2 = torch.zeros(3, dtype=torch.float64)
for step in range(6):
    w2 = w2 - conjugate_gradient(w2, gradient(w2))
print(torch.allclose(w, w2), [round(v, 5) for v in w2.tolist()])
