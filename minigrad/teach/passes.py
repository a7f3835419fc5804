"""The backward passes a recording saw, nested as they ran, and the composite calls that made
its ops (see recorder.py).

A pass is opened by BackwardBegin and closed by BackwardEnd. One that begins while another is
running (a reentrant checkpoint's backward through its block) belongs to the step of the outer
pass that is running it; that step's event comes after it, and takes it along, with the ops
the checkpoint ran again on the way (`recomputed`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.ops import calls
from minigrad.teach.labels import constant_text
from minigrad.teach.records import TraceAccumulation, TraceBackward, TraceStep


class Pass:
    """One backward pass as recorded: roots, seeds, steps (lists, see Recorder._step),
    seconds; and what ran inside it that its next step takes along."""

    __slots__ = ("roots", "seeds", "steps", "seconds", "nested", "recomputed")

    def __init__(self, roots: list, seeds: list) -> None:
        self.roots, self.seeds, self.steps, self.seconds = roots, seeds, [], 0.0
        self.nested: list[Pass] = []
        self.recomputed: list = []


class Passes:
    """The top-level passes, and the stack of those running now."""

    def __init__(self) -> None:
        self.top: list[Pass] = []
        self.open: list[Pass] = []

    def begin(self, roots: list, seeds: list) -> None:
        p = Pass(roots, seeds)
        (self.open[-1].nested if self.open else self.top).append(p)
        self.open.append(p)

    def end(self, seconds: float) -> None:
        if self.open:
            self.open.pop().seconds = seconds

    def running(self) -> Pass:
        """The innermost running pass (a stray step, outside any, starts a top-level one)."""
        if not self.open:
            if not self.top:
                self.top.append(Pass([], []))
            return self.top[-1]
        return self.open[-1]

    def take(self) -> tuple[list, list]:
        """What ran inside the running pass since its last step: (nested passes, ops run
        again), handed to the step being recorded."""
        p = self.running()
        taken = p.nested, p.recomputed
        p.nested, p.recomputed = [], []
        return taken

    def nested_now(self) -> bool:
        """Is a pass running inside another (the recomputation's backward)?"""
        return len(self.open) > 1


def recomputing() -> bool:
    """Is a checkpoint running its block again (in backward) right now?"""
    call = calls.innermost()
    return call is not None and call.kind == "recompute"


def recomputed_input(accumulator: Any) -> int | None:
    """Is this leaf (its AccumulateGrad) the copy of an input the recomputation was given:
    which of its tensor inputs (None: none)?"""
    call = calls.innermost()
    tensors = [t for t in call.inputs if isinstance(t, Tensor)] if call is not None else []
    return next((i for i, t in enumerate(tensors) if accumulator.variable is t), None)


def forward_call() -> Any:
    """The composite call (einsum, tensordot, checkpoint) making ops now, or None."""
    call = calls.innermost()
    return None if call is None or call.kind == "recompute" else call


def all_steps(passes: list[Pass]) -> Iterator[list]:
    """Every step of `passes` and of the passes nested in their steps."""
    for p in passes:
        for step in p.steps:
            yield step
            yield from all_steps(step[8])


def call_text(call: Any, label_of: Any) -> tuple[str, str]:
    """(`einsum('ij,jk->ik', A, B)`, its kind) for a call, its inputs read by `label_of`."""
    args = [label_of(t) for t in call.inputs]
    head = [call.head] if call.head else []
    kind = "checkpoint_reentrant" if call.reentrant else call.kind
    return f"{call.kind}({', '.join(head + args)})", kind


def pass_record(p: Pass, ids: dict, leaf_labels: dict) -> TraceBackward:
    """A recorded pass as a TraceBackward (with the passes nested in its steps)."""
    records = []
    for index, node, g_out, g_in, summed, accs, hooks, secs, nested, again, freed in p.steps:
        accs = [TraceAccumulation(leaf_labels.get(id(t), "?"), before[0], after[0])
                for t, before, after in accs]
        records.append(TraceStep(
            index, ids[node], [b[0] for b in g_out], [b[0] for b in g_in], summed, accs,
            hooks, secs, freed=[ids[n] for n in freed if n in ids],
            recomputed=[ids[n] for n in again if n in ids],
            nested=[pass_record(q, ids, leaf_labels) for q in nested]))
    return TraceBackward([ids[r] for r in p.roots], p.seeds, records, p.seconds)


def step_records(backwards: list) -> Iterator[TraceStep]:
    """Every step record of `backwards`, nested ones included, in order."""
    for b in backwards:
        for step in b.steps:
            yield step
            yield from step_records(step.nested)


def tensor_label(t: Any, labels: dict, names: dict[int, str]) -> str:
    """How a call's input tensor reads: its node's label, else its name, else its value."""
    node = t.grad_fn if t.grad_fn is not None else t._grad_acc
    if node in labels:
        return labels[node] + (f"#{t.output_nr}" if t.grad_fn and t.output_nr else "")
    return t.name or names.get(id(t)) or constant_text(t)
