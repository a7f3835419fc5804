"""`minigrad.trace(...)`: one forward and backward pass, kept as plain records.

A `Trace` holds data, not live objects: `TraceNode`s (the graph in forward order, leaves'
`AccumulateGrad` nodes included), `TraceLeaf`s, and `TraceBackward` passes made of
`TraceStep`s. Everything a Trace does (`explain()`, `graph`, `to_json()`, `to_dot()`,
`render()`) reads only these records, so a Trace can also be built from what was observed
elsewhere: `Trace.from_records(nodes, leaves, backwards, engine="PyTorch")`.

Recording listens to the engine's events (`minigrad.events`); see `_Recorder`.
"""

from __future__ import annotations

import json
import linecache
import os
import sys
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from minigrad import events
from minigrad.events import (
    BackwardBegin,
    BackwardEnd,
    BackwardStep,
    ForwardOp,
    GradAccumulated,
    HookFired,
)
from minigrad.narration.ops import source_form
from minigrad.printing import format_values
from minigrad.tensor import Tensor

__all__ = ["Trace", "TraceAccumulation", "TraceBackward", "TraceHook", "TraceLeaf", "TraceNode",
           "TraceStep", "trace"]


@dataclass
class TraceNode:
    """One node of the graph: an op (`MulBackward0`) or a leaf's `AccumulateGrad`.

    `inputs[i]` is the id of the node feeding input i (PyTorch's `next_functions`), or None
    for an input that needs no gradient (a constant); `args[i]` is how input i reads in the
    source form (`"x"`, `"t1"`, `"3"`). `label` names the node's output (`t1`, `out`; for an
    AccumulateGrad, the leaf's label); `source` is the op as code (`"x * y"`).
    """

    id: str
    name: str
    label: str = ""
    source: str = ""
    formula: str = ""
    shape: tuple | None = None
    value: np.ndarray | None = None
    inputs: list[str | None] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    line: str | None = None
    saved: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        return self.name == "AccumulateGrad"


@dataclass
class TraceLeaf:
    """A tensor that requires grad and was made by the user (or a parameter)."""

    label: str
    node: str  # the id of its AccumulateGrad node
    shape: tuple = ()
    value: np.ndarray | None = None
    grad: np.ndarray | None = None  # `.grad` when the trace ended
    is_param: bool = False


@dataclass
class TraceHook:
    """A hook that ran: "tensor", "prehook" or "hook", with the gradients before and after."""

    where: str
    name: str
    before: list[np.ndarray | None]
    after: list[np.ndarray | None]

    @property
    def changed(self) -> bool:
        return any((a is None) != (b is None) or (a is not None and not np.array_equal(a, b))
                   for a, b in zip(self.before, self.after))


@dataclass
class TraceAccumulation:
    """`leaf.grad` went from `before` (None the first time) to `after`."""

    leaf: str
    before: np.ndarray | None
    after: np.ndarray | None


@dataclass
class TraceStep:
    """One backward step: node `node` received `grad_outputs` and sent `grad_inputs`.

    `summed_dims[i]` lists the dims summed away to undo broadcasting for input i (or None).
    """

    index: int
    node: str
    grad_outputs: list[np.ndarray | None] = field(default_factory=list)
    grad_inputs: list[np.ndarray | None] = field(default_factory=list)
    summed_dims: list[tuple | None] = field(default_factory=list)
    accumulations: list[TraceAccumulation] = field(default_factory=list)
    hooks: list[TraceHook] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class TraceBackward:
    """One backward pass: from `roots` (node ids) seeded with `seeds`, in `steps`."""

    roots: list[str]
    seeds: list[np.ndarray | None]
    steps: list[TraceStep] = field(default_factory=list)
    seconds: float = 0.0


class Trace:
    """A recorded forward graph and backward pass(es); explain, draw or export it.

    Made by `minigrad.trace(...)`, by `with minigrad.trace() as t:`, or from records with
    `Trace.from_records(...)`. `engine` names who computed it ("minigrad", "PyTorch").
    """

    def __init__(self, nodes: Iterable[TraceNode] = (), leaves: Iterable[TraceLeaf] = (),
                 backwards: Iterable[TraceBackward] = (), engine: str = "minigrad",
                 params: Any = None) -> None:
        self.engine = engine
        self.nodes: list[TraceNode] = list(nodes)
        self.leaves: list[TraceLeaf] = list(leaves)
        self.backwards: list[TraceBackward] = list(backwards)
        self.output: Any = None  # the traced tensor, when there is one
        self._by_id = {n.id: n for n in self.nodes}
        self._params = params
        self._recorder: _Recorder | None = None
        self._live_leaves: dict[str, Any] = {}

    @classmethod
    def from_records(cls, nodes: Iterable[TraceNode], leaves: Iterable[TraceLeaf] = (),
                     backwards: Iterable[TraceBackward] = (), engine: str = "minigrad"
                     ) -> Trace:
        """A Trace from records observed anywhere (checked: every id referred to exists).

        `nodes` in forward order (inputs before the ops that use them); each leaf's
        AccumulateGrad is a node too, named "AccumulateGrad" and labelled like the leaf.
        Empty `source` fields are filled in from the node names (`narration.ops`).
        """
        made = cls(nodes, leaves, backwards, engine)
        ids = [n.id for n in made.nodes]
        if len(set(ids)) != len(ids):
            raise ValueError("Trace.from_records: node ids must be unique")
        for n in made.nodes:
            for i in n.inputs:
                if i is not None and i not in made._by_id:
                    raise ValueError(f"Trace.from_records: node {n.id} ({n.name}) has an input "
                                     f"{i!r} that is not among the nodes")
            if not n.source and not n.is_leaf:
                n.source = source_form(n.name, n.args or ["?"] * len(n.inputs), n.attrs,
                                       n.shape)
        for leaf in made.leaves:
            if leaf.node not in made._by_id:
                raise ValueError(f"Trace.from_records: leaf {leaf.label!r} points at unknown "
                                 f"node {leaf.node!r}")
        for b in made.backwards:
            for s in b.steps:
                if s.node not in made._by_id:
                    raise ValueError(f"Trace.from_records: step {s.index} runs unknown node "
                                     f"{s.node!r}")
        return made

    # -- reading the records -------------------------------------------------------------
    def node(self, node_id: str) -> TraceNode:
        return self._by_id[node_id]

    @property
    def steps(self) -> list[TraceStep]:
        """Every backward step of every pass, in order."""
        return [s for b in self.backwards for s in b.steps]

    def leaf(self, label: str) -> TraceLeaf:
        for leaf in self.leaves:
            if leaf.label == label:
                return leaf
        raise KeyError(f"no leaf labelled {label!r}; leaves: {[x.label for x in self.leaves]}")

    def step_numbers(self) -> dict[str, list[int]]:
        """For each node id, the backward step(s) that ran it."""
        numbers: dict[str, list[int]] = {}
        for b in self.backwards:
            for s in b.steps:
                numbers.setdefault(s.node, []).append(s.index)
        return numbers

    @property
    def graph(self) -> dict[str, Any]:
        """Nodes and edges as plain data; an edge runs from an input to the op using it."""
        steps = self.step_numbers()
        nodes = [{"id": n.id, "name": n.name, "label": n.label, "source": n.source,
                  "shape": None if n.shape is None else list(n.shape),
                  "kind": "leaf" if n.is_leaf else "op", "steps": steps.get(n.id, [])}
                 for n in self.nodes]
        edges = [{"from": src, "to": n.id, "input": i}
                 for n in self.nodes for i, src in enumerate(n.inputs) if src is not None]
        roots = [r for b in self.backwards for r in b.roots]
        return {"engine": self.engine, "nodes": nodes, "edges": edges,
                "outputs": list(dict.fromkeys(roots))}

    def to_json(self, indent: int | None = None, max_values: int = 1000) -> str:
        """Graph, leaves and steps as JSON; arrays above `max_values` elements as statistics."""
        def arr(a: Any) -> Any:
            return _array_json(a, max_values)

        data = self.graph
        for entry, n in zip(data["nodes"], self.nodes):
            entry.update(formula=n.formula, inputs=n.inputs, args=n.args, line=n.line,
                         value=arr(n.value), attrs={k: _plain(v) for k, v in n.attrs.items()})
        data["leaves"] = [{"label": x.label, "node": x.node, "shape": list(x.shape),
                           "value": arr(x.value), "grad": arr(x.grad), "is_param": x.is_param}
                          for x in self.leaves]
        data["backwards"] = [{
            "roots": b.roots, "seeds": [arr(s) for s in b.seeds], "seconds": b.seconds,
            "steps": [{
                "index": s.index, "node": s.node, "seconds": s.seconds,
                "grad_outputs": [arr(g) for g in s.grad_outputs],
                "grad_inputs": [arr(g) for g in s.grad_inputs],
                "summed_dims": [None if d is None else list(d) for d in s.summed_dims],
                "accumulations": [{"leaf": a.leaf, "before": arr(a.before),
                                   "after": arr(a.after)} for a in s.accumulations],
                "hooks": [{"where": h.where, "name": h.name, "changed": h.changed,
                           "before": [arr(g) for g in h.before],
                           "after": [arr(g) for g in h.after]} for h in s.hooks],
            } for s in b.steps]} for b in self.backwards]
        return json.dumps(data, indent=indent)

    # -- explaining and drawing ----------------------------------------------------------------
    def explanation(self, lang: str = "en", timing: bool = True, lines: bool = False) -> str:
        """The narration `explain()` prints: forward graph, each backward step, the leaves.

        `timing=False` leaves the time out of the summary (for snapshots); `lines=True` also
        shows the source line that ran each op.
        """
        from minigrad.explain import explain_trace

        return explain_trace(self, lang=lang, timing=timing, lines=lines)

    def explain(self, lang: str = "en", timing: bool = True, lines: bool = False) -> None:
        """Print the narration ("en" English, "zh" Chinese)."""
        print(self.explanation(lang=lang, timing=timing, lines=lines))

    def to_dot(self, params: Any = None, show_grads: bool = True, show_values: bool = True,
               show_saved: bool = False) -> Any:
        """The graph as a `graphviz.Digraph` (see `minigrad.viz.draw`)."""
        from minigrad import viz

        return viz.draw(self, params=params, show_grads=show_grads, show_values=show_values,
                        show_saved=show_saved)

    def render(self, path: str | os.PathLike, format: str | None = None, **options: Any
               ) -> Path:
        """Draw to `path` as "svg" or "png" (from the suffix by default); needs graphviz."""
        from minigrad import viz

        return viz.render(self, path, format=format, **options)

    def _repr_svg_(self) -> str | None:
        from minigrad import viz

        return viz.svg_or_none(self.to_dot())

    def __repr__(self) -> str:
        ops = sum(1 for n in self.nodes if not n.is_leaf)
        return (f"<Trace ({self.engine}): {ops} operations, {len(self.leaves)} leaves, "
                f"{len(self.steps)} backward steps>")

    # -- `with minigrad.trace() as t:` ---------------------------------------------------------
    def __enter__(self) -> Trace:
        if self._recorder is not None or self.nodes:
            raise RuntimeError("this Trace has already recorded; start a new one with "
                               "`with minigrad.trace() as t:`")
        self._recorder = _Recorder(self._params)
        self._listening = events.listen(self._recorder)
        self._listening.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._listening.__exit__(*exc)
        self._load(self._recorder.build(_frame_names(sys._getframe(1))))

    def _load(self, records: tuple) -> None:
        self.nodes, self.leaves, self.backwards, self._live_leaves = records
        self._by_id = {n.id: n for n in self.nodes}


def trace(expr: Any = None, /, *, gradient: Any = None, retain_graph: bool | None = None,
          params: Any = None, backward: bool = True, **inputs: Any) -> Trace:
    """Record a forward graph and its backward pass as a `Trace`.

    `expr` is
    - a Tensor: its graph is recorded, then `expr.backward(gradient, retain_graph)` runs;
    - a callable: it is called (with `**inputs`, if given) while every op it runs is
      recorded with its source line, then backward runs on what it returns;
    - a string over named inputs: `trace("sum(x*y)*3", x=[1, 2, 3], y=[4, 5, 6])`, parsed
      safely (`minigrad.expr`, never eval);
    - nothing: `with minigrad.trace() as t:` records whatever runs inside.
    `inputs` become leaf tensors that require grad, named by their keywords. `params`
    (a dict name -> tensor, or a module) names parameters. `backward=False` records the
    graph only.

    Tensors are labelled by their `.name`, else their parameter name, else the variable that
    holds them in the caller's code (or the callable's), else `out` for the result and
    t1, t2, ... in forward order.
    """
    if expr is None:
        if inputs:
            raise TypeError("trace() with inputs needs an expression: trace('x*y', x=..., y=...)")
        return Trace(params=params)
    recorder = _Recorder(params)
    made = Trace(params=params)
    names = _frame_names(_user_frame(sys._getframe(1)))  # the caller's variable names
    with events.listen(recorder):
        if isinstance(expr, Tensor):
            out = expr
            recorder.add_roots([out])
        elif isinstance(expr, str):
            from minigrad import expr as expr_module

            tensors = _as_inputs(inputs)
            names.update((id(t), k) for k, t in tensors.items())
            out = expr_module.evaluate(expr, tensors)
        elif callable(expr):
            tensors = _as_inputs(inputs)
            names.update(_callable_names(expr))
            names.update((id(t), k) for k, t in tensors.items())
            out = expr(**tensors)
        else:
            raise TypeError(f"trace() takes a Tensor, a callable or a string expression, not "
                            f"{type(expr).__name__}")
        if not isinstance(out, Tensor):
            raise TypeError(f"trace(): the expression gave a {type(out).__name__}, not a Tensor")
        if backward:
            out.backward(gradient, retain_graph=retain_graph)
        else:
            recorder.add_roots([out])
    made._load(recorder.build(names))
    made.output = out
    return made


# -- recording: live objects -> records ---------------------------------------------------------
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
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


class _Recorder:
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

    def __call__(self, event: Any) -> None:
        kind = type(event)
        if kind is ForwardOp:
            if not self.depth:  # ops recorded by a backward (create_graph) are not forward
                self._forward(event)
        elif kind is BackwardStep:
            self._step(event)
        elif kind is GradAccumulated:
            self.accumulations.append((event.tensor, _data(event.grad), _data(event.total)))
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
            live.out, live.value, live.shape = out, np.array(out.data), out.data.shape
        for i, (arg, (nxt, _)) in enumerate(zip(event.inputs, node.next_functions)):
            if nxt is None:
                live.consts[i] = arg
        live.line = _caller_line()

    def _register(self, node: Any) -> _Live:
        live = self.live[node] = _Live(node)
        if node.name() == "AccumulateGrad":
            v = node.variable
            live.value, live.shape, live.out = np.array(v.data), v.data.shape, v
            return live
        saved = node._saved
        nf = node.next_functions
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
                live.saved.append((where if where is not None else f"saved[{i}]", s.data))
        if node._saved_output is not None:
            live.value = node._saved_output[0]
            live.saved.append(("result", live.value))
        live.attrs = {k: v for k, v in vars(node).items()
                      if not k.startswith("_") and k not in _CTX_SKIP and _displayable(v)}
        return live

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
            if live.value is None and not node.name() == "AccumulateGrad":
                live.value, live.shape = np.array(t.data), t.data.shape
        stack, seen = list(edges), set(edges)
        while stack:
            node = stack.pop()
            if node not in self.live:
                self._register(node)
            for i, (nxt, _) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                live = self.live.get(nxt) or self._register(nxt)
                if live.shape is None and i < len(node._input_shapes):
                    live.shape = node._input_shapes[i]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return edges

    def _step(self, event: BackwardStep) -> None:
        if event.node not in self.live:
            self._register(event.node)
        step = [event.index, event.node, _datas(event.grad_outputs), _datas(event.grad_inputs),
                list(event.summed_dims), self.accumulations, self.hooks, event.seconds]
        self.accumulations, self.hooks = [], []
        if not self.passes:
            self.passes.append([[], [], [], 0.0])
        self.passes[-1][2].append(step)

    # -- build ---------------------------------------------------------------------------------
    def build(self, names: dict[int, str]) -> tuple:
        """The records: nodes (forward order), leaves, backward passes, live leaf refs."""
        order = self._forward_order()
        ids = {node: f"n{i + 1}" for i, node in enumerate(order)}
        labels = self._labels(order, names)
        leaf_labels = {id(self.live[n].out): labels[n] for n in order
                       if n.name() == "AccumulateGrad"}
        nodes, leaves, live_leaves = [], [], {}
        for node in order:
            live = self.live[node]
            if node.name() == "AccumulateGrad":
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
                    for i, (nxt, nr) in enumerate(node.next_functions)]
            saved = [(args[w] if isinstance(w, int) else w, v) for w, v in live.saved]
            nodes.append(TraceNode(
                ids[node], node.name(), labels[node],
                source_form(node.name(), args, live.attrs, live.shape),
                type(node).formula, live.shape, live.value,
                [None if nxt is None else ids.get(nxt) for nxt, _ in node.next_functions],
                args, live.attrs, live.line, saved))
        backwards = []
        for roots, seeds, steps, seconds in self.passes:
            records = []
            for index, node, g_out, g_in, summed, accs, hooks, secs in steps:
                accs = [TraceAccumulation(leaf_labels.get(id(t), "?"), before, after)
                        for t, before, after in accs]
                records.append(TraceStep(index, ids[node], g_out, g_in, summed, accs, hooks,
                                         secs))
            backwards.append(TraceBackward([ids[r] for r in roots], seeds, records, seconds))
        last = {a.leaf: a.after for b in backwards for s in b.steps for a in s.accumulations}
        for leaf in leaves:
            if leaf.label in last:
                leaf.grad = last[leaf.label]
        return nodes, leaves, backwards, live_leaves

    def _forward_order(self) -> list:
        """Ops by creation order; each leaf's AccumulateGrad just before its first user."""
        ops = sorted((n for n in self.live if n.name() != "AccumulateGrad"),
                     key=lambda n: n._sequence_nr)
        order: list = []
        placed: set = set()
        for n in [r for r in self.roots if r.name() == "AccumulateGrad"]:
            placed.add(n)
            order.append(n)
        for op in ops:
            for nxt, _ in op.next_functions:
                if nxt is not None and nxt.name() == "AccumulateGrad" and nxt not in placed:
                    placed.add(nxt)
                    order.append(nxt)
            order.append(op)
        order.extend(n for n in self.live if n.name() == "AccumulateGrad" and n not in placed)
        return order

    def _labels(self, order: list, names: dict[int, str]) -> dict:
        """tensor.name, else parameter name, else variable name, else out / t1, t2, ..."""
        labels, used, counter = {}, set(), 0
        outs = 0
        for node in order:
            live = self.live[node]
            t = live.out if live.out is not None else self.roots.get(node)
            name = None
            if t is not None:
                name = t.name or self.params.get(id(t)) or names.get(id(t))
            if name is None and node in self.roots and node.name() != "AccumulateGrad":
                outs += 1
                name = "out" if outs == 1 else f"out{outs}"
            if name is None:
                counter += 1
                name = f"t{counter}"
                while name in used:
                    counter += 1
                    name = f"t{counter}"
            base, k = name, 1
            while name in used:
                k += 1
                name = f"{base}_{k}"
            used.add(name)
            labels[node] = name
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


def _plain(value: Any) -> Any:
    """A JSON-friendly copy of a setting."""
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return repr(value)


def _array_json(a: Any, max_values: int) -> Any:
    if a is None:
        return None
    a = np.asarray(a)
    if a.size > max_values:
        with np.errstate(all="ignore"):
            f = a.astype(np.float64)
            return {"shape": list(a.shape), "mean": _finite(float(f.mean())),
                    "absmax": _finite(float(np.abs(f).max())),
                    "norm": _finite(float(np.sqrt((f * f).sum())))}
    values = a.tolist()
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        values = _finite_lists(values)
    return {"shape": list(a.shape), "values": values}


def _finite(v: float) -> Any:
    return v if np.isfinite(v) else str(v)


def _finite_lists(values: Any) -> Any:
    if isinstance(values, list):
        return [_finite_lists(v) for v in values]
    return _finite(values)


def _user_frame(frame: Any) -> Any:
    """The first frame, from `frame` outwards, that is not minigrad's own code."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return frame


def _caller_line() -> str | None:
    """`file.py:12: y = x * w`: the first frame outside the minigrad package."""
    frame = _user_frame(sys._getframe(2))
    if frame is None:
        return None
    filename = frame.f_code.co_filename
    code = linecache.getline(filename, frame.f_lineno).strip()
    return f"{os.path.basename(filename)}:{frame.f_lineno}: {code}"


def _frame_names(frame: Any) -> dict[int, str]:
    """Variable names of the tensors bound in `frame` (for labels)."""
    if frame is None:
        return {}
    return {id(v): k for k, v in list(frame.f_locals.items())
            if isinstance(v, Tensor) and not k.startswith("_")}


def _callable_names(fn: Callable) -> dict[int, str]:
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
        if isinstance(value, Tensor):
            names.setdefault(id(value), name)
    scope = getattr(fn, "__globals__", {})
    for name in code.co_names:
        value = scope.get(name)
        if isinstance(value, Tensor):
            names.setdefault(id(value), name)
    return names


def _as_inputs(inputs: dict[str, Any]) -> dict[str, Tensor]:
    """Keyword inputs as leaf tensors that require grad (float32 unless given floats)."""
    tensors = {}
    for name, value in inputs.items():
        if isinstance(value, Tensor):
            tensors[name] = value
            continue
        array = np.asarray(value)
        if array.dtype.kind in "biu":
            array = array.astype(np.float32)
        elif array.dtype == np.float64 and not isinstance(value, np.ndarray):
            array = array.astype(np.float32)
        tensors[name] = Tensor(array, requires_grad=True, name=name)
    return tensors
