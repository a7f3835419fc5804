"""Random expressions over the op table, checked with gradcheck: the ops in combination.

`strategies.expressions` builds trees such as `((x * y).sum() + x.exp()).mean()` over inputs
whose shapes broadcast together; `expression_inputs` draws values where every op of the tree
is smooth. A failure shrinks to the shortest expression that still fails, printed as source.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad
from minigrad import Function
from minigrad.testing import GradcheckError, gradcheck
from minigrad.testing import strategies as mst
from minigrad.testing.expression import Apply, Expression, Leaf
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_table import OPS, by_name

QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much]
N_EXPRESSIONS = 500


def test_random_expressions_match_finite_differences() -> None:
    """>= 500 expressions per run (derandomized under CI's profile), broadcast shapes."""
    seen: list[Expression] = []

    @settings(max_examples=N_EXPRESSIONS, deadline=None, suppress_health_check=QUIET)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        expr = data.draw(mst.expressions(("x", "y"), max_depth=3), label="expr")
        xs = data.draw(mst.expression_inputs(expr), label="inputs")
        seen.append(expr)
        assert gradcheck(expr, xs)

    check()
    assert len(seen) >= N_EXPRESSIONS
    broadcast = sum(e.shapes["x"] != e.shapes["y"] for e in seen)
    assert broadcast >= N_EXPRESSIONS // 4, broadcast  # many runs mix different shapes
    used = {op for e in seen for op in e.ops}
    assert len(used) >= 40, sorted(used)


def test_the_source_is_the_expression() -> None:
    """Evaluating `expr.source` as Python gives what `expr(...)` computes."""

    @settings(max_examples=100, deadline=None, suppress_health_check=QUIET)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        expr = data.draw(mst.expressions(("x", "y", "z"), max_depth=3))
        xs = data.draw(mst.expression_inputs(expr))
        env = dict(zip(expr.names, xs))
        value = eval(compile(expr.source, "<expr>", "eval"), {"minigrad": minigrad}, env)
        np.testing.assert_array_equal(value.array, expr(*xs).array)
        assert expr(**env).shape == value.shape

    check()


class BadExp(Function):
    """exp with a backward 1 % off: the bug the search has to find"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.exp(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.exp() * 1.01


BAD_EXP = OpSpec("bad_exp", BadExp.apply, "BadExpBackward", "BadExp.apply({0})")


def test_a_failure_shrinks_to_readable_source() -> None:
    @settings(max_examples=300, deadline=None, suppress_health_check=QUIET, database=None)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        ops = ["add", "mul", "sum", "mean", "exp", "tanh", BAD_EXP]
        expr = data.draw(mst.expressions(("x", "y"), max_depth=3, ops=ops), label="expr")
        xs = data.draw(mst.expression_inputs(expr), label="inputs")
        assert gradcheck(expr, xs)

    with pytest.raises(GradcheckError) as info:
        check()
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert re.search(r"Draw 1 \(expr\): Expression\('BadExp\.apply\([xy]\)', x=", notes), notes
    assert "input 0 (x)" in str(info.value) or "input 1 (y)" in str(info.value)


def test_expressions_agree_with_pytorch(torch_mod) -> None:
    """`expr.torch_fn(torch)` runs the same expression: same values, same gradients."""
    torch = torch_mod

    @settings(max_examples=60, deadline=None, suppress_health_check=QUIET)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        expr = data.draw(mst.expressions(("x", "y"), max_depth=3))
        xs = data.draw(mst.expression_inputs(expr))
        ts = [torch.tensor(x.array, requires_grad=True) for x in xs]
        ours, theirs = expr(*xs), expr.torch_fn(torch)(*ts)
        np.testing.assert_allclose(ours.array, theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
        seed = np.linspace(-1, 1, ours.array.size).reshape(ours.shape)
        g_ours = minigrad.autograd.grad(ours, list(xs), minigrad.tensor(seed), allow_unused=True)
        g_theirs = torch.autograd.grad(theirs, ts, torch.tensor(seed), allow_unused=True)
        for a, b, x in zip(g_ours, g_theirs, xs):
            a = np.zeros(x.shape) if a is None else a.array
            b = np.zeros(x.shape) if b is None else b.numpy()
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)

    check()


# -- the pieces --------------------------------------------------------------------------------
def _expr(op: str, *leaves: Leaf, **params) -> Expression:
    spec = by_name(op)
    with minigrad.no_grad():
        shape = spec.fn(*[minigrad.ones(v.shape) for v in leaves], **params).shape
    return Expression(Apply(spec, leaves, tuple(params.items()), tuple(shape)),
                      {v.name: v.shape for v in leaves})


def test_in_domain_rejects_kinks_ties_poles_and_huge_values() -> None:
    x, y = Leaf("x", (2,)), Leaf("y", (2,))
    t = lambda *v: minigrad.tensor(v, dtype=minigrad.float64)  # noqa: E731
    assert not _expr("relu", x).in_domain(t(0.0, 1.0))
    assert _expr("relu", x).in_domain(t(0.5, -1.0))
    assert not _expr("max", x).in_domain(t(1.0, 1.0))
    assert not _expr("maximum", x, y).in_domain(t(1.0, 2.0), t(1.0, 0.0))
    assert not _expr("log", x).in_domain(t(-1.0, 2.0))
    assert not _expr("exp", x).in_domain(t(1.0, 20.0))  # e^20 is beyond the limit
    assert _expr("exp", x).in_domain(x=t(1.0, 2.0))


def test_expressions_use_only_the_given_ops_and_inputs() -> None:
    @settings(max_examples=50, deadline=None, suppress_health_check=QUIET)
    @given(mst.expressions({"a": (2, 3), "w": (3,)}, max_depth=2, ops=["mul", "exp", "log"]))
    def check(expr: Expression) -> None:
        assert expr.shapes == {"a": (2, 3), "w": (3,)} and expr.names == ("a", "w")
        assert set(expr.ops) <= {"mul", "exp", "log", "sum", "guard"}
        if "log" in expr.ops:  # log's argument is made positive unless it already is
            assert re.search(r"(\*\* 2 \+ 0\.5\)|exp\(\))\.log\(\)", expr.source), expr
        assert repr(expr).startswith(f"Expression({expr.source!r}, a=(2, 3)")
        assert expr.node == by_name(expr.ops[0]).node if expr.ops[0] != "guard" else True

    check()


def test_every_table_op_can_appear() -> None:
    in_expressions = {s.name for s in OPS if s.in_expressions}
    assert len(in_expressions) >= 70
    with pytest.raises(ValueError, match="at least one op"):
        mst.expressions(ops=[s for s in OPS if not s.in_expressions])
