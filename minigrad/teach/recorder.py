"""Recording: the engine's events in, Trace records out.

`Recorder` is an events listener (`minigrad.events.listen(recorder)`). While ops run it keeps
what the records need and what backward would free: each node's constant inputs, saved
tensors, settings (`dims`, `p`, ...), output value and the user's source line; during
backward each step's gradients, accumulations and hooks (and what a checkpoint ran again).
`build(names)` then orders the nodes (forward order, each leaf just before its first use),
gives ids (`n1`, ...) and labels (tensor, parameter or variable name, `out`, `t1`, ...).

Values (outputs, saved tensors, leaves) are copied as they are recorded, once per tensor
version (`copies.Copies`); gradients are copied only when minigrad is about to change one in
place (`InPlaceChange`) or when the recording ends while one is still a `.grad` (`_boxed`).
It reads the events' fields and the nodes' public API (`next_functions`, `variable`,
`output_nr`, `grad_fn`, `grad`; `_version`, `_base`), and, where minigrad has no public name
yet, `_saved`, `_output_array`, `_sequence_nr`, `_accumulator()` and a class's `_function`.
"""
from __future__ import annotations

import sys
import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.autograd import events as ev
from minigrad.autograd.node import AccumulateGrad, gradient_edge, owner_id
from minigrad.autograd.tensor import Tensor
from minigrad.teach.copies import Copies, array_of, arrays_of, compact_copy
from minigrad.teach.forward_recorder import ForwardRecorder
from minigrad.teach.labels import UNKNOWN, UniqueLabels, constant_text, source_line, user_frame
from minigrad.teach.memory_records import MemoryNotes, constant_values
from minigrad.teach.modules import ModuleCalls
from minigrad.teach.op_words import source_form
from minigrad.teach.passes import (
    Passes,
    all_steps,
    call_text,
    forward_call,
    pass_record,
    recomputed_input,
    recomputing,
    step_records,
    tensor_label,
)
from minigrad.teach.records import TraceHook, TraceLeaf, TraceNode
from minigrad.teach.settings import node_settings


class _Live:
    """What is known of one node while recording (before backward frees its saved values)."""

    __slots__ = ("consts", "out", "value", "shape", "line", "attrs", "saved", "call", "made_by",
                 "recomputed", "kept", "copy_of")

    def __init__(self) -> None:
        self.consts: dict[int, Any] = {}
        self.out: Any = None
        self.value: np.ndarray | None = None
        self.shape: tuple | None = None
        self.line: str | None = None
        self.attrs: dict[str, Any] = {}
        self.saved: list[tuple[Any, Any]] = []
        self.call = 0  # the number of the innermost module call that made it (0: none)
        self.made_by: Any = None  # the composite call that made it (ops/calls.py), if any
        self.recomputed = False  # made in backward by a checkpoint's recomputation
        self.kept: list[tuple] = []  # what it keeps as memory (MemoryNotes.note)
        self.copy_of: int | None = None  # a copy of the block's input: which (TraceNode)


class Recorder:
    """An events listener that keeps what the records need, then `build()`s them."""

    def __init__(self, params: Any = None, user_files: Iterable[str] = (),
                 lines: bool = True) -> None:
        self.module_calls = ModuleCalls(params)
        self.with_lines = lines  # note the source line of each forward op
        # files inside the minigrad package whose lines count as the user's (the demo's own)
        self.user_files = frozenset(user_files)
        if params is not None and hasattr(params, "named_parameters"):
            params = dict(params.named_parameters())
        self.params = {id(t): name for name, t in (params or {}).items()}
        self.live: dict[Any, _Live] = {}
        self.roots: dict[Any, Tensor] = {}  # root node -> the tensor backward started from
        self.passes = Passes()  # the backward passes, nested as they ran (passes.py)
        self.depth, self.hooks, self.accumulations = 0, [], []  # (TraceHook, tuple)
        self.copies = Copies()  # values as they were, one copy per tensor and version
        self.memory = MemoryNotes()  # the memory behind what each node saved
        self.lines: dict[tuple, str | None] = {}  # (code, line number) -> its source_line
        # id of the array that owns some memory -> the boxes holding it or views of it (see
        # `_boxed`; the boxes keep that array alive, so its id stays its own)
        self.watched: dict[int, list[list]] = {}
        self.forward = ForwardRecorder()  # forward-mode steps and function transforms

    def __call__(self, event: Any) -> None:
        kind = type(event)
        if kind is ev.ForwardOp:
            if not self.depth:  # ops recorded by a backward (create_graph) are not forward
                self._forward(event)
            elif recomputing():  # ... but a checkpoint's block, run again, is shown
                self._forward(event)
                self.passes.running().recomputed.append(event.node)
        elif kind is ev.BackwardStep:
            self._step(event)
        elif kind is ev.GradAccumulated:
            self.accumulations.append((event.tensor, *self._boxed((event.grad, event.total))))
        elif kind is ev.InPlaceChange:
            self._changing(event.tensor)
        elif kind is ev.HookFired:
            self.hooks.append(TraceHook(event.where, getattr(event.hook, "__name__", "hook"),
                                        arrays_of(event.before), arrays_of(event.after)))
        elif kind is ev.BackwardBegin:
            self.forward.backward_began()
            self.depth += 1
            edges = self.add_roots(event.roots)
            self.passes.begin(edges, [array_of(g) for g in event.gradients])
        elif kind is ev.BackwardEnd:
            self.depth -= 1
            self.passes.end(event.seconds)
        elif kind is ev.ModuleBegin:
            self.module_calls.enter(event.module)
        elif kind is ev.ModuleEnd:
            self.module_calls.leave(event.module)
        elif kind is ev.SavedFreed and self.passes.top and self.passes.top[-1].steps:
            self.passes.top[-1].steps[-1][10].extend(event.nodes)  # (as the last step ended)
        elif kind is ev.ForwardTangent or kind is ev.TransformBegin or kind is ev.TransformEnd:
            self.forward(event)

    def _forward(self, event: ev.ForwardOp) -> None:
        node = event.node
        live = self.live.get(node) or self._register(node, event.settings)
        out = event.output
        if isinstance(out, tuple):
            out = next((o for o in out if isinstance(o, Tensor)), None)
        if isinstance(out, Tensor):
            live.out, live.value, live.shape = out, self.copies.of(out), out.array.shape
        for i, (arg, (nxt, _)) in enumerate(zip(event.inputs, node.next_functions)):
            if nxt is None:
                live.consts[i] = arg
            elif nxt not in self.live and _is_leaf(nxt):
                self._register(nxt)  # (the leaf's value as this op read it)
        if self.with_lines:
            live.line = self._caller_line()
        live.call = self.module_calls.innermost()
        if not self.depth:
            live.made_by = forward_call()

    def _caller_line(self) -> str | None:
        """`file.py:12: y = x * w`: the line of the user's code that ran the op being recorded
        (the first frame outside the minigrad package; a loop runs the same line again)."""
        frame = user_frame(sys._getframe(1), self.user_files)
        if frame is None:
            return None
        key = (frame.f_code, frame.f_lineno)
        line = self.lines.get(key)
        if line is None:
            line = self.lines[key] = source_line(frame)
        return line

    def _register(self, node: Any, settings: dict | None = None) -> _Live:
        """Start keeping what is known of `node`; `settings` are those of its ForwardOp (None:
        the node was recorded before the recording began)."""
        live = self.live[node] = _Live()
        # (made while a checkpoint runs its block again: its ops, and its inputs' copies)
        live.copy_of = recomputed_input(node) if recomputing() and _is_leaf(node) else None
        live.recomputed = recomputing() and (not _is_leaf(node) or live.copy_of is not None)
        if _is_leaf(node):
            v = node.variable
            live.value, live.shape, live.out = self.copies.of(v), v.array.shape, v
            return live
        saved = node.saved_values
        nf = list(node.next_functions)
        free = [i for i, (nxt, _) in enumerate(nf) if nxt is None]
        if len(saved) == len(nf):
            live.consts.update((i, saved[i]) for i in free)
        else:  # match the saved tensors that need no gradient to the constant inputs, in order
            plain = [s for s in saved if isinstance(s, Tensor) and not s.requires_grad]
            found = plain if len(plain) == len(free) else [UNKNOWN] * len(free)
            live.consts.update(zip(free, found))
        at = [_input_index(v, nf) if isinstance(v, Tensor) else None for v in saved]
        at = [f"saved[{i}]" if w is None else w for i, w in enumerate(at)]
        live.saved += [(w, self.copies.of(v)) for w, v in zip(at, saved) if isinstance(v, Tensor)]
        live.kept = self.memory.note(node, at)
        if node.saved_output is not None:
            live.value = node.saved_output  # (until _forward puts the output's copy here)
            live.saved.append(("result", None))  # its value is live.value: see build
        live.attrs = node_settings(node, settings)
        return live

    def add_roots(self, roots: Iterable[Tensor]) -> list:
        """Register the graph behind `roots` (iteratively); return their root nodes."""
        edges = []
        for t in roots:
            if not t.requires_grad:
                continue
            node = gradient_edge(t)[0]
            edges.append(node)
            self.roots.setdefault(node, t)
            live = self.live.get(node) or self._register(node)
            if live.value is None and not _is_leaf(node):
                live.value, live.shape = self.copies.of(t), t.array.shape
        self._register_reachable(edges)
        return edges

    def _register_reachable(self, starts: list) -> None:
        """Register every node reachable from `starts` (iteratively), each with the shape of
        the gradient it receives. (At build, from every recorded node: a `with trace():`
        around a forward pass alone has ops from before the block that nothing registered.)"""
        stack, seen = list(starts), set(starts)
        while stack:
            node = stack.pop()
            if node not in self.live:
                self._register(node)
            for nxt, nr in node.next_functions:
                if nxt is None:
                    continue
                live = self.live.get(nxt) or self._register(nxt)
                if live.shape is None:
                    live.shape = nxt.output_shape(nr)
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)

    def _accumulated_leaves(self) -> list[Tensor]:
        """The tensors whose .grad the recorded backward passes added to (each once)."""
        leaves: dict[int, Tensor] = {}
        for step in all_steps(self.passes.top):
            for t, _, _ in step[5]:  # (the step's accumulations)
                leaves[id(t)] = t
        return list(leaves.values())

    # -- gradients: kept in boxes, copied only when they are about to change ------------------
    def _boxed(self, grads: Any) -> list[list]:
        """Each gradient's array (of tensors or None) in a box (a one-item list) that
        `_changing` can refill.

        Gradients are kept as they are, not copied: most are never touched again. But the
        first gradient a leaf gets becomes its `.grad` as it is, and `.grad` is often changed
        in place later (`zero_()`, clipping). Inside the block minigrad says so before it
        writes (an `InPlaceChange` event); then every box holding that memory gets a copy of
        the value it had. When the block ends, `build` does the same for every .grad the
        boxes still share: nobody says anything after that.
        """
        boxes = []
        for g in grads:
            a = None if g is None else g.array if isinstance(g, Tensor) else np.asarray(g)
            box = [a]
            if a is not None:
                self.watched.setdefault(owner_id(a), []).append(box)
            boxes.append(box)
        return boxes

    def _changing(self, t: Tensor) -> None:
        """`t` is about to change in place: the boxes holding its memory get copies."""
        # (later boxes hold the new values: they are watched afresh)
        boxes = self.watched.pop(owner_id(t.array), ())
        copies: dict[int, tuple] = {}  # id(array) -> (array, its copy): one copy per array
        for box in boxes:
            a = box[0]
            kept = copies.get(id(a))
            if kept is None:
                kept = copies[id(a)] = (a, compact_copy(a))
            box[0] = kept[1]

    def _step(self, event: ev.BackwardStep) -> None:
        if event.node not in self.live:
            self._register(event.node)
        nested, recomputed = self.passes.take()
        step = [event.index, event.node, self._boxed(event.grad_outputs),
                self._boxed(event.grad_inputs), list(event.summed_dims),
                self.accumulations, self.hooks, event.seconds, nested, recomputed, []]
        self.accumulations, self.hooks = [], []
        self.passes.running().steps.append(step)

    # -- build ---------------------------------------------------------------------------------
    def build(self, names: dict[int, str]) -> tuple:
        """The records: nodes (forward order), leaves, backward passes, live leaf refs,
        modules, forward-mode passes, transforms."""
        self._register_reachable(list(self.live))
        paths, modules, param_names = self.module_calls.build()
        for key, name in param_names.items():
            self.params.setdefault(key, name)
        owners = {name: m.path for m in modules for name in m.params}
        # Past the block nobody says what changes in place any more: what the records share
        # with a leaf's .grad is copied now.
        for t in self._accumulated_leaves():
            if t.grad is not None:
                self._changing(t.grad)
        order = self._forward_order()
        ids = {node: f"n{i + 1}" for i, node in enumerate(order)}
        labels = self._labels(order, names)
        leaf_labels = {id(self.live[n].out): labels[n] for n in order if _is_leaf(n)}
        leaf_memory = {self.memory.key(self.live[n].out.array): labels[n] for n in order
                       if _is_leaf(n) and not self.live[n].recomputed}  # (not a block's copy)
        nodes, leaves, live_leaves = [], [], {}
        for node in order:
            live = self.live[node]
            if _is_leaf(node):
                leaf = live.out
                nodes.append(TraceNode(ids[node], "AccumulateGrad", labels[node],
                                       formula=node.formula, shape=live.shape, value=live.value,
                                       module=owners.get(self.params.get(id(leaf)), ""),
                                       recomputed=live.recomputed, copy_of=live.copy_of))
                if live.recomputed:  # (a block's input seen again: not the user's leaf)
                    continue
                grad = leaf.grad
                leaves.append(TraceLeaf(labels[node], ids[node], live.shape, live.value,
                                        None if grad is None else compact_copy(grad.array),
                                        id(leaf) in self.params))
                live_leaves[ids[node]] = weakref.ref(leaf)
                continue
            args = [self._arg_text(live, i, nxt, nr, labels, names)
                    for i, (nxt, nr) in enumerate(node.next_functions)]
            saved = [(args[w] if isinstance(w, int) else w, live.value if w == "result" else v)
                     for w, v in live.saved]
            call, kind = ("", "") if live.made_by is None else call_text(
                live.made_by, lambda t: tensor_label(t, labels, names))
            nodes.append(TraceNode(
                ids[node], node.display_name(), labels[node],
                source_form(node.display_name(), args, live.attrs, live.shape),
                type(node).formula, live.shape, live.value,
                [None if nxt is None else ids.get(nxt) for nxt, _ in node.next_functions],
                args, live.attrs, live.line, saved, paths.get(live.call, ""), call, kind,
                live.made_by.number if live.made_by else 0, live.recomputed,
                constants=constant_values(node, live.consts, live.attrs, self.copies),
                memory=self.memory.records(live.kept, args, leaf_memory)))
        backwards = [pass_record(p, ids, leaf_labels) for p in self.passes.top]
        last = {a.leaf: a.after for s in step_records(backwards) for a in s.accumulations}
        for leaf in leaves:
            if leaf.label in last:
                leaf.grad = last[leaf.label]
        self.copies.clear()  # (the records hold what they need)
        self.memory.clear()
        self.watched.clear()
        forwards, transforms = self.forward.build(
            {id(self.live[n].out): labels[n] for n in order if self.live[n].out is not None},
            names)
        return nodes, leaves, backwards, live_leaves, modules, forwards, transforms

    def _forward_order(self) -> list:
        """Ops by creation order; each leaf's AccumulateGrad just before its first user."""
        ops = sorted((n for n in self.live if not _is_leaf(n)),
                     key=lambda n: n.sequence_nr)
        order: list = []
        placed: set = set()
        for n in [r for r in self.roots if _is_leaf(r)]:
            placed.add(n)
            order.append(n)
        for op in ops:
            for nxt, _ in op.next_functions:
                if nxt is not None and _is_leaf(nxt) and nxt not in placed:
                    placed.add(nxt)
                    order.append(nxt)
            order.append(op)
        order.extend(n for n in self.live if _is_leaf(n) and n not in placed)
        return order

    def _labels(self, order: list, names: dict[int, str]) -> dict:
        """tensor.name, else parameter name, else variable name, else out / t1, t2, ..."""
        labels, unique = {}, UniqueLabels()
        outs = 0
        for node in order:
            live = self.live[node]
            t = live.out if live.out is not None else self.roots.get(node)
            name = None
            if t is not None:
                name = t.name or self.params.get(id(t)) or names.get(id(t))
            if name is None and node in self.roots and not (_is_leaf(node) or live.recomputed):
                outs += 1
                name = "out" if outs == 1 else f"out{outs}"
            labels[node] = unique(name)
        return labels

    def _arg_text(self, live: _Live, i: int, nxt: Any, nr: int, labels: dict,
                  names: dict[int, str]) -> str:
        if nxt is not None:
            return labels[nxt] + (f"#{nr}" if nr else "")
        value = live.consts.get(i, UNKNOWN)
        if isinstance(value, Tensor) and not value.name and id(value) in names:
            return names[id(value)]
        return constant_text(value)


def _is_leaf(node: Any) -> bool:
    """Is `node` a leaf's AccumulateGrad?"""
    return type(node) is AccumulateGrad


def _input_index(t: Tensor, edges: list) -> int | None:
    """Which input of a node `t` is: the one whose edge leads where `t`'s gradient goes (its
    `grad_fn` and `output_nr`, or for a leaf its AccumulateGrad); None if no input is."""
    for j, (nxt, nr) in enumerate(edges):
        if t.grad_fn is not None:
            if nxt is t.grad_fn and nr == t.output_nr:
                return j
        elif _is_leaf(nxt) and nxt.variable is t:
            return j
    return None

