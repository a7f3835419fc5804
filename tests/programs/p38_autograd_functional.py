"""In the style of the torch.autograd.functional reference: vjp, jvp, jacobian, hessian, hvp and
vhp on its small example functions (exp_reducer, exp_adder, pow_reducer, pow_adder_reducer),
with fixed inputs, and what create_graph and vectorize change."""
import minigrad as torch
from minigrad.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.1, 0.2], [0.3, -0.4]], dtype=torch.float64)
print(jacobian(exp_reducer, inputs))
print(jacobian(exp_reducer, inputs, create_graph=True))
print(jacobian(exp_reducer, inputs, vectorize=True).shape)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


x = torch.tensor([0.5, -1.0], dtype=torch.float64)
y = torch.tensor([2.0, 0.25], dtype=torch.float64)
print(jacobian(exp_adder, (x, y)))


def pow_reducer(x):
    return x.pow(3).sum()


print(hessian(pow_reducer, inputs))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


print(hessian(pow_adder_reducer, (x, y)))
v = torch.ones(2, dtype=torch.float64)
print(vjp(exp_reducer, inputs, v))
print(vjp(exp_adder, (x, y), v))
v2 = torch.ones(2, 2, dtype=torch.float64)
print(jvp(exp_reducer, inputs, v2))
print(hvp(pow_reducer, inputs, v2))
print(vhp(pow_reducer, inputs, v2))
print(vhp(pow_adder_reducer, (x, y), (v, v)))
