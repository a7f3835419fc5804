"""Forward mode as function transforms against PyTorch: `torch.func.jvp`, `jacfwd`,
`hessian` (jacfwd over jacrev), jvp of jvp, hvp as jvp of grad, and
`torch.autograd.functional`'s forward-mode jacobian and hessian; values, shapes,
`requires_grad` and errors (tests/func/parity.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.func.parity import check


def t(T: Any, values: Any, requires_grad: bool = False) -> Any:
    return T.tensor(values, dtype=T.float64, requires_grad=requires_grad)


X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
V3 = [1.0, -2.0, 0.5]


def f(x: Any) -> Any:
    return (x.sin() * x.exp()).sum(0)


def g(x: Any, y: Any) -> Any:
    return (x * y.tanh()).sum() + (x ** 3 * y.exp()).sum()


def hvp(T: Any) -> Any:
    def product(fn: Any, primals: tuple, tangents: tuple) -> Any:
        return T.func.jvp(T.func.grad(fn), primals, tangents)[1]
    return product(lambda x: (x.sin() * x ** 2).sum(), (t(T, V3),), (t(T, [1.0, 0.5, -1.0]),))


def nested_jvp(T: Any) -> Any:
    def first(x: Any) -> Any:
        return T.func.jvp(lambda y: y.sin() * y, (x,), (t(T, [1.0, 0.0, 0.0]),))[1]
    return T.func.jvp(first, (t(T, V3),), (t(T, [1.0, 1.0, 1.0]),))


CASES = {
    "jvp": lambda T: T.func.jvp(f, (t(T, X),), (t(T, [[1.0, 0, 0], [0, 1, 1]]),)),
    "jvp two primals": lambda T: T.func.jvp(g, (t(T, V3), t(T, V3)),
                                            (t(T, [1.0, 0, 0]), t(T, [0, 1.0, 0]))),
    "jvp tuple output": lambda T: T.func.jvp(lambda x: (x.exp(), x.sum()), (t(T, V3),),
                                             (t(T, V3),)),
    "jvp dict primal": lambda T: T.func.jvp(lambda p: (p["a"] * p["b"]).sum(),
                                            ({"a": t(T, V3), "b": t(T, V3)},),
                                            ({"a": t(T, V3), "b": t(T, [0.0, 0, 1])},)),
    "jvp has_aux": lambda T: T.func.jvp(lambda x: (x.sin(), x.cos()), (t(T, V3),),
                                        (t(T, V3),), has_aux=True),
    "jvp output ignores x": lambda T: T.func.jvp(lambda x: t(T, V3) * 2, (t(T, V3),),
                                                 (t(T, V3),)),
    "jvp of a primal that requires grad": lambda T: T.func.jvp(
        lambda x: x ** 2, (t(T, V3, True),), (t(T, V3),)),
    "jvp of jvp": nested_jvp,
    "hvp as jvp of grad": hvp,
    "jvp primals not a tuple": lambda T: T.func.jvp(lambda x: x, t(T, V3), (t(T, V3),)),
    "jvp tangents of another structure": lambda T: T.func.jvp(lambda x: x, (t(T, V3),),
                                                              t(T, V3)),
    "jvp two tangents for one primal": lambda T: T.func.jvp(lambda x: x, (t(T, V3),),
                                                            (t(T, V3), t(T, V3))),
    "jvp tangent of another size": lambda T: T.func.jvp(lambda x: x, (t(T, V3),),
                                                        (t(T, [1.0, 2.0]),)),
    "jvp no primals": lambda T: T.func.jvp(lambda: t(T, 1.0), (), ()),
    "jvp a number among the primals": lambda T: T.func.jvp(lambda x, y: x * y,
                                                           (t(T, V3), 2.0), (t(T, V3), 1.0)),
    "jvp output a number": lambda T: T.func.jvp(lambda x: 3.0, (t(T, V3),), (t(T, V3),)),
    "jvp output None": lambda T: T.func.jvp(lambda x: None, (t(T, V3),), (t(T, V3),)),
    "jvp strict, output ignores x": lambda T: T.func.jvp(
        lambda x: t(T, V3), (t(T, V3),), (t(T, V3),), strict=True),
    "jvp integer primal": lambda T: T.func.jvp(lambda x: x * 2, (T.tensor([1, 2]),),
                                               (T.tensor([1, 2]),)),
    "jvp has_aux without a pair": lambda T: T.func.jvp(lambda x: x, (t(T, V3),), (t(T, V3),),
                                                       has_aux=True),
    # jacfwd
    "jacfwd": lambda T: T.func.jacfwd(f)(t(T, X)),
    "jacfwd argnums=(0, 1)": lambda T: T.func.jacfwd(g, argnums=(0, 1))(t(T, V3), t(T, V3)),
    "jacfwd argnums=1": lambda T: T.func.jacfwd(lambda x, y: x * y.exp(), argnums=1)(
        t(T, V3), t(T, V3)),
    "jacfwd 0-d input": lambda T: T.func.jacfwd(lambda x: x * t(T, V3))(t(T, 2.0)),
    "jacfwd scalar output": lambda T: T.func.jacfwd(lambda x: (x ** 3).sum())(t(T, X)),
    "jacfwd tuple output": lambda T: T.func.jacfwd(lambda x: (x.sin(), x.sum()))(t(T, V3)),
    "jacfwd has_aux": lambda T: T.func.jacfwd(lambda x: (x.sin(), x.cos()), has_aux=True)(
        t(T, V3)),
    "jacfwd equals jacrev": lambda T: (lambda x: (T.func.jacfwd(f)(x), T.func.jacrev(f)(x)))(
        t(T, X)),
    "jacfwd argnum out of range": lambda T: T.func.jacfwd(lambda x: x, argnums=3)(t(T, V3)),
    "jacfwd of a number": lambda T: T.func.jacfwd(lambda x: x.sum())(3.0),
    "jacfwd of jacfwd": lambda T: T.func.jacfwd(T.func.jacfwd(lambda x: (x ** 3).sum()))(
        t(T, V3)),
    "jacrev of jacfwd": lambda T: T.func.jacrev(T.func.jacfwd(lambda x: x.sin() * x))(
        t(T, V3)),
    "jacfwd of jacrev": lambda T: T.func.jacfwd(T.func.jacrev(
        lambda x: (x.exp() * x ** 2).sum()))(t(T, V3)),
    # hessian
    "hessian": lambda T: T.func.hessian(lambda x: (x.sin() * x ** 2).sum())(t(T, V3)),
    "hessian of a matrix input": lambda T: T.func.hessian(lambda x: (x.tanh() ** 2).sum())(
        t(T, X)),
    "hessian of a softmax": lambda T: T.func.hessian(
        lambda x: (x.softmax(0) * t(T, [1.0, 2.0, 3.0])).sum())(t(T, V3)),
    "hessian through a linear layer": lambda T: T.func.hessian(
        lambda w: T.nn.functional.linear(t(T, X), w).sigmoid().sum())(t(T, [V3, V3])),
    "hessian argnums=1": lambda T: T.func.hessian(g, argnums=1)(t(T, V3), t(T, V3)),
    "hessian argnums=(0, 1)": lambda T: T.func.hessian(g, argnums=(0, 1))(t(T, V3), t(T, V3)),
    "hessian of an input that requires grad": lambda T: T.func.hessian(
        lambda x: (x ** 3).sum())(t(T, V3, True)),
    # autograd.functional in forward mode
    "functional jacobian forward-mode": lambda T: T.autograd.functional.jacobian(
        f, t(T, X), vectorize=True, strategy="forward-mode"),
    "functional jacobian forward-mode, tuples": lambda T: T.autograd.functional.jacobian(
        lambda a, b: (a * b, a.exp()), (t(T, V3), t(T, V3)), vectorize=True,
        strategy="forward-mode"),
    "functional hessian forward over reverse": lambda T: T.autograd.functional.hessian(
        lambda x: (x.sin() * x ** 2).sum(), t(T, V3), vectorize=True,
        outer_jacobian_strategy="forward-mode"),
}


@pytest.mark.parametrize("name", CASES)
def test_forward_transforms_match_pytorch(name: str, torch_mod: Any) -> None:
    check(CASES[name], torch_mod)
