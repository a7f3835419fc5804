"""`minigrad.autograd.functional` against `torch.autograd.functional`: the same cases on
both, compared on values, shapes, `requires_grad` and errors (tests/func/parity.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.func.parity import check


def t(lib: Any, values: Any, requires_grad: bool = False) -> Any:
    return lib.tensor(values, dtype=lib.float64, requires_grad=requires_grad)


X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
V3 = [1.0, -2.0, 0.5]


def cube_sum(x: Any) -> Any:
    return (x ** 3).sum()


def mixed(a: Any, b: Any) -> Any:
    return (a.sin() * b).sum(0), a.exp().sum()


def under_no_grad(name: str, **kwargs: Any) -> Any:
    """A case that calls `name` inside `no_grad()` (the answer's pass follows the caller's
    mode unless create_graph asks for a graph)."""
    def case(T: Any) -> Any:
        with T.no_grad():
            return getattr(T.autograd.functional, name)(cube_sum, t(T, V3, True), t(T, V3),
                                                        **kwargs)
    return case


CASES = {
    # vjp
    "vjp one input": lambda T: T.autograd.functional.vjp(
        lambda x: x.exp().sum(1), t(T, X), t(T, [1.0, 2.0])),
    "vjp tuple in and out": lambda T: T.autograd.functional.vjp(
        mixed, (t(T, X), t(T, X)), (t(T, V3), t(T, 2.0))),
    "vjp scalar output, v None": lambda T: T.autograd.functional.vjp(cube_sum, t(T, V3)),
    "vjp create_graph": lambda T: T.autograd.functional.vjp(
        lambda x: x * x, t(T, V3), t(T, V3), create_graph=True),
    "vjp create_graph, input requires grad": lambda T: T.autograd.functional.vjp(
        lambda x: x * x, t(T, V3, True), t(T, V3), create_graph=True),
    "vjp unused input is zeros": lambda T: T.autograd.functional.vjp(
        lambda a, b: a * 2, (t(T, V3), t(T, X)), t(T, V3)),
    "vjp strict, unused input": lambda T: T.autograd.functional.vjp(
        lambda a, b: a * 2, (t(T, V3), t(T, X)), t(T, V3), strict=True),
    "vjp strict, output needs no grad": lambda T: T.autograd.functional.vjp(
        lambda a: a.detach(), t(T, V3), t(T, V3), strict=True),
    "vjp v None, output not scalar": lambda T: T.autograd.functional.vjp(
        lambda x: x * 2, t(T, V3)),
    "vjp v of the wrong size": lambda T: T.autograd.functional.vjp(
        lambda x: x * 2, t(T, V3), t(T, [1.0, 2.0])),
    "vjp v tuple of the wrong length": lambda T: T.autograd.functional.vjp(
        mixed, (t(T, X), t(T, X)), (t(T, V3),)),
    "vjp v tuple entry of the wrong size": lambda T: T.autograd.functional.vjp(
        mixed, (t(T, X), t(T, X)), (t(T, V3), t(T, V3))),
    "vjp v two tensors for one output": lambda T: T.autograd.functional.vjp(
        lambda x: x * 2, t(T, V3), (t(T, V3), t(T, V3))),
    "vjp inputs as a list": lambda T: T.autograd.functional.vjp(
        lambda x: x * 2, [t(T, V3)], t(T, V3)),
    "vjp a number in the inputs": lambda T: T.autograd.functional.vjp(
        lambda x, y: x * y, (t(T, V3), 2.0), t(T, V3)),
    "vjp function returns a number": lambda T: T.autograd.functional.vjp(
        lambda x: 2.0, t(T, V3), t(T, V3)),
    # jvp (the double backward trick)
    "jvp one input": lambda T: T.autograd.functional.jvp(
        lambda x: x.exp().sum(1), t(T, X), t(T, [[1.0, 0, 0], [0, 1, 1]])),
    "jvp tuple in and out": lambda T: T.autograd.functional.jvp(
        mixed, (t(T, X), t(T, X)), (t(T, X), t(T, X))),
    "jvp v None, one element": lambda T: T.autograd.functional.jvp(
        lambda x: x.sin() * 3, t(T, [0.3])),
    "jvp v None, several elements": lambda T: T.autograd.functional.jvp(
        lambda x: x.sin(), t(T, V3)),
    "jvp create_graph": lambda T: T.autograd.functional.jvp(
        lambda x: x ** 3, t(T, V3), t(T, V3), create_graph=True),
    "jvp strict, linear function": lambda T: T.autograd.functional.jvp(
        lambda x: x * 3, t(T, V3), t(T, V3), strict=True),
    "jvp unused input": lambda T: T.autograd.functional.jvp(
        lambda a, b: a ** 2, (t(T, V3), t(T, V3)), (t(T, V3), t(T, V3))),
    # jacobian
    "jacobian matrix to vector": lambda T: T.autograd.functional.jacobian(
        lambda x: x.tanh().sum(0), t(T, X)),
    "jacobian scalar output": lambda T: T.autograd.functional.jacobian(cube_sum, t(T, X)),
    "jacobian 0-d input": lambda T: T.autograd.functional.jacobian(
        lambda x: x * t(T, V3), t(T, 2.0)),
    "jacobian tuple in and out": lambda T: T.autograd.functional.jacobian(
        mixed, (t(T, X), t(T, X))),
    "jacobian one-tuple input": lambda T: T.autograd.functional.jacobian(
        lambda x: x.sin(), (t(T, V3),)),
    "jacobian unused input": lambda T: T.autograd.functional.jacobian(
        lambda a, b: a.sin(), (t(T, V3), t(T, X))),
    "jacobian strict, unused input": lambda T: T.autograd.functional.jacobian(
        lambda a, b: a.sin(), (t(T, V3), t(T, X)), strict=True),
    "jacobian vectorize": lambda T: T.autograd.functional.jacobian(
        mixed, (t(T, X), t(T, X)), vectorize=True),
    "jacobian vectorize, unused input": lambda T: T.autograd.functional.jacobian(
        lambda a, b: a.sin(), (t(T, V3), t(T, X)), vectorize=True),
    "jacobian vectorize and strict": lambda T: T.autograd.functional.jacobian(
        lambda x: x.sin(), t(T, V3), vectorize=True, strict=True),
    "jacobian create_graph": lambda T: T.autograd.functional.jacobian(
        lambda x: x ** 3, t(T, V3), create_graph=True),
    "jacobian create_graph, strict, linear": lambda T: T.autograd.functional.jacobian(
        lambda x: x * 3, t(T, V3), create_graph=True, strict=True),
    "jacobian output needs no grad": lambda T: T.autograd.functional.jacobian(
        lambda x: x.detach() * 2, t(T, V3)),
    "jacobian unknown strategy": lambda T: T.autograd.functional.jacobian(
        lambda x: x, t(T, V3), strategy="sideways"),
    "jacobian forward-mode, create_graph": lambda T: T.autograd.functional.jacobian(
        lambda x: x, t(T, V3), strategy="forward-mode", create_graph=True),
    "jacobian forward-mode, strict": lambda T: T.autograd.functional.jacobian(
        lambda x: x, t(T, V3), strategy="forward-mode", strict=True, vectorize=True),
    "jacobian forward-mode, not vectorized": lambda T: T.autograd.functional.jacobian(
        lambda x: x, t(T, V3), strategy="forward-mode"),
    # hessian
    "hessian one input": lambda T: T.autograd.functional.hessian(
        lambda x: (x.sin() * x).sum(), t(T, X)),
    "hessian tuple of inputs": lambda T: T.autograd.functional.hessian(
        lambda a, b: (a * b.exp()).sum(), (t(T, V3), t(T, V3))),
    "hessian vectorize": lambda T: T.autograd.functional.hessian(
        cube_sum, t(T, V3), vectorize=True),
    "hessian create_graph": lambda T: T.autograd.functional.hessian(
        cube_sum, t(T, V3), create_graph=True),
    "hessian of a linear function": lambda T: T.autograd.functional.hessian(
        lambda x: (x * 3).sum(), t(T, V3)),
    "hessian strict, linear function": lambda T: T.autograd.functional.hessian(
        lambda x: (x * 3).sum(), t(T, V3), strict=True),
    "hessian output not one element": lambda T: T.autograd.functional.hessian(
        lambda x: x ** 2, t(T, V3)),
    "hessian tuple output": lambda T: T.autograd.functional.hessian(
        lambda x: (x.sum(), x.sum()), t(T, V3)),
    "hessian unknown strategy": lambda T: T.autograd.functional.hessian(
        cube_sum, t(T, V3), outer_jacobian_strategy="up"),
    # vhp, hvp
    "vhp": lambda T: T.autograd.functional.vhp(
        lambda x: (x.sin() * x).sum(), t(T, X), t(T, X)),
    "hvp": lambda T: T.autograd.functional.hvp(
        lambda x: (x.sin() * x).sum(), t(T, X), t(T, X)),
    "hvp tuple inputs": lambda T: T.autograd.functional.hvp(
        lambda a, b: (a * b.exp()).sum(), (t(T, V3), t(T, V3)), (t(T, V3), t(T, V3))),
    "vhp create_graph": lambda T: T.autograd.functional.vhp(
        cube_sum, t(T, V3), t(T, V3), create_graph=True),
    "hvp v None, one element": lambda T: T.autograd.functional.hvp(
        lambda x: (x ** 4).sum(), t(T, [2.0])),
    "hvp v None, several": lambda T: T.autograd.functional.hvp(cube_sum, t(T, V3)),
    "vhp output not one element": lambda T: T.autograd.functional.vhp(
        lambda x: x ** 2, t(T, V3), t(T, V3)),
    "hvp tuple output": lambda T: T.autograd.functional.hvp(
        lambda x: (x.sum(),), t(T, V3), t(T, V3)),
    "hvp strict, quadratic": lambda T: T.autograd.functional.hvp(
        lambda x: (x * x).sum(), t(T, V3), t(T, V3), strict=True),
    "vhp strict, linear": lambda T: T.autograd.functional.vhp(
        lambda x: (x * 2).sum(), t(T, V3), t(T, V3), strict=True),
}
for _name in ("vjp", "jvp", "vhp", "hvp"):
    CASES[f"{_name} under no_grad"] = under_no_grad(_name)
    CASES[f"{_name} under no_grad, create_graph"] = under_no_grad(_name, create_graph=True)


@pytest.mark.parametrize("name", CASES)
def test_functional_matches_pytorch(name: str, torch_mod: Any) -> None:
    check(CASES[name], torch_mod)
