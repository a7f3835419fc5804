"""Every op of the table in forward mode: its JVP rule, three ways, in float64.

1. against finite differences: gradcheck's forward-mode Jacobian (one JVP per input element)
   against central differences (`check_forward_ad=True`);
2. against the op's own backward: for random u and v, `<u, J v>` (forward mode) equals
   `<J^T u, v>` (backward), the identity that makes reverse mode the transpose of forward mode;
3. against PyTorch: `torch.func.jvp` of the same call with the same tangents;
4. forward mode through the op's backward (forward-over-reverse, what `jacfwd(jacrev(f))`
   and Hessian-vector products run): the gradient's tangent against finite differences of
   the gradient.

A planted wrong rule fails all three (`test_a_planted_wrong_rule_fails_each_check`).
Run one op's checks with `pytest tests/ops/test_ops_table_jvp.py -k "[mul]"`.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad
from minigrad.autograd import forward_ad
from minigrad.testing import GradcheckError, gradcheck
from minigrad.testing import strategies as mst
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_table import NO_FORWARD_AD as PYTORCH_REFUSES
from minigrad.testing.op_table import OPS

# The table's ops that PyTorch 2.13 runs in forward mode; the others refuse on both.
REFUSED = [s for s in OPS if s.name in PYTORCH_REFUSES]
# Ops PyTorch 2.13's forward AD fails on with an internal error, where minigrad's tangent is
# checked by finite differences and against backward (the differences page says so):
# norm_except_dim over dim=-1 returns a 0-d norm with the input's shape of tangent.
PYTORCH_FAILS = {"norm_except_dim_all": "Trying to set a forward gradient that has a different "
                                        "size than that of the original Tensor"}
OPS = [s for s in OPS if s.name not in PYTORCH_REFUSES]
IDS = [s.name for s in OPS]
CHECK = settings(max_examples=10, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def tangents_for(case: mst.OpCase, rng: np.random.Generator) -> list:
    return [minigrad.tensor(rng.standard_normal(t.array.shape)) for t in case.tensors]


def jvp(case: mst.OpCase, tangents: list) -> tuple:
    """(value, tangent) of the case's output with its inputs moving along `tangents`."""
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, t) for x, t in zip(case.tensors, tangents)]
        value, tangent = forward_ad.unpack_dual(case(*duals))
    assert tangent is not None, f"{case}: the output got no tangent"
    return value, tangent


def check_finite_differences(case: mst.OpCase) -> None:
    gradcheck(case, case.tensors, check_forward_ad=True, check_backward_ad=False)


def check_transpose(case: mst.OpCase, rng: np.random.Generator) -> None:
    """<u, J v> from forward mode equals <J^T u, v> from backward."""
    vs = tangents_for(case, rng)
    _, jv = jvp(case, vs)
    out = case(*case.tensors)
    u = rng.standard_normal(out.array.shape)
    grads = minigrad.autograd.grad(out, list(case.tensors), minigrad.tensor(u),
                                   allow_unused=True)
    forward = float(np.sum(u * jv.array))
    backward = sum(float(np.sum(g.array * v.array)) for g, v in zip(grads, vs) if g is not None)
    assert forward == pytest.approx(backward, rel=1e-9, abs=1e-9), (
        f"{case}: <u, J v> = {forward!r} by the JVP rule, <J^T u, v> = {backward!r} by "
        "backward: the rule is not the transpose of the backward")


def check_pytorch(case: mst.OpCase, torch, rng: np.random.Generator) -> None:
    spec = case.spec
    vs = tangents_for(case, rng)
    value, tangent = jvp(case, vs)
    primals = tuple(torch.tensor(t.array) for t in case.tensors)
    theirs = torch.func.jvp(lambda *a: spec.call_torch(torch, *a, **case.params), primals,
                            tuple(torch.tensor(v.array) for v in vs))
    np.testing.assert_allclose(value.array, theirs[0].numpy(), rtol=1e-10, atol=1e-12)
    theirs_tangent = (theirs[1] + 0).numpy()  # (+ 0: a step's tangent is a ZeroTensor)
    np.testing.assert_allclose(tangent.array, theirs_tangent, rtol=1e-8, atol=1e-10,
                               err_msg=f"{case}: the tangent differs from torch.func.jvp's")


def check_forward_over_reverse(case: mst.OpCase, rng: np.random.Generator) -> None:
    """d/dt grad(<u, f(x + t v)>) at t = 0, by forward mode through backward and by central
    differences of the gradient."""
    vs = tangents_for(case, rng)
    u = minigrad.tensor(rng.standard_normal(case(*case.tensors).array.shape))
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x, v) for x, v in zip(case.tensors, vs)]
        grads = minigrad.autograd.grad(case(*duals), duals, u, allow_unused=True)
        tangents = [None if g is None else forward_ad.unpack_dual(g).tangent for g in grads]

    def gradient_at(step: float) -> list:
        moved = [minigrad.tensor(x.array + step * v.array, requires_grad=True)
                 for x, v in zip(case.tensors, vs)]
        return minigrad.autograd.grad(case(*moved), moved, u, allow_unused=True)

    eps = 1e-6
    plus, minus = gradient_at(eps), gradient_at(-eps)
    for i, (t, p, m) in enumerate(zip(tangents, plus, minus)):
        numerical = 0.0 if p is None else (p.array - m.array) / (2 * eps)
        analytical = 0.0 if t is None else t.array
        np.testing.assert_allclose(analytical, numerical, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{case}: the tangent of input {i}'s gradient")


@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_jvp_matches_finite_differences(spec: OpSpec) -> None:
    @CHECK
    @given(case=mst.op_cases(spec))
    def check(case: mst.OpCase) -> None:
        check_finite_differences(case)

    check()


@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_jvp_is_the_transpose_of_the_backward(spec: OpSpec) -> None:
    @CHECK
    @given(case=mst.op_cases(spec), seed=st.integers(0, 2**32 - 1))
    def check(case: mst.OpCase, seed: int) -> None:
        check_transpose(case, np.random.default_rng(seed))

    check()


@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_jvp_matches_pytorch(spec: OpSpec, torch_mod) -> None:
    @settings(CHECK, max_examples=5)
    @given(case=mst.op_cases(spec), seed=st.integers(0, 2**32 - 1))
    def check(case: mst.OpCase, seed: int) -> None:
        if spec.name in PYTORCH_FAILS:
            with pytest.raises(RuntimeError, match=PYTORCH_FAILS[spec.name]):
                check_pytorch(case, torch_mod, np.random.default_rng(seed))
            return
        check_pytorch(case, torch_mod, np.random.default_rng(seed))

    check()


@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_forward_over_reverse_matches_finite_differences(spec: OpSpec) -> None:
    @settings(CHECK, max_examples=5)
    @given(case=mst.op_cases(spec), seed=st.integers(0, 2**32 - 1))
    def check(case: mst.OpCase, seed: int) -> None:
        check_forward_over_reverse(case, np.random.default_rng(seed))

    check()


def _mul_case() -> mst.OpCase:
    spec = next(s for s in OPS if s.name == "mul")
    x = minigrad.tensor([[0.5, -1.5], [2.0, 1.0]], dtype=minigrad.float64, requires_grad=True)
    y = minigrad.tensor([0.3, -0.7], dtype=minigrad.float64, requires_grad=True)
    return mst.OpCase(spec, (x, y), {})


def test_a_planted_wrong_rule_fails_each_check(monkeypatch, torch_mod) -> None:
    """Mul's rule with a slip (the product rule's second term forgotten) fails all three."""
    from minigrad.ops.arithmetic import Mul

    def forgets_a_term(ctx, ta, tb):
        a, b = ctx.inputs
        return ta * b  # BUG: + a * tb

    monkeypatch.setattr(Mul, "jvp", staticmethod(forgets_a_term))
    case = _mul_case()
    with pytest.raises(GradcheckError, match=r"Jacobian computed with forward mode mismatch "
                       r"for output 0 with respect to input 1,"):
        check_finite_differences(case)
    with pytest.raises(AssertionError, match="the rule is not the transpose of the backward"):
        check_transpose(case, np.random.default_rng(0))
    with pytest.raises(AssertionError, match="the tangent differs from torch.func.jvp's"):
        check_pytorch(case, torch_mod, np.random.default_rng(0))


def test_the_right_rule_passes_the_planted_case(torch_mod) -> None:
    case = _mul_case()
    check_finite_differences(case)
    check_transpose(case, np.random.default_rng(0))
    check_pytorch(case, torch_mod, np.random.default_rng(0))


@pytest.mark.parametrize("spec", REFUSED, ids=[s.name for s in REFUSED])
def test_what_pytorch_refuses_in_forward_mode_is_refused_in_its_words(spec, torch_mod) -> None:
    torch = torch_mod
    case = mst.op_cases(spec).example()
    with forward_ad.dual_level(), pytest.raises(NotImplementedError,
                                                match="^Trying to use forward AD with "):
        case(*[forward_ad.make_dual(x, minigrad.ones_like(x)) for x in case.tensors])
    fw = torch.autograd.forward_ad
    with fw.dual_level(), pytest.raises(NotImplementedError,
                                        match="^Trying to use forward AD with "):
        spec.call_torch(torch, *[fw.make_dual(torch.tensor(x.array), torch.ones(x.shape,
                                                                               dtype=torch.float64))
                                 for x in case.tensors], **case.params)
