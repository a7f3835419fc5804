"""What the graph keeps (`Trace.memory`, `explain(memory=True)`, the player's memory bar).

The figures are checked against the graph itself: before backward, the saved arrays of every
node (what save_for_backward got, the saved output, the node's own arrays), each piece of
memory counted once, must add up to what the trace says it holds; then when backward frees
them (minigrad: every node's when the pass ends; not at all with retain_graph=True).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.autograd.tensor import Tensor
from minigrad.teach.memory import size_text
from minigrad.teach.memory_records import owner
from minigrad.teach.player_memory import memory_data


def saved_arrays(loss: Tensor) -> dict[int, int]:
    """id of each piece of memory the graph behind `loss` keeps -> its bytes, read off the
    live nodes before backward."""
    memory, seen, stack = {}, set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        arrays = [v.array for v in node.saved_values if isinstance(v, Tensor)]
        if node.saved_output is not None:
            arrays.append(node.saved_output)
        arrays += [v for k, v in vars(node).items()
                   if isinstance(v, np.ndarray) and not k.startswith("_")]
        for a in arrays:
            memory[id(owner(a))] = owner(a).nbytes
        stack.extend(nxt for nxt, _ in node.next_functions)
    return memory


def mlp_loss() -> Tensor:
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    x = minigrad.randn(5, 4)
    return F.cross_entropy(model(x), minigrad.tensor([0, 2, 1, 1, 0]))


def cnn_loss() -> Tensor:
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.Tanh(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(36, 3))
    return F.cross_entropy(model(minigrad.randn(2, 1, 8, 8)), minigrad.tensor([1, 2]))


def shared_loss() -> Tensor:
    x = minigrad.tensor([1.0, -2.0, 3.0], requires_grad=True, name="x")
    y = x.sigmoid()  # its output is saved by sigmoid and by both sides of y * y
    return (y * y).sum() + (x.t() * x).sum()  # x.t() is a view: x's memory, saved twice


def checkpointed(reentrant: bool) -> tuple[nn.Module, Tensor]:
    """An MLP whose hidden layers run in a checkpoint (its input, the first layer's output,
    needs a gradient, as the reentrant variant wants), and its loss."""
    from minigrad.utils.checkpoint import checkpoint

    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3))
    hidden = checkpoint(model[1:4], model[0](minigrad.randn(5, 4)), use_reentrant=reentrant)
    return model, F.cross_entropy(model[4](hidden), minigrad.tensor([0, 2, 1, 1, 0]))


def checkpointed_loss() -> Tensor:
    return checkpointed(reentrant=True)[1]


def not_reentrant() -> Tensor:
    return checkpointed(reentrant=False)[1]


@pytest.mark.parametrize("make", [mlp_loss, cnn_loss, shared_loss, checkpointed_loss,
                                  not_reentrant])
def test_the_graph_holds_the_bytes_of_every_distinct_saved_array(make) -> None:
    loss = make()
    expected = saved_arrays(loss)
    report = minigrad.trace(loss).memory
    assert report.total == sum(expected.values()) > 0
    assert len({s.storage for s in report.saved}) == len(expected)


def test_shared_memory_is_named_and_counted_once() -> None:
    report = minigrad.trace(shared_loss()).memory
    t1 = [s for s in report.saved if s.label == "t1" or "t1" in s.shared_with]
    assert {s.storage for s in t1} == {t1[0].storage} and len(t1) == 3
    assert report.total == 12 + 12  # y's 3 float32s and x's, each once
    assert report.leaves == 12 and {s.leaf for s in report.saved} == {None, "x"}


def test_minigrad_frees_every_saved_tensor_when_the_pass_ends() -> None:
    t = minigrad.trace(mlp_loss())
    report, last = t.memory, t.steps[-1].index
    assert [s.freed for s in report.steps[:-1]] == [0] * (last - 1)
    assert report.steps[-1].freed == report.total - report.leaves > 0
    assert report.steps[-1].held == 0
    assert {s.freed_at for s in report.saved} == {last}
    assert report.peak == max([report.total] + [s.total for s in report.steps])


@pytest.mark.parametrize("make", [checkpointed_loss, not_reentrant])
def test_a_checkpoint_s_block_run_again_counts_in_its_step_only(make) -> None:
    """The ops a checkpoint runs again in backward are no part of what the graph held before
    it (their input copies are no leaves either); what they keep counts in the step that ran
    them, and in the peak, and nothing is left once the pass ended."""
    model, loss = checkpointed(reentrant=make is checkpointed_loss)
    before = saved_arrays(loss)
    seen: dict[int, np.ndarray] = {}

    def pack(t: Tensor) -> Tensor:  # (a reentrant block's ops, run again, pack through it)
        seen[id(owner(t.array))] = owner(t.array)
        return t

    with minigrad.trace() as t, saved_tensors_hooks(pack, lambda t: t):
        loss.backward()
    report = t.memory
    assert report.total == sum(before.values())
    params = {id(owner(p.array)) for p in model.parameters()}
    assert report.leaves == sum(v for k, v in before.items() if k in params)
    assert not any(t.node(s.node).recomputed for s in report.saved)
    assert report.steps[-1].held == 0
    rerun = [s for s in report.steps if s.recomputed]
    step = next(s for s in t.steps if s.recomputed)
    assert [s.index for s in rerun] == [step.index]
    if make is checkpointed_loss:
        again = {k: a.nbytes for k, a in seen.items() if k not in before and k not in params}
        assert rerun[0].recomputed == sum(again.values()) > 0
    else:  # (the block's own hooks keep what it saves again: read off its nodes)
        again = {m.storage: m.nbytes for i in step.recomputed for m in t.node(i).memory
                 if not m.leaf}
        assert rerun[0].recomputed == sum(again.values()) > 0
    assert rerun[0].total == rerun[0].held + rerun[0].gradients + rerun[0].recomputed
    assert report.peak == max([report.total] + [s.total for s in report.steps])
    size = size_text(rerun[0].recomputed)
    assert f"the block run again keeps {size} meanwhile" in t.explanation(memory=True)
    assert f"重算的块这时另占 {size}" in t.explanation(lang="zh", memory=True)


def test_a_reentrant_checkpoint_keeps_only_the_block_s_inputs() -> None:
    report = minigrad.trace(checkpointed_loss()).memory
    kept = [s for s in report.saved if s.op == "CheckpointFunctionBackward"]
    assert [(s.shape, s.leaf) for s in kept] == [((5, 8), None)]
    assert not any(s.op == "TanhBackward0" for s in report.saved)


def test_retain_graph_keeps_it_all_until_a_backward_that_does_not() -> None:
    loss = mlp_loss()
    with minigrad.trace() as t:
        loss.backward(retain_graph=True)
        loss.backward()
    first, second = t.backwards
    report = t.memory
    steps = {s.index: s for s in report.steps}
    assert all(steps[s.index].freed == 0 for s in first.steps[:-1])
    held = [s.held for s in report.steps]
    assert held[:len(first.steps)] == [report.total] * len(first.steps)  # (kept: retained)
    assert held[-1] == 0 and report.steps[-1].freed == report.total - report.leaves


def test_explain_says_at_each_step_what_is_freed_and_held() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    y = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True, name="y")
    t = minigrad.trace(lambda: (x.sigmoid() * y).sum() * 3)
    text = t.explanation(timing=False, memory=True)
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("memory")]
    assert len(lines) == len(t.steps) == 6
    assert lines[0] == "memory  frees nothing; the graph holds 24 B; gradients waiting 4 B"
    assert lines[-1] == "memory  frees 12 B (t1); the graph holds 0 B; gradients waiting 0 B"
    assert ("Memory: the graph holds 24 B in 3 saved tensors, 12 B of it the leaves' own; the "
            "largest of the rest: t1, 12 B, freed at step 6; at most 48 B with the gradients "
            "waiting (after step 3)") in text
    zh = t.explanation(lang="zh", timing=False, memory=True)
    assert "内存  释放 12 B（t1）；计算图仍占 0 B；等待中的梯度 0 B" in zh
    assert "内存：计算图保存了 3 个张量，共 24 B（其中 12 B 本来就是叶子节点的）；其余的张量中" \
           "最大的是 t1，12 B，第 6 步之后释放" in zh
    # (no memory line nor summary by default on a short trace; the source lines name this file)
    assert not any(line.strip().lower().startswith("memory")
                   for line in t.explanation(timing=False).splitlines())


def test_past_fifty_steps_the_summary_line_comes_by_default() -> None:
    x = minigrad.tensor(np.linspace(-1, 1, 4, dtype=np.float32), requires_grad=True, name="x")

    def chain():
        h = x
        for _ in range(30):
            h = (h * 0.9).tanh()
        return h.sum()

    t = minigrad.trace(chain)
    assert len(t.steps) > 50
    text = t.explanation(timing=False)
    assert text.count("Memory: the graph holds") == 1 and "memory  frees" not in text
    assert "Memory:" not in t.explanation(timing=False, memory=False)


def test_sizes_read_as_disk_sizes() -> None:
    assert [size_text(n) for n in (0, 999, 1000, 1250, 12_400_000, 1_100_000_000)] == \
        ["0 B", "999 B", "1.0 kB", "1.2 kB", "12.4 MB", "1.1 GB"]


def test_the_player_bar_has_a_width_per_step() -> None:
    t = minigrad.trace(mlp_loss())
    data, report = memory_data(t), t.memory
    assert len(data["at"]) == len(t.steps) + 1
    assert data["at"][0]["held"] == report.total and data["at"][-1]["held"] == 0
    assert data["max"] == report.peak
    assert data["at"][-1]["text"]["en"].startswith("graph 0 B · gradients 0 B · peak ")
    assert data["at"][-1]["text"]["zh"].startswith("计算图 0 B · 梯度 0 B · 峰值 ")
