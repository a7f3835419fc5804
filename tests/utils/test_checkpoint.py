"""torch.utils.checkpoint side by side with PyTorch: both variants give the gradients of the
plain block (inputs and parameters), the same graph, the same warnings and errors; the block
really runs again in backward, with the same random state (dropout drops the same units)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad
from minigrad.utils import checkpoint as mcp


def _block(lib, calls: list):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 3).double()
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(np.arange(9.0).reshape(3, 3) / 10))
        lin.bias.fill_(0.1)

    def block(x, scale=2.0):
        calls.append(1)
        return lib.tanh(lin(x)) * scale

    return lin, block


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_are_the_plain_blocks_and_torchs(reentrant, torch_mod):
    results = []
    for lib in (minigrad, torch_mod):
        calls: list = []
        lin, block = _block(lib, calls)
        cp = lib.utils.checkpoint
        x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]], dtype=lib.float64,
                       requires_grad=True)
        y = cp.checkpoint(block, x, 3.0, use_reentrant=reentrant)
        assert len(calls) == 1
        (y ** 2).sum().backward()
        assert len(calls) == 2  # the block ran again in backward
        grads = [x.grad.numpy().copy(), lin.weight.grad.numpy().copy()]
        x.grad = None
        lin.zero_grad()
        (block(x, 3.0) ** 2).sum().backward()
        np.testing.assert_allclose(grads[0], x.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(grads[1], lin.weight.grad.numpy(), rtol=1e-12)
        results.append((grads, y.grad_fn.name(), len(y.grad_fn.next_functions)))
    np.testing.assert_allclose(results[0][0][0], results[1][0][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][0][1], results[1][0][1], rtol=1e-12)
    assert results[0][1:] == results[1][1:]
    assert results[0][1] == ("CheckpointFunctionBackward" if reentrant else "MulBackward0")


def test_the_reentrant_node_keeps_only_the_inputs_edges(torch_mod):
    for lib in (minigrad, torch_mod):
        x = lib.ones(2, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda a, k, b: a * k + b, x, 3.0, lib.ones(2),
                                            use_reentrant=True)
        fns = y.grad_fn.next_functions
        assert [type(n).__name__ if n else None for n, _ in fns] == ["AccumulateGrad", None]
        pair = lib.utils.checkpoint.checkpoint(lambda a: (a * 2, a * 3), x, use_reentrant=True)
        assert isinstance(pair, tuple) and pair[0].grad_fn is pair[1].grad_fn


def test_not_choosing_a_variant_warns_in_torchs_words_and_means_reentrant(torch_mod):
    for lib in (minigrad, torch_mod):
        x = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning) as caught:
            y = lib.utils.checkpoint.checkpoint(lambda a: a * 2, x)
        assert "the use_reentrant parameter should be passed explicitly" in \
            str(caught[0].message)
        assert y.grad_fn.name() == "CheckpointFunctionBackward"
    assert str(caught[0].message) == mcp.USE_REENTRANT_WARNING
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
        mcp.checkpoint_sequential([minigrad.nn.Identity()] * 2, 2,
                                  minigrad.ones(1, requires_grad=True))


def test_no_input_requiring_grad_warns_and_gives_no_graph(torch_mod):
    for lib in (minigrad, torch_mod):
        lin = lib.nn.Linear(2, 2)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. "
                          "Gradients will be None"):
            y = lib.utils.checkpoint.checkpoint(lin, lib.ones(1, 2), use_reentrant=True)
        assert not y.requires_grad  # (the classic pitfall: lin's weight gets no gradient)


@pytest.mark.parametrize("call, error", [
    ("grad(checkpoint(lin, x, use_reentrant=True).sum(), x)", RuntimeError),
    ("checkpoint(lin, x, use_reentrant=True).sum().backward(inputs=[x])", RuntimeError),
    ("checkpoint(lin, x, use_reentrant=True, foo=1)", ValueError),
    ("checkpoint(lin, x, use_reentrant=True, debug=True)", ValueError),
    ("checkpoint(lin, x, use_reentrant=False, determinism_check='x')", ValueError),
    ("checkpoint_sequential([lin], 1, x, use_reentrant=True, foo=2)", ValueError),
])
def test_misuse_raises_torchs_error(call, error, torch_mod):
    messages = []
    for lib in (torch_mod, minigrad):
        env = dict(lin=lib.nn.Linear(3, 3), x=lib.ones(2, 3, requires_grad=True),
                   grad=lib.autograd.grad, checkpoint=lib.utils.checkpoint.checkpoint,
                   checkpoint_sequential=lib.utils.checkpoint.checkpoint_sequential)
        with pytest.raises(error) as caught:
            eval(call, env)
        messages.append(str(caught.value))
        assert env["x"].grad is None
    assert messages[1] == messages[0]


@pytest.mark.parametrize("reentrant", [True, False])
def test_dropout_drops_the_same_units_when_recomputed(reentrant):
    drop = minigrad.nn.Dropout(0.5)
    x = minigrad.ones(200, requires_grad=True)
    y = mcp.checkpoint(drop, x, use_reentrant=reentrant)
    y.sum().backward()
    assert minigrad.equal(y != 0, x.grad != 0)
    y = mcp.checkpoint(drop, x, use_reentrant=reentrant, preserve_rng_state=False)
    x.grad = None
    y.sum().backward()
    assert not minigrad.equal(y != 0, x.grad != 0)  # (another draw: the units differ)


def test_non_reentrant_runs_grad_double_backward_and_a_second_backward(torch_mod):
    outs = []
    for lib in (minigrad, torch_mod):
        x = lib.tensor([0.5, 1.0, -2.0], dtype=lib.float64, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda u: (u.tanh() * u).sin(), x,
                                            use_reentrant=False)
        y.sum().backward(retain_graph=True)
        first = x.grad.clone()
        y.sum().backward(retain_graph=True)  # (recomputed again: a second backward works)
        assert lib.allclose(x.grad, 2 * first)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        outs.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12)


def test_a_recomputation_that_saves_other_tensors_is_refused():
    """(A block that does something else the second time: PyTorch's CheckpointError.)"""
    runs = []

    def moody(x):
        runs.append(1)
        return x.exp() if len(runs) == 1 else x.exp().sin()

    x = minigrad.ones(2, requires_grad=True)
    y = mcp.checkpoint(moody, x, use_reentrant=False)
    with pytest.raises(mcp.CheckpointError, match="A different number of tensors was saved "
                       "during the original forward and recomputation.\nNumber of tensors "
                       "saved during forward: 1\nNumber of tensors saved during "
                       "recomputation: 2."):
        y.sum().backward()
    assert x.grad is None


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_sequential_is_the_plain_sequential(reentrant, torch_mod):
    grads = []
    for lib in (minigrad, torch_mod):
        lib.manual_seed(0)
        layers = [lib.nn.Linear(3, 3).double(), lib.nn.ReLU(), lib.nn.Linear(3, 2).double(),
                  lib.nn.Tanh()]
        with lib.no_grad():
            for i, p in enumerate(p for m in layers for p in m.parameters()):
                p.copy_(lib.tensor(np.sin(np.arange(p.numel()) + i).reshape(p.shape)))
        model = lib.nn.Sequential(*layers)
        x = lib.tensor([[0.3, -0.2, 0.9]], dtype=lib.float64, requires_grad=True)
        out = lib.utils.checkpoint.checkpoint_sequential(model, 2, x,
                                                         use_reentrant=reentrant)
        assert out.grad_fn.name() == "TanhBackward0"
        out.sum().backward()
        grads.append([x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_warnings_do_not_leak(recwarn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mcp.checkpoint(lambda a: a * 2, minigrad.ones(1, requires_grad=True),
                       use_reentrant=False)
