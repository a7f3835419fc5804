"""compare.trace_torch builds its records when the Trace is first read: they are the records
it would have built at once, even after the model has changed (an optimizer step, another
forward that moves the running statistics, new gradients, a new hook)."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

import compare
from compare.torch_models import resnet18, transformer_encoder


def _same(a, b, where: str) -> None:
    """Equal records: arrays bit for bit (and dtype), times left out (they differ run to run)."""
    if dataclasses.is_dataclass(a):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            if f.name != "seconds":
                _same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b, equal_nan=True), where
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    else:
        assert a == b, where


def _resnet(torch):
    x, y = torch.randn(2, 3, 16, 16), torch.tensor([1, 2])
    return resnet18(), lambda m: torch.nn.functional.cross_entropy(m(x), y)


def _transformer(torch):
    tokens = torch.randint(0, 50, (2, 5))
    return transformer_encoder(), lambda m: m(tokens).square().mean()


def _hooked_mlp(torch):
    x = torch.randn(4, 3)

    def loss(m):
        h = m[0](x)
        h.register_hook(lambda g: g * 2)
        return m[1](h.relu()).sum() * 3

    return torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Linear(5, 1)), loss


@pytest.mark.parametrize("form", ["tensor", "callable"])
@pytest.mark.parametrize("make", [_resnet, _transformer, _hooked_mlp],
                         ids=["resnet18", "transformer", "hooked mlp"])
def test_lazy_records_equal_the_records_built_at_once(torch_mod, make, form):
    torch_mod.manual_seed(0)
    model, loss = make(torch_mod)
    later = copy.deepcopy(model)

    def traced(m):
        return compare.trace_torch(loss(m) if form == "tensor" else lambda: loss(m), params=m)

    at_once = traced(model)
    at_once.nodes  # noqa: B018 - read now: built at once
    lazy = traced(later)
    opt = torch_mod.optim.SGD(later.parameters(), lr=0.5)
    opt.step()  # the weights change in place, and so do the tensors the nodes saved
    torch_mod.nn.utils.clip_grad_norm_(later.parameters(), 1e-3)  # each .grad, in place
    with torch_mod.no_grad():
        for p in later.parameters():
            p.data -= 0.1 * p.grad  # a hand-written step: .data, no version counted
    loss(later).backward()  # another forward (running stats) and new .grads
    for p in later.parameters():
        p.register_hook(lambda g: g)
    for name in ("nodes", "leaves", "backwards"):
        _same(getattr(lazy, name), getattr(at_once, name), name)
    assert lazy.explanation(timing=False) == at_once.explanation(timing=False)
    assert lazy.to_dot().source == at_once.to_dot().source
    assert lazy.live_leaves.keys() == at_once.live_leaves.keys()


def test_a_seed_given_by_the_user_is_copied_at_once(torch_mod):
    x = torch_mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
    seed = torch_mod.tensor([1.0, 10.0, 100.0])
    t = compare.trace_torch((x * 2).exp() + 0, gradient=seed)
    seed.mul_(0)  # the seed passes on as it is (AddBackward0): still the user's tensor
    first = t.backwards[0].steps[0]
    assert np.array_equal(first.grad_outputs[0], [1.0, 10.0, 100.0])
    assert np.array_equal(first.grad_inputs[0], [1.0, 10.0, 100.0])


def test_a_gradient_changed_in_place_before_the_first_read_is_an_error(torch_mod):
    """A gradient is copied when the Trace is first read, where no user code can reach it;
    a node hook (which trace_torch cannot see) can, and changing it in place is said."""
    x = torch_mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * 2).exp()
    kept = []
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: kept.append(grad_inputs[0]))
    t = compare.trace_torch(y.sum())
    kept[0].zero_()
    for _ in range(2):  # every read says so; none finds an empty trace
        with pytest.raises(RuntimeError, match="changed in place before the trace was first"):
            t.steps  # noqa: B018
    assert x.grad is not None and np.allclose(x.grad.numpy(), 2 * np.exp([2.0, 4.0, 6.0]))


def test_garbage_collection_is_as_it_was_after_the_call_even_after_an_error(torch_mod):
    """trace_torch pauses the collector during the call (a speed choice), never after it."""
    import gc

    x = torch_mod.tensor([1.0, 2.0], requires_grad=True)
    seen = []

    def forward():
        seen.append(gc.isenabled())
        return (x * 3).sum()

    assert gc.isenabled()
    compare.trace_torch(forward)
    assert seen == [False] and gc.isenabled()
    with pytest.raises(TypeError, match="gave a int"):
        compare.trace_torch(lambda: 3)
    assert gc.isenabled()
    gc.disable()
    try:
        compare.trace_torch(forward)
        assert not gc.isenabled()
    finally:
        gc.enable()
