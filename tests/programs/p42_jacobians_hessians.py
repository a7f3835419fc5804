"""In the style of PyTorch's "Jacobians, Hessians, hvp, vhp, and more: composing function
transforms" tutorial: a Jacobian row by row with autograd.grad, then jacrev, jacfwd, with
argnums, batched with vmap, Hessians, and hvp as jvp of grad."""
import minigrad as torch
import minigrad.nn.functional as F
from minigrad.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)


def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                     for vec in unit_vectors]
    return torch.stack(jacobian_rows)


xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)
jacobian = compute_jac(xp)
print(jacobian.shape)

_, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
(ft_jacobian,) = vmap(vjp_fn)(unit_vectors)
print(torch.allclose(ft_jacobian, jacobian))
ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(torch.allclose(ft_jacobian, jacobian))
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print(torch.allclose(jacfwd(predict, argnums=2)(weight, bias, x), jacobian, atol=1e-6))

batch_size = 8
xs = torch.randn(batch_size, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, xs)
print(batch_jacobian0.shape)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, xs).movedim(1, 0)
print(torch.allclose(batch_jacobian0, batch_jacobian1, atol=1e-6))

Dout, Din = 4, 3
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)
hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
print(hess_api.shape, torch.allclose(hess_api, hess_fwdfwd, atol=1e-5),
      torch.allclose(hess_api, hess_revrev, atol=1e-5))


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


x = torch.randn(2048)
tangent = torch.randn(2048)
result = hvp(f, (x,), (tangent,))
print(result.shape, torch.allclose(result, -x.sin() * tangent, atol=1e-6))
