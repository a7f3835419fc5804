"""What PyTorch's graph keeps, through compare.trace_torch: the bytes of the storages PyTorch's
nodes saved, checked against PyTorch's own saved-tensor hooks on a ResNet-18, and freed where
PyTorch frees them (each node's saved tensors right after it ran, none with retain_graph)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import compare
from compare.torch_models import resnet18
from minigrad.teach.memory_text import summary_line


def hooked_storages(torch, run):
    """Run `run()` under saved-tensor hooks that note every saved tensor's storage: its
    result, and the bytes of the distinct storages saved."""
    storages: dict[int, int] = {}

    def pack(t):
        storage = t.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = run()
    return out, sum(storages.values())


def test_resnet18_holds_the_storages_saved_tensor_hooks_count(torch_mod) -> None:
    torch = torch_mod
    torch.manual_seed(0)
    model, x, y = resnet18(), torch.randn(8, 3, 32, 32), torch.tensor([1, 2, 3, 4, 5, 6, 7, 8])
    loss, counted = hooked_storages(torch, lambda: torch.nn.functional.cross_entropy(model(x), y))
    t = compare.trace_torch(loss, params=model)
    report = t.memory
    assert abs(report.total - counted) <= 0.01 * counted, (report.total, counted)
    weights = {p.untyped_storage().data_ptr(): p.untyped_storage().nbytes()
               for p in model.parameters() if p.dim() > 1}  # (each conv's and the fc's)
    assert report.leaves >= sum(weights.values())
    line = summary_line(report)
    assert line.startswith("Memory: the graph holds ") and "freed at step" in line, line
    assert report.steps[-1].held == 0  # (PyTorch freed every node's saved tensors)
    print(line)


def test_each_node_is_freed_right_after_pytorch_ran_it(torch_mod) -> None:
    torch = torch_mod
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.5, 2.0, -0.5], requires_grad=True)
    ran, events = [], []

    class Box:  # what the pack hook hands PyTorch: gone when PyTorch frees the saved tensor
        def __init__(self, t):
            self.t = t

    def pack(t):
        box = Box(t)
        weakref.finalize(box, lambda: events.append(len(ran)))  # (how many nodes had run)
        return box

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
        a = x.sigmoid()
        loss = (a * w).exp().sum()
    exp = loss.grad_fn.next_functions[0][0]
    for node in (loss.grad_fn, exp, exp.next_functions[0][0], a.grad_fn):
        node.register_hook(lambda gi, go, node=node: ran.append(node.name()))
    gc.collect()
    t = compare.trace_torch(loss)
    freed_after = {trace_step.index for trace_step in t.steps if trace_step.freed}
    names = {s.index: t.node(s.node).name for s in t.steps}
    # PyTorch's own: each free came after the hook of the node that had just run
    observed = {ran[k - 1] for k in events}
    assert {names[k] for k in freed_after} == observed == {
        "ExpBackward0", "MulBackward0", "SigmoidBackward0"}


def test_retain_graph_frees_nothing(torch_mod) -> None:
    torch = torch_mod
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    t = compare.trace_torch(lambda: (x.sigmoid() * x).sum(), retain_graph=True)
    assert not any(s.freed for s in t.steps)
    assert t.memory.steps[-1].held == t.memory.total > 0
    with pytest.raises(AssertionError):
        assert "freed at step" in summary_line(t.memory)


def test_explain_torch_python_writes_pytorchs_backward_as_numpy(torch_mod, tmp_path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-m", "compare", "explain-torch", "sum(x*y.exp())*3",
                           "x=1,2,3", "y=4,5,6", "--python"], capture_output=True, text=True,
                          env=env, cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# PyTorch's backward as one numpy program")
    (tmp_path / "backward.py").write_text(done.stdout)
    ran = subprocess.run([sys.executable, "backward.py"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert ran.returncode == 0, ran.stderr
    torch = torch_mod
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    (x * y.exp()).sum().mul(3).backward()
    printed = dict(line.split(".grad = ") for line in ran.stdout.splitlines())
    for name, t in (("x", x), ("y", y)):
        values = np.array(printed[name].strip("[]").split(), dtype=np.float32)
        assert np.allclose(values, t.grad.numpy(), rtol=1e-6), (name, values, t.grad)


@pytest.mark.parametrize("reentrant", [True, False])
def test_a_checkpointed_block_counts_what_pytorch_keeps(torch_mod, reentrant) -> None:
    # A non-reentrant checkpoint's hooks hold what the block's nodes save, and reading it
    # runs the block again with new tensors: the count is what the hooks around the forward
    # see, the block's input kept by the checkpoint instead of the block's activations.
    torch = torch_mod
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16),
                              torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.Tanh(),
                              torch.nn.Linear(16, 2))
    x = torch.randn(4, 8)

    def run(use_checkpoint=True):
        h = net[0](x)
        h = checkpoint(net[1:6], h, use_reentrant=reentrant) if use_checkpoint else net[1:6](h)
        return net[6](h).square().sum()

    _, counted = hooked_storages(torch, run)
    _, whole = hooked_storages(torch, lambda: run(False))
    t = compare.trace_torch(run, params=net)
    assert t.memory.total == counted < whole, (t.memory.total, counted, whole)
    kept = [s for s in t.memory.saved if "kept by the checkpoint" in s.name]
    assert [(s.shape, s.nbytes) for s in kept] == ([] if reentrant else [((4, 16), 256)])
    grads = {n: p.grad.clone() for n, p in net.named_parameters()}
    net.zero_grad()
    run().backward()  # (the trace left the gradients as a plain backward does)
    assert all(torch.equal(grads[n], p.grad) for n, p in net.named_parameters())
    net.zero_grad()
    loss = run()  # the tensor form reads the same graph
    assert compare.trace_torch(loss, params=net).memory.total == counted
