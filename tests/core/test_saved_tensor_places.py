"""What a saved-tensor unpack hook gives back keeps the saved tensor's place in the graph, as in
PyTorch: hooks that pack a detached copy (offloading, compression, checkpointing) still let a
double backward reach the inputs, through a saved leaf and through a saved intermediate."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("pack", ["detached copy", "same tensor"])
def test_double_backward_through_hooks_that_copy(pack, torch_mod):
    import minigrad

    results = []
    for lib in (minigrad, torch_mod):
        x = lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64, requires_grad=True)
        hook = (lambda t: t.detach().clone()) if pack == "detached copy" else (lambda t: t)
        with lib.autograd.graph.saved_tensors_hooks(hook, lambda t: t):
            y = (x * x).sin() * x.exp()
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


def test_an_unpacked_leaf_sends_its_gradient_to_the_leaf(torch_mod):
    import minigrad

    for lib in (minigrad, torch_mod):
        w = lib.tensor([2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * 1, lambda t: t):
            y = (w * w).sum()
        unpacked = y.grad_fn.next_functions[0][0]._saved_self
        assert unpacked.requires_grad and unpacked.grad_fn is None
        g, = lib.autograd.grad(y, w, create_graph=True)
        (g * g).sum().backward()
        assert w.grad.tolist() == [16.0, 24.0]  # d(sum (2w)^2)/dw = 8w


@pytest.mark.parametrize("pack", ["detached copy", "same tensor"])
def test_forward_over_reverse_through_hooks_keeps_the_saved_tangent(pack, torch_mod):
    """A saved dual tensor comes back from the hooks with its tangent (PyTorch's SavedVariable
    keeps the forward gradient beside what the pack hook made), so forward mode through a
    backward is right under offloading hooks and inside a checkpoint."""
    import minigrad

    tangents = []
    for lib in (minigrad, torch_mod):
        fw = lib.autograd.forward_ad
        x = lib.tensor([0.3, 1.2], dtype=lib.float64, requires_grad=True)
        hook = (lambda t: t.detach().clone()) if pack == "detached copy" else (lambda t: t)
        with fw.dual_level():
            dx = fw.make_dual(x, lib.tensor([1.0, 2.0], dtype=lib.float64))
            with lib.autograd.graph.saved_tensors_hooks(hook, lambda t: t):
                y = dx.sin()
            g, = lib.autograd.grad(y.sum(), dx)
            tangents.append(fw.unpack_dual(g).tangent.numpy())
    np.testing.assert_allclose(tangents[0], -np.sin([0.3, 1.2]) * [1.0, 2.0], rtol=1e-12)
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-12)
