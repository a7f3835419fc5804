"""Recording: the engine's events in, Trace records out.

`Recorder` is an events listener (`minigrad.events.listen(recorder)`). While ops run it keeps
what the records will need and what the backward pass would free: each node's constant
inputs, saved tensors, settings (`dims`, `p`, ...), output value and the user's source line;
during backward each step's gradients, accumulations and hooks. `build(names)` then orders
the nodes (forward order, each leaf just before its first use), gives ids (`n1`, `n2`, ...)
and labels (tensor name, parameter name, variable name, `out`, `t1`, `t2`, ...), and returns
the records.

The records show values as they were when recorded. Values (outputs, saved tensors, leaves)
are copied as they are recorded, once per tensor version (`copy_of`). Gradients are kept as
they are and copied only when minigrad is about to change one in place (`InPlaceChange`) or
when the recording ends while one is still a `.grad` (`_boxed`).
"""

from __future__ import annotations

import linecache
import os
import sys
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from minigrad.engine import owner_id
from minigrad.events import (
    BackwardBegin,
    BackwardEnd,
    BackwardStep,
    ForwardOp,
    GradAccumulated,
    HookFired,
    InPlaceChange,
)
from minigrad.function import AccumulateGrad
from minigrad.printing import format_values
from minigrad.teach.op_words import source_form
from minigrad.teach.records import (
    TraceAccumulation,
    TraceBackward,
    TraceHook,
    TraceLeaf,
    TraceNode,
    TraceStep,
)
from minigrad.tensor import Tensor

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # minigrad/
_CTX_SKIP = frozenset({"next_functions", "needs_input_grad", "metadata", "in_shape", "mask",
                       "share", "result", "condition"})


class _Live:
    """What is known of one node while recording (before backward frees its saved values)."""

    __slots__ = ("node", "consts", "out", "value", "shape", "line", "attrs", "saved")

    def __init__(self, node: Any) -> None:
        self.node = node
        self.consts: dict[int, Any] = {}
        self.out: Any = None
        self.value: np.ndarray | None = None
        self.shape: tuple | None = None
        self.line: str | None = None
        self.attrs: dict[str, Any] = {}
        self.saved: list[tuple[Any, Any]] = []


class Recorder:
    """An events listener that keeps what the records need, then `build()`s them."""

    def __init__(self, params: Any = None) -> None:
        if params is not None and hasattr(params, "named_parameters"):
            params = dict(params.named_parameters())
        self.params = {id(t): name for name, t in (params or {}).items()}
        self.live: dict[Any, _Live] = {}
        self.roots: dict[Any, Tensor] = {}  # root node -> the tensor backward started from
        self.passes: list[list] = []  # [roots, seeds, steps, seconds]
        self.depth = 0
        self.hooks: list[TraceHook] = []
        self.accumulations: list[tuple] = []
        # id(tensor) -> (tensor, its array, its version, a copy of the value then): `copy_of`.
        # (An entry holds its tensor, so no other tensor can come to have that id meanwhile.)
        self.copies: dict[int, tuple[Tensor, np.ndarray, int, np.ndarray]] = {}
        self.lines: dict[tuple, str | None] = {}  # (code, line number) -> its source_line
        # id of the array that owns some memory -> the boxes holding it or views of it (see
        # `_boxed`; the boxes keep that array alive, so its id stays its own)
        self.watched: dict[int, list[list]] = {}

    def __call__(self, event: Any) -> None:
        kind = type(event)
        if kind is ForwardOp:
            if not self.depth:  # ops recorded by a backward (create_graph) are not forward
                self._forward(event)
        elif kind is BackwardStep:
            self._step(event)
        elif kind is GradAccumulated:
            self.accumulations.append((event.tensor, *self._boxed((event.grad, event.total))))
        elif kind is InPlaceChange:
            self._changing(event.tensor)
        elif kind is HookFired:
            self.hooks.append(TraceHook(event.where, getattr(event.hook, "__name__", "hook"),
                                        _datas(event.before), _datas(event.after)))
        elif kind is BackwardBegin:
            self.depth += 1
            edges = self.add_roots(event.roots)
            self.passes.append([edges, [_data(g) for g in event.gradients], [], 0.0])
        elif kind is BackwardEnd:
            self.depth -= 1
            if self.passes:
                self.passes[-1][3] = event.seconds

    def _forward(self, event: ForwardOp) -> None:
        node = event.node
        live = self.live.get(node) or self._register(node)
        out = event.output
        if isinstance(out, tuple):
            out = next((o for o in out if isinstance(o, Tensor)), None)
        if isinstance(out, Tensor):
            live.out, live.value, live.shape = out, self.copy_of(out), out.data.shape
            if node.name() == "ToCopyBackward0":  # the target dtype is only seen in the output
                live.attrs["dtype"] = out.data.dtype.name
        for i, (arg, (nxt, _)) in enumerate(zip(event.inputs, _edges(node))):
            if nxt is None:
                live.consts[i] = arg
            elif nxt not in self.live and _is_leaf(nxt):
                self._register(nxt)  # (the leaf's value as this op read it)
        live.line = self._caller_line()

    def _caller_line(self) -> str | None:
        """`file.py:12: y = x * w`: the line of the user's code that ran the op being recorded
        (the first frame outside the minigrad package; a loop runs the same line again)."""
        frame = user_frame(sys._getframe(1))
        if frame is None:
            return None
        key = (frame.f_code, frame.f_lineno)
        line = self.lines.get(key)
        if line is None:
            line = self.lines[key] = source_line(frame)
        return line

    def _register(self, node: Any) -> _Live:
        live = self.live[node] = _Live(node)
        if _is_leaf(node):
            v = node.variable
            live.value, live.shape, live.out = self.copy_of(v), v.data.shape, v
            return live
        saved = node._saved
        nf = list(_edges(node))
        free = [i for i, (nxt, _) in enumerate(nf) if nxt is None]
        if len(saved) == len(nf):
            live.consts.update((i, saved[i]) for i in free)
        else:  # match the saved tensors that need no gradient to the constant inputs, in order
            plain = [s for s in saved if isinstance(s, Tensor) and not s.requires_grad]
            found = plain if len(plain) == len(free) else [_UNKNOWN] * len(free)
            live.consts.update(zip(free, found))
        for i, s in enumerate(saved):
            if isinstance(s, Tensor):
                edge = (s.grad_fn, s._output_nr) if s.grad_fn is not None else (s._grad_acc, 0)
                where = next((j for j, e in enumerate(nf) if e == edge and e[0] is not None),
                             None)
                live.saved.append((where if where is not None else f"saved[{i}]",
                                   self.copy_of(s)))
        if node._saved_output is not None:
            live.value = node._saved_output  # (until _forward puts the output's copy here)
            live.saved.append(("result", None))  # its value is live.value: see build
        live.attrs = {k: v for k, v in vars(node).items()
                      if k[0] != "_" and k not in _CTX_SKIP and _displayable(v)}
        return live

    def copy_of(self, t: Tensor) -> np.ndarray:
        """`t`'s value as it is now, kept apart from later in-place changes (an optimizer step
        inside the `with` block must not change what the records show).

        One copy per tensor and version: a node's output and the same tensor saved by the next
        node share it. A view's copy is the same view of its base's copy, so a Linear's weight
        and its `weight.t()` are copied once.
        """
        data, version = t.data, t._version
        kept = self.copies.get(id(t))
        if kept is not None and kept[1] is data and kept[2] == version:
            return kept[3]
        base = t._base
        copy = None
        if base is not None and base._base is None:
            copy = _same_view(data, base.data, self.copy_of(base))
        if copy is None:
            copy = np.array(data)
        self.copies[id(t)] = (t, data, version, copy)
        return copy

    def add_roots(self, roots: Iterable[Tensor]) -> list:
        """Register the graph behind `roots` (iteratively); return their root nodes."""
        edges = []
        for t in roots:
            node = t.grad_fn if t.grad_fn is not None else (
                t._accumulator() if t.requires_grad else None)
            if node is None:
                continue
            edges.append(node)
            self.roots.setdefault(node, t)
            live = self.live.get(node) or self._register(node)
            if live.value is None and not _is_leaf(node):
                live.value, live.shape = self.copy_of(t), t.data.shape
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
            for nxt, nr in _edges(node):
                if nxt is None:
                    continue
                live = self.live.get(nxt) or self._register(nxt)
                if live.shape is None:
                    live.shape = nxt._grad_shape(nr)
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)

    def _accumulated_leaves(self) -> list[Tensor]:
        """The tensors whose .grad the recorded backward passes added to (each once)."""
        leaves: dict[int, Tensor] = {}
        for _, _, steps, _ in self.passes:
            for step in steps:
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
            a = None if g is None else g.data if isinstance(g, Tensor) else np.asarray(g)
            box = [a]
            if a is not None:
                self.watched.setdefault(owner_id(a), []).append(box)
            boxes.append(box)
        return boxes

    def _changing(self, t: Tensor) -> None:
        """`t` is about to change in place: the boxes holding its memory get copies."""
        # (later boxes hold the new values: they are watched afresh)
        boxes = self.watched.pop(owner_id(t.data), ())
        copies: dict[int, tuple] = {}  # id(array) -> (array, its copy): one copy per array
        for box in boxes:
            a = box[0]
            kept = copies.get(id(a))
            if kept is None:
                kept = copies[id(a)] = (a, np.array(a))
            box[0] = kept[1]

    def _step(self, event: BackwardStep) -> None:
        if event.node not in self.live:
            self._register(event.node)
        step = [event.index, event.node, self._boxed(event.grad_outputs),
                self._boxed(event.grad_inputs), list(event.summed_dims),
                self.accumulations, self.hooks, event.seconds]
        self.accumulations, self.hooks = [], []
        if not self.passes:
            self.passes.append([[], [], [], 0.0])
        self.passes[-1][2].append(step)

    # -- build ---------------------------------------------------------------------------------
    def build(self, names: dict[int, str]) -> tuple:
        """The records: nodes (forward order), leaves, backward passes, live leaf refs."""
        self._register_reachable(list(self.live))
        # Past the block nobody says what changes in place any more: what the records share
        # with a leaf's .grad is copied now.
        for t in self._accumulated_leaves():
            if t._grad is not None:
                self._changing(t._grad)
        order = self._forward_order()
        ids = {node: f"n{i + 1}" for i, node in enumerate(order)}
        labels = self._labels(order, names)
        leaf_labels = {id(self.live[n].out): labels[n] for n in order
                       if _is_leaf(n)}
        nodes, leaves, live_leaves = [], [], {}
        for node in order:
            live = self.live[node]
            if _is_leaf(node):
                nodes.append(TraceNode(ids[node], "AccumulateGrad", labels[node],
                                       formula=node.formula, shape=live.shape, value=live.value))
                leaf = live.out
                grad = leaf._grad
                leaves.append(TraceLeaf(labels[node], ids[node], live.shape, live.value,
                                        None if grad is None else np.array(grad.data),
                                        id(leaf) in self.params))
                live_leaves[ids[node]] = weakref.ref(leaf)
                continue
            args = [self._arg_text(live, i, nxt, nr, labels, names)
                    for i, (nxt, nr) in enumerate(_edges(node))]
            saved = [(args[w] if isinstance(w, int) else w, live.value if w == "result" else v)
                     for w, v in live.saved]
            nodes.append(TraceNode(
                ids[node], node.name(), labels[node],
                source_form(node.name(), args, live.attrs, live.shape),
                type(node).formula, live.shape, live.value,
                [None if nxt is None else ids.get(nxt) for nxt, _ in _edges(node)],
                args, live.attrs, live.line, saved))
        backwards = []
        for roots, seeds, steps, seconds in self.passes:
            records = []
            for index, node, g_out, g_in, summed, accs, hooks, secs in steps:
                accs = [TraceAccumulation(leaf_labels.get(id(t), "?"), before[0], after[0])
                        for t, before, after in accs]
                records.append(TraceStep(index, ids[node], [b[0] for b in g_out],
                                         [b[0] for b in g_in], summed, accs, hooks, secs))
            backwards.append(TraceBackward([ids[r] for r in roots], seeds, records, seconds))
        last = {a.leaf: a.after for b in backwards for s in b.steps for a in s.accumulations}
        for leaf in leaves:
            if leaf.label in last:
                leaf.grad = last[leaf.label]
        self.copies.clear()  # (the records hold what they need)
        self.watched.clear()
        return nodes, leaves, backwards, live_leaves

    def _forward_order(self) -> list:
        """Ops by creation order; each leaf's AccumulateGrad just before its first user."""
        ops = sorted((n for n in self.live if not _is_leaf(n)),
                     key=lambda n: n._sequence_nr)
        order: list = []
        placed: set = set()
        for n in [r for r in self.roots if _is_leaf(r)]:
            placed.add(n)
            order.append(n)
        for op in ops:
            for nxt, _ in _edges(op):
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
            if name is None and node in self.roots and not _is_leaf(node):
                outs += 1
                name = "out" if outs == 1 else f"out{outs}"
            labels[node] = unique(name)
        return labels

    def _arg_text(self, live: _Live, i: int, nxt: Any, nr: int, labels: dict,
                  names: dict[int, str]) -> str:
        if nxt is not None:
            return labels[nxt] + (f"#{nr}" if nr else "")
        value = live.consts.get(i, _UNKNOWN)
        if isinstance(value, Tensor) and not value.name and id(value) in names:
            return names[id(value)]
        return constant_text(value)


class _Unknown:
    def __repr__(self) -> str:
        return "c"


_UNKNOWN = _Unknown()


def constant_text(value: Any) -> str:
    """How a constant input reads in source form: `3`, `0.5`, `tensor([1., 0.])`, `mask`."""
    if isinstance(value, Tensor):
        if value.name:
            return value.name
        value = value.data
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return format_values(value)
        if value.size <= 4 and value.ndim == 1:
            return f"tensor({format_values(value)})"
        return f"const{tuple(value.shape)}"
    return repr(value)


def _same_view(view: np.ndarray, base: np.ndarray, base_copy: np.ndarray) -> np.ndarray | None:
    """The view of `base_copy` that `view` is of `base` (same offset, shape and strides), or
    None when `view` does not lie inside `base`'s memory laid out the same way."""
    if view.dtype != base.dtype or base_copy.strides != base.strides or not (
            base.flags.c_contiguous or base.flags.f_contiguous):
        return None
    start = base.__array_interface__["data"][0]
    lo, hi = _byte_bounds(view)
    if not start <= lo <= hi <= start + base.nbytes:
        return None
    offset = view.__array_interface__["data"][0] - start
    return np.ndarray(view.shape, view.dtype, base_copy, offset, view.strides)


def _byte_bounds(a: np.ndarray) -> tuple[int, int]:
    """The first byte `a` reads and one past the last."""
    lo = hi = a.__array_interface__["data"][0]
    for n, stride in zip(a.shape, a.strides):
        if n == 0:
            return lo, lo
        if stride < 0:
            lo += (n - 1) * stride
        else:
            hi += (n - 1) * stride
    return lo, hi + a.itemsize


def _is_leaf(node: Any) -> bool:
    """Is `node` a leaf's AccumulateGrad?"""
    return type(node) is AccumulateGrad


def _edges(node: Any) -> Iterable:
    """`node.next_functions` without building the tuple of pairs: (node, output_nr) pairs."""
    return zip(node._next_nodes, node._next_nrs)


def _data(t: Any) -> np.ndarray | None:
    return None if t is None else t.data if isinstance(t, Tensor) else np.asarray(t)


def _datas(values: Any) -> list[np.ndarray | None]:
    if values is None or isinstance(values, Tensor):
        return [_data(values)]
    return [_data(v) for v in values]


def _displayable(value: Any) -> bool:
    """Settings worth keeping for source forms: numbers, dims, keys, dtypes (not arrays)."""
    if value is None or isinstance(value, bool | int | float | str | slice | np.dtype):
        return True
    if value is Ellipsis or isinstance(value, np.integer | np.floating):
        return True
    if isinstance(value, np.ndarray):
        return value.size <= 64
    if isinstance(value, tuple | list):
        return all(_displayable(v) for v in value)
    return False


def user_frame(frame: Any) -> Any:
    """The first frame, from `frame` outwards, that is not minigrad's own code."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return frame


def source_line(frame: Any) -> str | None:
    """`file.py:12: y = x * w`: where `frame` is, and that line of source (None: no frame)."""
    if frame is None:
        return None
    filename = frame.f_code.co_filename
    code = linecache.getline(filename, frame.f_lineno).strip()
    return f"{os.path.basename(filename)}:{frame.f_lineno}: {code}"


# -- labels ------------------------------------------------------------------------------------
# Shared with `compare.trace_torch`, which labels PyTorch's tensors (tensor_type=torch.Tensor).
def frame_names(frame: Any, tensor_type: type = Tensor) -> dict[int, str]:
    """Variable names of the tensors bound in `frame` (for labels)."""
    if frame is None:
        return {}
    return {id(v): k for k, v in list(frame.f_locals.items())
            if isinstance(v, tensor_type) and not k.startswith("_")}


def callable_names(fn: Callable, tensor_type: type = Tensor) -> dict[int, str]:
    """The names under which a callable sees tensors: its closure cells and globals."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    names: dict[int, str] = {}
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, tensor_type):
            names.setdefault(id(value), name)
    scope = getattr(fn, "__globals__", {})
    for name in code.co_names:
        value = scope.get(name)
        if isinstance(value, tensor_type):
            names.setdefault(id(value), name)
    return names


class UniqueLabels:
    """Hands out labels that never repeat: a name already taken gets `_2`, `_3`, ...; no name
    (None) gets the next free `t1`, `t2`, ..."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.counter = 0

    def __call__(self, name: str | None) -> str:
        if name is None:
            self.counter += 1
            name = f"t{self.counter}"
            while name in self.used:
                self.counter += 1
                name = f"t{self.counter}"
        base, k = name, 1
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name
