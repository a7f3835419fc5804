"""Module hooks side by side with PyTorch's: forward pre-hooks and hooks (with kwargs,
prepend, always_call), full backward pre-hooks and hooks (what grad_input and grad_output
hold, replacing them, the graph's BackwardHookFunctionBackward nodes), removable handles."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn

X = np.random.default_rng(0).normal(size=(4, 3))


def _linear(lib):
    layer = lib.nn.Linear(3, 2).double()
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3) / 10))
        layer.bias.copy_(lib.tensor([0.5, -0.5]))
    return layer


def _arrays(grads):
    return [None if g is None else g.detach().numpy().copy() for g in grads]


def _torch_warns_no_input_needs_grad(expected: bool):
    """PyTorch warns when a full backward hook fires for a module whose inputs need no grad
    (minigrad does not, yet: tutorials/differences.md)."""
    return pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                        "computed with respect to module outputs") if expected else \
        contextlib.nullcontext()


@pytest.mark.parametrize("input_needs_grad", [True, False])
def test_full_backward_hooks_see_what_pytorch_shows(input_needs_grad, torch_mod):
    seen = {}
    for lib in (mg, torch_mod):
        layer, log = _linear(lib), []
        layer.register_full_backward_pre_hook(
            lambda m, gout, log=log: log.append(("pre", _arrays(gout))))
        layer.register_full_backward_hook(
            lambda m, gin, gout, log=log: log.append(("hook", _arrays(gin), _arrays(gout))))
        x = lib.tensor(X, requires_grad=input_needs_grad)
        y = layer(x)
        names = [y.grad_fn.name()] + [n.name() for n, _ in y.grad_fn.next_functions if n]
        with _torch_warns_no_input_needs_grad(lib is torch_mod and not input_needs_grad):
            (y * y).sum().backward()
        seen[lib.__name__] = (log, names, _arrays([p.grad for p in layer.parameters()]))
    (ours, our_names, our_grads), (theirs, their_names, their_grads) = seen.values()
    assert our_names == their_names and our_names[0] == "BackwardHookFunctionBackward"
    assert [e[0] for e in ours] == [e[0] for e in theirs] == ["pre", "hook"]
    for a, b in zip(ours, theirs):
        for xs, ys in zip(a[1:], b[1:]):
            assert len(xs) == len(ys)
            for u, v in zip(xs, ys):
                assert (u is None) == (v is None)
                if u is not None:
                    np.testing.assert_allclose(u, v, rtol=1e-12)
    for u, v in zip(our_grads, their_grads):
        np.testing.assert_allclose(u, v, rtol=1e-12)


def test_backward_hooks_replace_gradients_like_pytorch(torch_mod):
    results = []
    for lib in (mg, torch_mod):
        layer = _linear(lib)
        layer.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 2,))
        layer.register_full_backward_hook(lambda m, gin, gout: (gin[0] + 1,))
        x = lib.tensor(X, requires_grad=True)
        layer(x).sum().backward()
        results.append((x.grad.detach().numpy().copy(), layer.weight.grad.detach().numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_handles_remove_hooks_and_the_nodes_go_with_them():
    layer, calls = _linear(mg), []
    handles = [layer.register_full_backward_hook(lambda *a: calls.append("hook")),
               layer.register_forward_hook(lambda *a: calls.append("forward")),
               layer.register_forward_pre_hook(lambda *a: calls.append("pre"))]
    x = mg.tensor(X, requires_grad=True)
    layer(x).sum().backward()
    assert calls == ["pre", "forward", "hook"]
    for handle in handles:
        handle.remove()
    y = layer(x)
    assert y.grad_fn.name() == "AddmmBackward0"
    y.sum().backward()
    assert calls == ["pre", "forward", "hook"]


def test_forward_hooks_with_kwargs_prepend_and_always_call():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            if factor < 0:
                raise ValueError("negative factor")
            return x * factor

    m, order = Scale(), []
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 3.0}),
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: order.append("second"))
    m.register_forward_hook(lambda mod, args, kwargs, out: order.append(("first", kwargs)),
                            prepend=True, with_kwargs=True)
    assert m(mg.tensor([1.0, 2.0]), factor=2.0).tolist() == [3.0, 6.0]
    assert order == [("first", {"factor": 3.0}), "second"]
    bad = Scale()
    bad.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"^forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got"):
        bad(mg.tensor([1.0]), factor=2.0)
    failing, called = Scale(), []
    failing.register_forward_hook(lambda mod, args, out: called.append(out), always_call=True)
    with pytest.raises(ValueError, match="negative factor"):
        failing(mg.tensor([1.0]), -1.0)
    assert called == [None]
    pre = Scale()
    pre.register_forward_pre_hook(lambda mod, args: args[0] * 10)  # one value: the new input
    assert pre(mg.tensor([1.0])).tolist() == [10.0]


def test_backward_hook_on_a_model_sees_each_layer_once(torch_mod):
    counts = {}
    for lib in (mg, torch_mod):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
        names = []
        for name, module in model.named_children():
            module.register_full_backward_hook(lambda m, gi, go, n=name, names=names:
                                               names.append((n, len(gi), len(go))))
        with _torch_warns_no_input_needs_grad(lib is torch_mod):
            model(lib.ones(2, 3)).sum().backward()
        counts[lib.__name__] = names
    assert counts["minigrad"] == counts["torch"] == [("2", 1, 1), ("1", 1, 1), ("0", 1, 1)]
