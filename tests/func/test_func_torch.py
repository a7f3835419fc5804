"""`minigrad.func`'s reverse-mode transforms against `torch.func`: grad, grad_and_value, vjp,
jacrev and functional_call on cases written here (shapes, argnums, has_aux, pytrees, nesting,
closures over tensors that require grad, errors), compared on values, shapes,
`requires_grad` and errors (tests/func/parity.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.func.parity import check


def t(T: Any, values: Any, requires_grad: bool = False) -> Any:
    return T.tensor(values, dtype=T.float64, requires_grad=requires_grad)


X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
V3 = [1.0, -2.0, 0.5]


def loss(x: Any, y: Any) -> Any:
    return (x.sin() * y).sum()


def f_pytree(p: Any, x: Any) -> Any:
    return (p["w"] @ x).tanh().sum() + (p["b"] ** 2).sum()


def perturbation(T: Any) -> Any:
    """Siskind and Pearlmutter's example: the inner y must not be confused with the outer x."""
    def f(x: Any) -> Any:
        return x * T.func.grad(lambda y: x * y)(x)
    return T.func.grad(f)(t(T, 3.0))


def closure_over_leaf(T: Any) -> Any:
    w = t(T, V3, requires_grad=True)
    g = T.func.grad(lambda x: (w * x.sin()).sum())(t(T, [0.5, 0.1, 0.2]))
    g.sum().backward()
    return g, w.grad


def through_grad_backward(T: Any) -> Any:
    x = t(T, V3, requires_grad=True)
    g = T.func.grad(lambda x: (x ** 3).sum())(x)
    g.sum().backward()
    return g, x.grad


def vjp_called_twice(T: Any) -> Any:
    out, fn = T.func.vjp(lambda x: x.exp() * 2, t(T, V3))
    return out, fn(t(T, [1.0, 0, 0])), fn(t(T, [0, 1.0, 1.0]))


def vjp_cotangent_requires_grad(T: Any) -> Any:
    v = t(T, V3, requires_grad=True)
    _, fn = T.func.vjp(lambda x: x ** 2, t(T, [1.0, 2.0, 3.0]))
    (g,) = fn(v)
    g.sum().backward()
    return g, v.grad


def under_no_grad(T: Any) -> Any:
    w = t(T, V3, requires_grad=True)
    with T.no_grad():
        return T.func.grad(lambda x: (w * x ** 2).sum())(t(T, V3))


def model_grads(T: Any) -> Any:
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 1)).double()
    with T.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(T.linspace(-1.0, 1.0, p.numel(), dtype=T.float64).reshape(p.shape) * (i + 1))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = t(T, X)

    def compute_loss(p: Any, x: Any) -> Any:
        return (T.func.functional_call(model, p, (x,)) ** 2).mean()
    return T.func.grad(compute_loss)(params, x)


G = "func.grad"
CASES = {
    # grad, grad_and_value
    "grad": lambda T: T.func.grad(loss)(t(T, X), t(T, X)),
    "grad argnums=1": lambda T: T.func.grad(loss, argnums=1)(t(T, X), t(T, X)),
    "grad argnums=-1": lambda T: T.func.grad(loss, argnums=-1)(t(T, X), t(T, X)),
    "grad argnums=(0, 1)": lambda T: T.func.grad(loss, argnums=(0, 1))(t(T, X), t(T, X)),
    "grad argnums=(1,)": lambda T: T.func.grad(loss, argnums=(1,))(t(T, X), t(T, X)),
    "grad of a dict of tensors": lambda T: T.func.grad(f_pytree)(
        {"w": t(T, X), "b": t(T, [1.0, 2.0])}, t(T, V3)),
    "grad keyword arguments pass through": lambda T: T.func.grad(
        lambda x, scale=1.0: (x * scale).exp().sum())(t(T, V3), scale=2.0),
    "grad has_aux": lambda T: T.func.grad(
        lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(t(T, V3)),
    "grad has_aux dict": lambda T: T.func.grad(
        lambda x: ((x ** 2).sum(), {"m": x * 2}), has_aux=True)(t(T, V3)),
    "grad_and_value": lambda T: T.func.grad_and_value(loss)(t(T, X), t(T, X)),
    "grad_and_value has_aux": lambda T: T.func.grad_and_value(
        lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(t(T, V3)),
    "grad of an output that ignores x": lambda T: T.func.grad(
        lambda x: t(T, 3.0))(t(T, V3)),
    "grad of grad": lambda T: T.func.grad(T.func.grad(lambda x: x ** 3))(t(T, 2.0)),
    "grad of grad of grad": lambda T: T.func.grad(T.func.grad(T.func.grad(
        lambda x: x.sin())))(t(T, 0.3)),
    "perturbation confusion": perturbation,
    "grad closes over a leaf": closure_over_leaf,
    "grad of an input that requires grad": through_grad_backward,
    "grad under no_grad": under_no_grad,
    "grad of a model through functional_call": model_grads,
    "grad wrt one input that requires grad": lambda T: T.func.grad(
        lambda x, y: (x * y).sum(), argnums=(0, 1))(t(T, V3), t(T, V3, True)),
    "grad non-scalar output": lambda T: T.func.grad(lambda x: x * 2)(t(T, V3)),
    "grad output not a tensor": lambda T: T.func.grad(lambda x: 3.0)(t(T, V3)),
    "grad has_aux without a pair": lambda T: T.func.grad(
        lambda x: x.sum(), has_aux=True)(t(T, V3)),
    "grad has_aux of a number": lambda T: T.func.grad(
        lambda x: (x.sum(), 3.0), has_aux=True)(t(T, V3)),
    "grad argnum out of range": lambda T: T.func.grad(loss, argnums=2)(t(T, X), t(T, X)),
    "grad argnum too negative": lambda T: T.func.grad(loss, argnums=-3)(t(T, X), t(T, X)),
    "grad argnums repeated": lambda T: T.func.grad(loss, argnums=(0, 0))(t(T, X), t(T, X)),
    "grad argnums empty": lambda T: T.func.grad(loss, argnums=())(t(T, X), t(T, X)),
    "grad argnums a list": lambda T: T.func.grad(loss, argnums=[0])(t(T, X), t(T, X)),
    "grad argnums a float": lambda T: T.func.grad(loss, argnums=(0.5,))(t(T, X), t(T, X)),
    "grad of a number": lambda T: T.func.grad(lambda x: x * 2)(3.0),
    "grad of an integer tensor": lambda T: T.func.grad(lambda x: x.sum())(T.tensor([1, 2])),
    # vjp
    "vjp": lambda T: (lambda o: (o[0], o[1](t(T, [[1.0, 0, 2], [0, 1, 0]]))))(
        T.func.vjp(lambda x: x.tanh() * x, t(T, X))),
    "vjp two primals": lambda T: (lambda o: (o[0], o[1](t(T, 1.0))))(
        T.func.vjp(loss, t(T, X), t(T, X))),
    "vjp tuple output": lambda T: (lambda o: (o[0], o[1]((t(T, V3), t(T, 2.0)))))(
        T.func.vjp(lambda x: (x.exp(), x.sum()), t(T, V3))),
    "vjp dict primal": lambda T: (lambda o: (o[0], o[1](t(T, 1.0))))(
        T.func.vjp(f_pytree, {"w": t(T, X), "b": t(T, [1.0, 2.0])}, t(T, V3))),
    "vjp has_aux": lambda T: (lambda o: (o[0], o[1](t(T, V3)), o[2]))(
        T.func.vjp(lambda x: (x.sin(), x.cos()), t(T, V3), has_aux=True)),
    "vjp_fn called twice": vjp_called_twice,
    "vjp cotangent requires grad": vjp_cotangent_requires_grad,
    "vjp cotangent of another structure": lambda T: T.func.vjp(
        lambda x: (x, x * 2), t(T, V3))[1](t(T, V3)),
    "vjp cotangent of another shape": lambda T: T.func.vjp(
        lambda x: x * 2, t(T, V3))[1](t(T, [1.0, 2.0])),
    "vjp output an integer tensor": lambda T: T.func.vjp(lambda x: (x > 0).long(), t(T, V3)),
    "vjp output a number": lambda T: T.func.vjp(lambda x: (x, 2.0), t(T, V3)),
    "vjp output None": lambda T: T.func.vjp(lambda x: None, t(T, V3)),
    "vjp primal a number": lambda T: T.func.vjp(lambda x: x * 2, 3.0),
    "vjp has_aux without a pair": lambda T: T.func.vjp(lambda x: x, t(T, V3), has_aux=True),
    # jacrev
    "jacrev": lambda T: T.func.jacrev(lambda x: x.tanh().sum(0))(t(T, X)),
    "jacrev scalar output": lambda T: T.func.jacrev(lambda x: (x ** 3).sum())(t(T, X)),
    "jacrev 0-d input": lambda T: T.func.jacrev(lambda x: x * t(T, V3))(t(T, 2.0)),
    "jacrev argnums=(0, 1)": lambda T: T.func.jacrev(
        lambda x, y: x * y.sum(), argnums=(0, 1))(t(T, V3), t(T, X)),
    "jacrev argnums=1": lambda T: T.func.jacrev(lambda x, y: x * y, argnums=1)(
        t(T, V3), t(T, V3)),
    "jacrev tuple output": lambda T: T.func.jacrev(
        lambda x: (x.sin(), x.sum()))(t(T, V3)),
    "jacrev dict output": lambda T: T.func.jacrev(
        lambda x: {"a": x.sin(), "b": x.exp().sum()})(t(T, V3)),
    "jacrev dict input": lambda T: T.func.jacrev(f_pytree)(
        {"w": t(T, X), "b": t(T, [1.0, 2.0])}, t(T, V3)),
    "jacrev has_aux": lambda T: T.func.jacrev(lambda x: (x.sin(), x.cos()), has_aux=True)(
        t(T, V3)),
    "jacrev chunk_size=1": lambda T: T.func.jacrev(lambda x: x.sin() * 2, chunk_size=1)(
        t(T, X)),
    "jacrev chunk_size=4": lambda T: T.func.jacrev(lambda x: x.sin() * 2, chunk_size=4)(
        t(T, X)),
    "jacrev chunk_size=0": lambda T: T.func.jacrev(lambda x: x, chunk_size=0),
    "jacrev of jacrev": lambda T: T.func.jacrev(T.func.jacrev(lambda x: (x ** 3).sum()))(
        t(T, V3)),
    "jacrev of an input that requires grad": lambda T: T.func.jacrev(lambda x: x ** 2)(
        t(T, V3, True)),
    "jacrev output ignores x": lambda T: T.func.jacrev(lambda x, y: y * 2)(t(T, V3), t(T, V3)),
    # functional_call, stack_module_state
    "functional_call": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), {"weight": t(T, X), "bias": t(T, [1.0, -1.0])},
        (t(T, [V3]),)),
    "functional_call args not a tuple": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), {"weight": t(T, X), "bias": t(T, [1.0, -1.0])},
        t(T, [V3])),
    "functional_call two dicts": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), ({"weight": t(T, X)}, {"bias": t(T, [1.0, -1.0])}),
        (t(T, [V3]),)),
    "functional_call a key twice": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), ({"weight": t(T, X)}, {"weight": t(T, X)}),
        (t(T, [V3]),)),
    "functional_call strict, a key missing": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), {"weight": t(T, X)}, (t(T, [V3]),), strict=True),
    "functional_call strict, an unknown key": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), {"weight": t(T, X), "bias": t(T, [1.0, 2.0]),
                                     "foo": t(T, 1.0)}, (t(T, [V3]),), strict=True),
    "functional_call not a dict": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), 3, (t(T, [V3]),)),
    "functional_call a list with a non-dict": lambda T: T.func.functional_call(
        T.nn.Linear(3, 2).double(), [{}, 3], (t(T, [V3]),)),
    "functional_call keeps the module's own weights": lambda T: (lambda m: (
        T.func.functional_call(m, {"weight": t(T, X)}, (t(T, [V3]),)).shape,
        type(m.weight).__name__, m.bias.shape))(T.nn.Linear(3, 2).double()),
    "stack_module_state": lambda T: (lambda s: ({k: v.shape for k, v in s[0].items()},
                                                [v.requires_grad for v in s[0].values()]))(
        T.func.stack_module_state([T.nn.Linear(3, 2), T.nn.Linear(3, 2)])),
    "stack_module_state no models": lambda T: T.func.stack_module_state([]),
    "stack_module_state mixed classes": lambda T: T.func.stack_module_state(
        [T.nn.Linear(3, 2), T.nn.Tanh()]),
}


@pytest.mark.parametrize("name", CASES)
def test_func_matches_pytorch(name: str, torch_mod: Any) -> None:
    check(CASES[name], torch_mod)
