"""What the graph keeps, and when backward lets it go: a Trace's memory, step by step.

Every node keeps what its backward will read (`TraceNode.memory`: its saved tensors, its saved
output, arrays of its own), each lying in some memory (a `storage`) that other nodes or a leaf
may share. `memory_report(trace)` counts each piece of memory once:
- the graph holds, before backward, the bytes of every distinct storage a node keeps (a
  leaf's too: the graph refers to it, though the leaf would keep it anyway);
- each backward step frees what no node still needs once the nodes it released have let go
  (PyTorch releases a node's saved tensors as soon as it ran; minigrad every node's when the
  pass ends; with retain_graph=True nobody does), a leaf's memory staying with the leaf;
- meanwhile the gradients wait in their buffers until the node they go to runs;
- a checkpoint's block, run again in backward, is no part of what the graph held before: what
  its ops keep counts in the step that ran them (`recomputed`: memory the graph does not
  already hold, a leaf's aside), and the peak is the largest sum of the three, after some step.
Plain records in, plain numbers out: PyTorch's traces (`compare.trace_torch`) are counted the
same way, from the storages PyTorch's nodes saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Saved:
    """One tensor a node keeps: whose (`node`, `label`, `op`), what (`name`), its memory."""

    node: str
    label: str
    op: str
    name: str
    shape: tuple
    nbytes: int
    storage: str
    leaf: str | None = None
    shared_with: list[str] = field(default_factory=list)  # the other nodes keeping it
    freed_at: int | None = None  # the step after which no node keeps it (None: kept)
    kept: bool = False  # kept until the graph itself is dropped (an array of the node's own)
    tensor: str | None = None  # the trace's label of the tensor it is (its output, an input)
    module: str = ""  # the module that made that tensor


@dataclass
class StepMemory:
    """After step `index`: what it freed, what the graph still holds, the gradients waiting."""

    index: int
    node: str
    freed: int
    freed_names: list[str]
    held: int
    gradients: int
    recomputed: int = 0  # what a checkpoint's block, run again in this step, kept meanwhile

    @property
    def total(self) -> int:
        return self.held + self.gradients + self.recomputed


@dataclass
class MemoryReport:
    """A trace's memory: every saved tensor, the total before backward, each step, the peak."""

    saved: list[Saved]
    total: int  # the bytes of the distinct storages the graph holds before backward
    leaves: int  # ... of which the leaves' own memory
    steps: list[StepMemory]
    peak: int
    peak_step: int | None

    @property
    def largest(self) -> Saved | None:
        """The saved tensor in the largest storage that is not a leaf's own (a leaf keeps its
        memory anyway): what keeping the graph costs most; the first of equals."""
        rest = [s for s in self.saved if not s.leaf] or self.saved
        return max(rest, key=lambda s: s.nbytes, default=None)

    def of(self, node_id: str) -> list[Saved]:
        return [s for s in self.saved if s.node == node_id]


def memory_report(trace: Any) -> MemoryReport:
    """Count what `trace`'s graph keeps (see the module docstring)."""
    saved = [Saved(n.id, n.label, n.name, m.name, tuple(m.shape), m.nbytes, m.storage, m.leaf,
                   kept=not m.freed) for n in trace.nodes if not n.recomputed for m in n.memory]
    for s in saved:
        _name_tensor(trace, s)
    by_storage: dict[str, list[Saved]] = {}
    for s in saved:
        by_storage.setdefault(s.storage, []).append(s)
    for group in by_storage.values():
        labels = list(dict.fromkeys(s.label for s in group))
        for s in group:
            s.shared_with = [label for label in labels if label != s.label]
    size = {key: max(s.nbytes for s in group) for key, group in by_storage.items()}
    leaf_owned = {key for key, group in by_storage.items() if any(s.leaf for s in group)}
    total = sum(size.values())
    holders = {key: {s.node for s in group if not s.kept} for key, group in by_storage.items()}
    kept = {key for key, group in by_storage.items() if any(s.kept for s in group)}
    held, held_bytes = set(size), total
    keys_of: dict[str, list[str]] = {}  # node id -> the storages it keeps
    for s in saved:
        keys_of.setdefault(s.node, []).append(s.storage)
    steps, waiting = [], _Waiting(trace)
    peak, peak_step = total + waiting.bytes, None
    for step in trace.steps:
        waiting.ran(step)
        again = _recomputed(trace, step, held)
        freed, names = 0, []
        for node_id in step.freed:
            for key in keys_of.get(node_id, ()):
                holders[key].discard(node_id)
                if not holders[key] and key not in kept and key in held:
                    held.discard(key)
                    held_bytes -= size[key]
                    for s in by_storage[key]:
                        s.freed_at = step.index
                    if key not in leaf_owned:
                        freed += size[key]
                        names.append(_name(by_storage[key][0]))
        now = StepMemory(step.index, step.node, freed, names, held_bytes, waiting.bytes, again)
        steps.append(now)
        if now.total > peak:
            peak, peak_step = now.total, step.index
    return MemoryReport(saved, total, sum(size[k] for k in leaf_owned), steps, peak, peak_step)


def _recomputed(trace: Any, step: Any, held: set[str]) -> int:
    """The bytes the ops a checkpoint ran again in `step` kept: each piece of memory once, but
    not the graph's (still `held` as the step began) nor a leaf's."""
    size: dict[str, int] = {}
    for node_id in step.recomputed:
        for m in trace.node(node_id).memory:
            if m.storage not in held and not m.leaf:
                size[m.storage] = max(size.get(m.storage, 0), m.nbytes)
    return sum(size.values())


def saved_name(node: Any, name: str) -> str:
    """What a node saved, named as its input reads where it is one: the recorder names a saved
    tensor that gets no gradient `saved[i]`; if it is a constant input (`X`, a target), that
    input's text (its values are the same copy)."""
    if not name.startswith("saved["):
        return name
    value = next((v for w, v in node.saved if w == name), None)
    for i, constant in node.constants.items():
        if value is not None and constant is value and isinstance(i, int) and i < len(node.args):
            return node.args[i]
    return name


def _name_tensor(trace: Any, s: Saved) -> None:
    """Which of the trace's tensors a saved one is (its node's output, or an input), and the
    module that made it."""
    node = trace.node(s.node)
    s.name = saved_name(node, s.name)
    if s.name == "result":
        s.tensor, s.module = node.label, node.module
    elif s.name in node.args:
        s.tensor = s.name
        src = node.inputs[node.args.index(s.name)]
        s.module = trace.node(src).module if src is not None else ""


def _name(s: Saved) -> str:
    """`t3`, `t3's mask`: the tensor as the narration names it (a leaf by its own label)."""
    return s.leaf or s.tensor or f"{s.label}'s {s.name}"


class _Waiting:
    """The gradients in the buffers: sent by a step, gone when the node they went to runs."""

    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self.buffers: dict[tuple[str, int], int] = {}
        self.passes = iter(trace.backwards)
        self.left = 0  # steps left in the current pass
        self.bytes = 0

    def ran(self, step: Any) -> None:
        while not self.left:  # a new pass: its seeds wait in the roots' buffers
            backward = next(self.passes)
            self.left = len(backward.steps)
            self.buffers = {(root, 0): _nbytes(seed)
                            for root, seed in zip(backward.roots, backward.seeds)}
        self.left -= 1
        node = self.trace.node(step.node)
        for key in [k for k in self.buffers if k[0] == step.node]:
            del self.buffers[key]
        for i, (src, g) in enumerate(zip(node.inputs, step.grad_inputs)):
            if src is not None and g is not None:
                nr = _output_nr(node, i)
                self.buffers[(src, nr)] = max(self.buffers.get((src, nr), 0), _nbytes(g))
        self.bytes = sum(self.buffers.values())


def _output_nr(node: Any, i: int) -> int:
    text = node.args[i] if i < len(node.args) else ""
    tail = text.rsplit("#", 1)[-1] if "#" in text else ""
    return int(tail) if tail.isdigit() else 0


def _nbytes(a: Any) -> int:
    return 0 if a is None else int(np.asarray(a).nbytes)


def size_text(n: int) -> str:
    """`96 B`, `1.2 kB`, `12.4 MB`, `1.10 GB` (powers of 1000, as disk sizes)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}" if n < 100 * scale else f"{n / scale:.0f} {unit}"
    return f"{n} B"
