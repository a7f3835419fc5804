"""Issue 35, silent wrong answers, crashes and what was missing or different, each case side by
side with PyTorch: the result (dtype, shape, values) or the error (class and words) must be
PyTorch's. Before: `sum_to_size(3, 1)` of a (2, 3) tensor summed to a wrong (2, 1), a second
backward replaced `.grad` instead of adding into it, `where` took a float condition, a view
could be detached in place, duplicate dims were numpy's ValueError, a list of numbers was taken
as a gradient, and register_post_accumulate_grad_hook, autograd.grad(is_grads_batched=True),
F.relu_ and torch.device in a checkpoint did not exist.
"""

from __future__ import annotations

import pytest

import minigrad
from side_by_side import outcome


def _leaf(t, values=(1.0, 2.0)):
    return t.tensor(list(values), requires_grad=True)


def _accumulates_in_place(t):
    x = _leaf(t)
    (x * 2).sum().backward()
    g, view = x.grad, x.grad.view(2)
    (x * 3).sum().backward()
    return g is x.grad, view.tolist(), x.grad.tolist()


def _into_an_assigned_grad(t):
    x = _leaf(t)
    x.grad = t.zeros(2)
    g = x.grad
    (x * 2).sum().backward()
    return g is x.grad, g.tolist()


def _setitem(key):
    def run(t):
        x = _leaf(t, (1.0, 2.0, 3.0))
        x[key] = 5.0
    return run


def _backward_with(gradient):
    def run(t):
        x = _leaf(t)
        (x * 2).backward(gradient(t))
        return x.grad
    return run


def _post_hook(t):
    x, log = _leaf(t), []
    handle = x.register_post_accumulate_grad_hook(lambda p: log.append((p is x, p.grad.tolist())))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    handle.remove()
    (x * 2).sum().backward()
    return log, x.grad.tolist()


def _step_in_the_hook(t):
    """The use it is for: each parameter stepped as soon as its gradient is in."""
    ps = [t.nn.Parameter(t.tensor([1.0, 2.0])), t.nn.Parameter(t.tensor([3.0]))]
    opts = {id(p): t.optim.SGD([p], lr=0.1) for p in ps}

    def step(p):
        opts[id(p)].step()
        opts[id(p)].zero_grad()
    for p in ps:
        p.register_post_accumulate_grad_hook(step)
    (ps[0].sum() * ps[1].sum()).backward()
    return [p.tolist() for p in ps], [p.grad for p in ps]


def _batched(t, outputs, grad_outputs, **kwargs):
    x = _leaf(t)
    return t.autograd.grad(outputs(t, x), x, grad_outputs(t), is_grads_batched=True, **kwargs)


def _batched_create_graph(t):
    x = _leaf(t)
    (g,) = t.autograd.grad(x * x * x, x, t.eye(2), is_grads_batched=True, create_graph=True)
    g.sum().backward()
    return g.detach(), x.grad


def _batched_frees_the_graph(t):
    x = _leaf(t)
    y = x * x
    t.autograd.grad(y, x, t.eye(2), is_grads_batched=True)
    return t.autograd.grad(y, x, t.eye(2), is_grads_batched=True)


def _saved_and_loaded(obj, tmp_path):
    def run(t):
        path = tmp_path / f"{t.__name__}.pt"
        import torch  # (written by PyTorch in both cases: the file is the point)

        torch.save(obj(torch), path)
        return repr(t.load(path)).replace("torch.", "minigrad.")
    return run


CASES = {
    "sum_to_size to a shape that does not expand": lambda t: t.arange(6.0).reshape(
        2, 3).sum_to_size(3, 1),
    "sum_to_size to a bigger shape": lambda t: t.arange(4.0).sum_to_size(5),
    "sum_to_size to more dims": lambda t: t.arange(3.0).sum_to_size(1, 3),
    "reshape with two -1": lambda t: t.ones(6).reshape(3, -1, -1),
    "view with two -1": lambda t: t.ones(6).view(-1, -1),
    "reshape with -2": lambda t: t.ones(6).reshape(3, -2),
    "where with a float condition": lambda t: t.where(t.ones(2), t.ones(2), t.zeros(2)),
    "where with an int condition": lambda t: t.where(t.ones(2, dtype=t.int64), t.ones(2),
                                                     t.zeros(2)),
    "detach_ of a view": lambda t: (_leaf(t) * 1)[:1].detach_(),
    "detach_ of a view, nothing requires grad": lambda t: t.ones(3)[:1].detach_(),
    "materialize_grads with allow_unused=False": lambda t: t.autograd.grad(
        (_leaf(t) * 2).sum(), [_leaf(t)], materialize_grads=True, allow_unused=False),
    "a second backward adds into the same .grad": _accumulates_in_place,
    "backward adds into an assigned .grad": _into_an_assigned_grad,
    "sum over dim 0 twice": lambda t: t.ones(2, 2).sum((0, 0)),
    "sum over dims 0 and -2": lambda t: t.ones(2, 2).sum((0, -2)),
    "amax over dim 0 twice": lambda t: t.ones(2, 2).amax((0, 0)),
    "mean over dim 1 twice": lambda t: t.ones(2, 2).mean((1, 1)),
    "permute(0, 0)": lambda t: t.ones(2, 2).permute(0, 0),
    "permute(0, 2)": lambda t: t.ones(2, 2).permute(0, 2),
    "leaf[0] = v": _setitem(0),
    "leaf[:1] = v": _setitem(slice(0, 1)),
    "leaf[(0,)] = v": _setitem((0,)),
    "backward with [gradient]": _backward_with(lambda t: [t.ones(2)]),
    "backward with (gradient,)": _backward_with(lambda t: (t.ones(2),)),
    "backward with a list of floats": _backward_with(lambda t: [1.0, 1.0]),
    "backward with a nested list": _backward_with(lambda t: [[1.0, 1.0]]),
    "backward with a float": _backward_with(lambda t: 1.0),
    "autograd.grad with a list of floats": lambda t: t.autograd.grad(
        _leaf(t) * 2, [_leaf(t)], [1.0, 1.0]),
    "WeightedRandomSampler, a negative weight": lambda t: list(
        t.utils.data.WeightedRandomSampler([1.0, -1.0], 2)),
    "WeightedRandomSampler, a NaN weight": lambda t: list(
        t.utils.data.WeightedRandomSampler([1.0, float("nan")], 2)),
    "WeightedRandomSampler, an infinite weight": lambda t: list(
        t.utils.data.WeightedRandomSampler([1.0, float("inf")], 2)),
    "save into a missing folder": lambda t: t.save(t.ones(2), "/nonexistent-folder/x.pt"),
    "register_post_accumulate_grad_hook": _post_hook,
    "an optimizer stepped in a post-accumulate hook": _step_in_the_hook,
    "a post-accumulate hook on a non-leaf": lambda t: (_leaf(t) * 2
                                                       ).register_post_accumulate_grad_hook(print),
    "a post-accumulate hook that returns a tensor": lambda t: (
        lambda x: (x.register_post_accumulate_grad_hook(lambda p: p.grad),
                   (x * 2).sum().backward()))(_leaf(t)),
    "is_grads_batched": lambda t: _batched(t, lambda t, x: x * x, lambda t: t.eye(2)),
    "is_grads_batched, two outputs": lambda t: _batched(
        t, lambda t, x: [x * x, x * 3], lambda t: [t.eye(2), t.eye(2)]),
    "is_grads_batched, an unused input materialized": lambda t: t.autograd.grad(
        (lambda x: x * x)(_leaf(t)), [_leaf(t)], t.eye(2), is_grads_batched=True,
        materialize_grads=True),
    "is_grads_batched, a grad_output of the wrong shape": lambda t: _batched(
        t, lambda t, x: x * x, lambda t: t.ones(2, 3)),
    "is_grads_batched, batches of two sizes": lambda t: _batched(
        t, lambda t, x: [x * x, x.sum()], lambda t: [t.eye(2), t.ones(3)]),
    "is_grads_batched without grad_outputs": lambda t: _batched(
        t, lambda t, x: (x * x).sum(), lambda t: None),
    "is_grads_batched with create_graph": _batched_create_graph,
    "is_grads_batched frees the graph": _batched_frees_the_graph,
    "F.relu_": lambda t: t.nn.functional.relu_(t.tensor([-1.0, 2.0])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name, torch_mod):
    ours = outcome(lambda: CASES[name](minigrad))
    theirs = outcome(lambda: CASES[name](torch_mod))
    assert ours == theirs


FILES = {
    "a torch.device": lambda torch: {"w": torch.ones(2), "device": torch.device("cpu")},
    "a CUDA device": lambda torch: torch.device("cuda", 0),
    "dtypes": lambda torch: {"a": torch.float64, "b": torch.float16, "c": torch.int64},
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_checkpoint_pytorch_wrote_loads_as_in_pytorch(name, torch_mod, tmp_path):
    run = _saved_and_loaded(FILES[name], tmp_path)
    assert outcome(lambda: run(minigrad)) == outcome(lambda: run(torch_mod))


def test_devices_and_dtypes_saved_by_minigrad_load_in_pytorch(torch_mod, tmp_path):
    path = tmp_path / "m.pt"
    minigrad.save({"device": minigrad.device("cpu"), "gpu": minigrad.device("cuda", 1),
                   "dtype": minigrad.float16}, path)
    loaded = torch_mod.load(path)
    assert loaded == {"device": torch_mod.device("cpu"), "gpu": torch_mod.device("cuda", 1),
                      "dtype": torch_mod.float16}
