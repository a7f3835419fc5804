"""vmap over the op table: for every op, `vmap(op)` of a batch of two samples gives the op of
each sample, stacked, in value and in gradient (backward through the vmap). Where an op has a
batching rule this checks the rule; where it has none it checks the per-sample fallback. The
ops a rule is simple for (elementwise ops, reductions, reshapes, matmul) are checked to run
batched, with nothing run per sample."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import minigrad
from minigrad.autograd import events
from minigrad.func import vmap
from minigrad.testing import strategies as mst
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_table import OPS, by_name

# The table's ops that PyTorch 2.13's vmap refuses, with its error (minigrad's is the same):
# checkpoint's backward reruns the block on the batched inputs it kept, after the vmap returned;
# the spectral-norm parametrization draws its vectors at random.
PYTORCH_REFUSES = {
    "checkpoint": ("backward", "Either your tensor may have escaped from inside a function being "
                   "vmapped"),
    "spectral_norm": ("forward", "vmap: called random operation while in randomness error mode"),
}
REFUSED = [spec for spec in OPS if spec.name in PYTORCH_REFUSES]
OPS = [spec for spec in OPS if spec.name not in PYTORCH_REFUSES]
IDS = [spec.name for spec in OPS]
SETTINGS = settings(max_examples=6, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
# Ops whose batching rule is simple: they must run batched (not per sample).
BATCHED = ("add", "mul", "sub", "div", "add_scalar", "radd", "rsub", "rmul", "rdiv", "neg",
           "pow_2", "rpow", "exp", "log", "sqrt", "sin", "tanh", "sigmoid", "relu", "sum",
           "mean", "mm", "matmul_batched", "dot", "mv", "reshape", "permute", "transpose",
           "unsqueeze", "softmax", "log_softmax")


def how_vmap_ran(fn, *args) -> tuple:
    """(vmap's result, its TransformEnd notes)."""
    notes = []
    with events.listen(lambda e: notes.append(e.notes) if isinstance(e, events.TransformEnd)
                       and e.name == "func.vmap" else None):
        out = vmap(fn)(*args)
    return out, notes[-1]


@pytest.mark.parametrize("spec", OPS, ids=IDS)
def test_vmap_of_an_op_is_the_op_of_each_sample(spec: OpSpec) -> None:
    @SETTINGS
    @given(case=mst.op_cases(spec), data=st.data())
    def check(case: mst.OpCase, data: st.DataObject) -> None:
        other = tuple(data.draw(mst.tensors(shape=tuple(x.shape), domain=spec.domain(i)))
                      for i, x in enumerate(case.tensors))
        assume(spec.valid is None or spec.valid(*[x.array for x in other], **case.params))
        samples = [[x.detach().requires_grad_() for x in s] for s in (case.tensors, other)]
        batch = [minigrad.stack([s[i].detach() for s in samples]).requires_grad_()
                 for i in range(spec.arity)]
        out, _ = how_vmap_ran(case, *batch)
        expected = minigrad.stack([case(*s) for s in samples])
        np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(),
                                   rtol=1e-10, atol=1e-12, err_msg=repr(case))
        weights = minigrad.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape))
        found = minigrad.autograd.grad((out * weights).sum(), batch)
        wanted = minigrad.autograd.grad((expected * weights).sum(), [x for s in samples
                                                                    for x in s])
        for i, g in enumerate(found):
            per_sample = np.stack([wanted[i].numpy(), wanted[spec.arity + i].numpy()])
            np.testing.assert_allclose(g.numpy(), per_sample, rtol=1e-10, atol=1e-12,
                                       err_msg=f"gradient of input {i}: {case!r}")

    check()


@pytest.mark.parametrize("name", BATCHED)
def test_simple_ops_run_batched(name: str) -> None:
    spec = by_name(name)

    @settings(SETTINGS, max_examples=3)
    @given(case=mst.op_cases(spec))
    def check(case: mst.OpCase) -> None:
        batch = [minigrad.stack([x.detach(), x.detach() * 0.5]) for x in case.tensors]
        _, notes = how_vmap_ran(case, *batch)
        assert notes["how"] == "batched", (case, notes)

    check()


@pytest.mark.parametrize("spec", REFUSED, ids=[spec.name for spec in REFUSED])
def test_what_pytorchs_vmap_refuses_is_refused_in_its_words(spec: OpSpec, torch_mod) -> None:
    when, message = PYTORCH_REFUSES[spec.name]

    @settings(SETTINGS, max_examples=2)
    @given(case=mst.op_cases(spec))
    def check(case: mst.OpCase) -> None:
        for lib, run in ((minigrad, case), (torch_mod, lambda *a: spec.call_torch(torch_mod, *a))):
            batch = [lib.tensor(np.stack([x.array, x.array * 0.5]), requires_grad=True)
                     for x in case.tensors]
            with pytest.raises(RuntimeError, match=message):
                out = lib.func.vmap(run)(*batch)
                assert when == "backward", f"{lib.__name__}: the forward ran"
                lib.autograd.grad(out.sum(), batch)

    check()
