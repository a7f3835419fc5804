"""One check shared by the layer tests: a minigrad layer against the same PyTorch layer.

`assert_layer_matches(make, shape, torch)` builds the layer in both libraries (`make(lib)`
gets `minigrad` or `torch`), in float64, copies PyTorch's weights and buffers into minigrad's
through `state_dict`, then in train and in eval mode compares the output, the root node's
name, the gradient of the input and of every parameter (rtol 1e-6), and every buffer after the
step (running statistics).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg

RTOL = 1e-6


def copy_state(torch_layer: Any, mg_layer: Any) -> None:
    mg_layer.load_state_dict({k: v.detach().numpy().copy()
                              for k, v in torch_layer.state_dict().items()})


def run(layer: Any, lib: Any, x: np.ndarray, seed: int, needs_grad: bool) -> tuple:
    """(output, input's gradient) of one forward/backward; the upstream gradient is drawn
    from `seed` (the same for both libraries)."""
    xt = lib.tensor(x, requires_grad=needs_grad)
    out = layer(xt)
    g = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    out.backward(lib.tensor(g))
    return out, xt.grad


def assert_layer_matches(make: Callable[[Any], Any], x: np.ndarray, torch: Any,
                         modes: tuple = ("train", "eval"), steps: int = 2) -> None:
    torch.manual_seed(0)
    theirs, ours = make(torch).double(), make(mg).double()
    copy_state(theirs, ours)
    float_input = x.dtype.kind == "f"
    for mode in modes:
        for layer in (theirs, ours):
            layer.train(mode == "train")
        for step in range(steps):
            for layer in (theirs, ours):
                layer.zero_grad()
            t_out, t_gx = run(theirs, torch, x, step, float_input)
            m_out, m_gx = run(ours, mg, x, step, float_input)
            assert m_out.grad_fn.name() == t_out.grad_fn.name().split("::")[-1]
            np.testing.assert_allclose(m_out.array, t_out.detach().numpy(), rtol=RTOL,
                                       atol=1e-12)
            if float_input:
                np.testing.assert_allclose(m_gx.array, t_gx.numpy(), rtol=RTOL, atol=1e-12)
            t_params = dict(theirs.named_parameters())
            for name, p in ours.named_parameters():
                tp = t_params[name]
                assert (p.grad is None) == (tp.grad is None), name
                if p.grad is not None:
                    np.testing.assert_allclose(p.grad.array, tp.grad.numpy(), rtol=RTOL,
                                               atol=1e-12, err_msg=name)
            t_buffers = dict(theirs.named_buffers())
            for name, b in ours.named_buffers():
                np.testing.assert_allclose(b.array, t_buffers[name].numpy(), rtol=RTOL,
                                           err_msg=name)
