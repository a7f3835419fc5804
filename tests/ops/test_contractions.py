"""einsum, tensordot and matrix_exp side by side with PyTorch: values, gradients and the whole
graph (node for node: PyTorch 2.13 records einsum as unsqueeze/permute/diagonal/sum/bmm/view
steps, and so does minigrad), every error in PyTorch's words. (Finite differences and
gradgradcheck: the op table's entries einsum_*, tensordot*, matrix_exp.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from compare import against_torch

EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("i,j->ij", [(3,), (4,)]), ("ij,ij->i", [(2, 3), (2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("i,i", [(3,), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij", [(2, 3)]), ("ji", [(2, 3)]), ("iij->j", [(2, 2, 3)]), ("ij,j->i", [(2, 3), (3,)]),
    ("i,i,i->", [(3,), (3,), (3,)]), ("...,...->...", [(2, 3), (2, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("ab,cd->abcd", [(2, 1), (1, 3)]),
    ("i,jk->", [(2,), (2, 3)]), ("ij,kj->ik", [(2, 1), (3, 4)]),
    (" i j , j k -> i k ", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("equation, shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_values_gradients_and_graph_are_torchs(equation, shapes, torch_mod):
    rng = np.random.default_rng(0)
    inputs = {f"x{i}": rng.standard_normal(s) for i, s in enumerate(shapes)}
    names = ", ".join(inputs)
    fn = eval(f"lambda {names}, torch: torch.einsum({equation!r}, {names})")
    report = against_torch(fn, gradient="random", **inputs)
    assert report.ok and report.graph.equal, str(report)


@pytest.mark.parametrize("call", [
    "einsum(a, [0, 1], b, [1, 2], [0, 2])",
    "einsum(a, [0, 1], b, [1, 2])", "einsum(a, [Ellipsis, 1], b, [1, 2])",
    "einsum('ij,jk->ik', [a, b])", "einsum('ij,jk->ik', (a, b))",
    "tensordot(c, d, dims=2)", "tensordot(a, b, dims=([1], [0]))", "tensordot(a, b, 1)",
    "tensordot(a, b, dims=[[1], [0]])", "tensordot(c, d, dims=tensor([[1, 2], [0, 1]]))",
    "tensordot(a, b, dims=tensor(1))",
])
def test_every_calling_form_is_torchs(call, torch_mod):
    rng = np.random.default_rng(1)
    arrays = {"a": rng.standard_normal((2, 3)), "b": rng.standard_normal((3, 4)),
              "c": rng.standard_normal((2, 3, 4)), "d": rng.standard_normal((3, 4, 2))}
    out = {}
    for lib in (minigrad, torch_mod):
        env = {k: lib.tensor(v) for k, v in arrays.items()}
        env.update(einsum=lib.einsum, tensordot=lib.tensordot, tensor=lib.tensor)
        out[lib] = eval(call, env).numpy()
    np.testing.assert_allclose(out[minigrad], out[torch_mod], rtol=1e-12)


ERRORS = [
    "einsum('ij,jk', a)", "einsum('ij', a, a)", "einsum('ijk', a)", "einsum('i...j...', a)",
    "einsum('i.j', a)", "einsum('ij->kk', a)", "einsum('ij->ii', a)", "einsum('i1', a)",
    "einsum('ij->i1', a)", "einsum('ij,ij', a, b)", "einsum('ii', b)", "einsum('ij')",
    "einsum(a)", "einsum(a, [0, 60])", "einsum('...->....', a)", "einsum('...i,...i', c, d)",
    "einsum('ij,jk->ik', a, e)", "einsum('...->...,', a)",
    "tensordot(a, b, dims=-1)", "tensordot(a, b, dims=3)", "tensordot(a, b, dims=([0],[0,1]))",
    "tensordot(a, b, dims=([1],[1]))", "tensordot(a, b, dims='x')",
    "tensordot(a, b.double(), dims=1)",
    "matrix_exp(a)", "matrix_exp(ones(3))", "matrix_exp(ones(2, 2, dtype=int64))",
]


@pytest.mark.parametrize("call", ERRORS)
def test_misuse_raises_torchs_error(call, torch_mod):
    messages = []
    for lib in (torch_mod, minigrad):
        env = dict(a=lib.ones(2, 3), b=lib.ones(2, 4), c=lib.ones(2, 3, 4), d=lib.ones(3, 2, 4),
                   e=lib.ones(3, 4, dtype=lib.float64), ones=lib.ones, int64=lib.int64,
                   einsum=lib.einsum, tensordot=lib.tensordot, matrix_exp=lib.matrix_exp)
        with pytest.raises((RuntimeError, ValueError)) as caught:
            eval(call, env)
        messages.append((type(caught.value), str(caught.value)))
    assert messages[1] == messages[0]


def test_einsum_leaves_no_graph_under_no_grad_and_keeps_the_dtype():
    a = minigrad.ones(2, 3, requires_grad=True, dtype=minigrad.float64)
    with minigrad.no_grad():
        out = minigrad.einsum("ij,kj->ik", a, a)
    assert out.grad_fn is None and out.dtype == minigrad.float64
    assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]]


@pytest.mark.parametrize("scale", [0.01, 1.0, 6.0])
def test_matrix_exp_values_and_gradients_are_torchs(scale, torch_mod):
    rng = np.random.default_rng(2)
    for shape in [(3, 3), (2, 4, 4), (1, 1)]:
        report = against_torch(lambda S, torch: torch.matrix_exp(S), gradient="random",
                               S=rng.standard_normal(shape) * scale)
        assert report.ok and report.graph.equal, str(report)


def test_matrix_exp_of_known_matrices():
    rotation = minigrad.tensor([[0.0, -np.pi / 2], [np.pi / 2, 0.0]], dtype=minigrad.float64)
    np.testing.assert_allclose(rotation.matrix_exp().numpy(), [[0, -1], [1, 0]], atol=1e-14)
    diag = minigrad.tensor([[1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(minigrad.matrix_exp(diag).numpy(), np.diag(np.exp([1, 2])),
                               rtol=1e-6)
