"""What `Trace.to_python()` writes for a checkpoint (`minigrad.utils.checkpoint`): the block's
ops where minigrad ran them, and what each step then reads.

A reentrant checkpoint runs its block under no_grad in forward: nothing of it is recorded,
and the program writes there the ops its backward step runs again, on the block's input
itself. That step runs them again with grad on, from a copy of the input it saved (a leaf of
its own, `t6 = t2`), then a backward through them, its steps numbered within the step
(`step 6.1`): the block's parameters get their `.grad` on the way, and what the step sends to
its input is the copy's `.grad`.

A non-reentrant checkpoint's block is recorded as usual, but what its ops save goes to the
checkpoint's saved-tensor hooks. The first step that reads one runs the block again (from a
copy of its input), and the hooks hand back what that run saved: from then on each of the
block's steps reads the run's variables, not the forward's (the same values, bit for bit).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.teach.program_backward import REENTRANT, output_nr
from minigrad.teach.program_values import array_text


class Checkpoints:
    """A `program._Program`'s checkpoints (its names, `emit`, `op_line`, `step`, `send`)."""

    nodes: dict
    var: dict
    lines: list
    filled: set
    accumulated: dict
    rerun: dict  # a non-reentrant block's node id -> its run again's (what its step reads)
    within: str  # the number of the step whose inner backward is being written ("6.")

    def block_forward(self, node: Any) -> bool:
        """A reentrant checkpoint's output in forward: the block's ops, as its backward step
        runs them again, on the input itself. False when no step ran them (nothing to say
        which ops the block is)."""
        step = next((s for s in self.trace.steps if s.node == node.id and s.recomputed
                     and len(s.nested) == 1 and len(s.nested[0].roots) == 1), None)
        if step is None:
            return False
        ops = [self.nodes[i] for i in step.recomputed]
        copies = _copies(ops, self.nodes)
        inputs = {c.id: _input(node, c.copy_of) for c in copies}
        again = ", ".join(f"{c.label} for {self.nodes[inputs[c.id][0]].label}"
                          for c in copies if inputs[c.id] is not None)
        self.lines.append(f"# {node.source}: the block runs under no_grad (nothing of it "
                          "recorded or kept); its ops as")
        self.lines.append(f"# step {step.index} runs them again (there on a copy of its input: "
                          f"{again}), here on the input itself:")
        names = dict(self.var)
        for copy in copies:
            src = inputs[copy.id]
            if src is not None:  # (the copy's variable reads as the input itself here)
                self.var[copy.id] = self.ref(*src)
        for op in ops:
            self.op_line(op)
        self.var = names
        root = step.nested[0].roots[0]
        self.emit(f"{self.var[node.id]} = {self.var[root]}",
                  f"{node.name}   {node.label} = {node.source}")
        return True

    def run_again(self, step: Any, node: Any) -> None:
        """The block's ops this step runs again: first the copies of its inputs, then each
        op; for a non-reentrant block, its steps read this run's variables from now on."""
        if not step.recomputed:
            return
        ops = [self.nodes[i] for i in step.recomputed]
        pairs = {} if node.name == REENTRANT else _pairs(self.trace.nodes, node, ops)
        source = {} if node.name == REENTRANT else _copied_from(self.nodes, pairs)
        kept = "saved" if node.name == REENTRANT else "kept"
        self.lines.append(f"# the checkpoint runs its block again, with grad on, from the input "
                          f"it {kept}:")
        for copy in _copies(ops, self.nodes):
            src = _input(node, copy.copy_of) if node.name == REENTRANT else source.get(copy.id)
            if src is None:
                self.leaf_line(copy)
                continue
            self.emit(f"{self.var[copy.id]} = {self.ref(*src)}",
                      f"{copy.label}: {self.nodes[src[0]].label} as the checkpoint {kept} it "
                      "(a leaf of its own)")
        for op in ops:
            self.op_line(op)
        if pairs:
            reads = ", ".join(f"{self.var[a]} for {self.var[o]}" for o, a in pairs.items())
            self.lines.append(f"# (the block's steps read what this run saved: {reads})")
        self.rerun.update(pairs)

    def inner_backward(self, step: Any, node: Any) -> None:
        """A reentrant checkpoint's step: the backward it runs through the block run again
        (seeded with what the step received), then each input's gradient: its copy's .grad."""
        outer, within = self.filled, self.within
        given = [j for j, g in enumerate(step.grad_outputs) if g is not None]
        for backward in step.nested:
            roots = ", ".join(self.nodes[r].label for r in backward.roots)
            n = len(backward.steps)
            self.lines.append(f"# backward through the block run again, from {roots}: {n} "
                              f"step{'' if n == 1 else 's'}, in the engine's order")
            self.filled, self.within = set(), f"{within}{step.index}."
            for k, (root, seed) in enumerate(zip(backward.roots, backward.seeds)):
                j = given[k] if len(given) == len(backward.roots) else None
                text = self.grad_var(node.id, j) if (node.id, j) in outer else \
                    array_text(np.asarray(seed), 8)
                self.send(root, 0, text, f"the seed: what step {within}{step.index} received")
            for inner in backward.steps:
                self.step(inner)
        self.filled, self.within = outer, within
        copies = {c.copy_of: c for c in _copies([self.nodes[i] for i in step.recomputed],
                                                self.nodes)}
        for i, src in enumerate(node.inputs):
            copy = copies.get(i)
            got = self.accumulated.get(copy.label) if copy is not None else None
            if src is None or got is None or i >= len(step.grad_inputs) or \
                    step.grad_inputs[i] is None:
                continue
            self.send(src, output_nr(node, i), got, f"{copy.label}.grad: what the checkpoint "
                      f"returns for {node.args[i]}")


def _copies(ops: list, nodes: dict) -> list:
    """The copies of the block's inputs that `ops` read (leaves made by the run), in order."""
    found: dict[str, Any] = {}
    for op in ops:
        for src in op.inputs:
            if src is not None and nodes[src].is_leaf and nodes[src].recomputed:
                found.setdefault(src, nodes[src])
    return list(found.values())


def _input(node: Any, i: int | None) -> tuple[str, int] | None:
    """Input `i` of a checkpoint's node: (the node feeding it, which output), or None."""
    if i is None or i >= len(node.inputs) or node.inputs[i] is None:
        return None
    return node.inputs[i], output_nr(node, i)


def _pairs(nodes: list, node: Any, ops: list) -> dict[str, str]:
    """A non-reentrant block's nodes (those of `node`'s checkpoint call) -> the ops its run
    again made, one for one (none if they differ: the steps then read the forward's)."""
    block = [n for n in nodes if not (n.recomputed or n.is_leaf) and n.call_kind == "checkpoint"
             and n.call_number == node.call_number]
    if [n.name for n in block] != [n.name for n in ops]:
        return {}
    return {n.id: op.id for n, op in zip(block, ops)}


def _copied_from(nodes: dict, pairs: dict[str, str]) -> dict[str, tuple[str, int]]:
    """Each input copy the run read -> the block's input it copies: what the block's node
    read where its run again reads the copy."""
    out = {}
    for original, again in pairs.items():
        for i, src in enumerate(nodes[again].inputs):
            first = nodes[original].inputs[i] if i < len(nodes[original].inputs) else None
            if src is not None and nodes[src].recomputed and nodes[src].is_leaf and first:
                out.setdefault(src, (first, output_nr(nodes[original], i)))
    return out

