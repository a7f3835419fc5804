"""`minigrad.trace(...)`: one forward and backward pass, kept as plain records.

A `Trace` holds data, not live objects: `TraceNode`s (the graph in forward order, leaves'
`AccumulateGrad` nodes included), `TraceLeaf`s, and `TraceBackward` passes made of
`TraceStep`s, and the `TraceModule`s that ran (each node names its module). Everything a
Trace does (`explain()`, `graph`, `to_json()`, `to_dot()`, `render()`, `focus()`) reads only
these records, so a Trace can also be built from what was observed
elsewhere: `Trace.from_records(nodes, leaves, backwards, engine="PyTorch")`.

The records are defined in `minigrad.teach.records` (re-exported here); recording from
the engine's events is `minigrad.teach.recorder`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from minigrad.autograd import events
from minigrad.autograd.collector import collector_paused
from minigrad.autograd.tensor import Tensor
from minigrad.teach import expr as expressions
from minigrad.teach import player, program, viz
from minigrad.teach.display import Drawing, PlayerPage
from minigrad.teach.explain import explain_trace
from minigrad.teach.focus import focus as focus_on
from minigrad.teach.labels import callable_names, frame_names, user_frame
from minigrad.teach.memory import MemoryReport, memory_report
from minigrad.teach.op_words import formula_for, source_form
from minigrad.teach.recorder import Recorder
from minigrad.teach.records import (
    TraceAccumulation,
    TraceBackward,
    TraceHook,
    TraceLeaf,
    TraceModule,
    TraceNode,
    TraceRecords,
    TraceStep,
)

__all__ = ["Trace", "TraceAccumulation", "TraceBackward", "TraceHook", "TraceLeaf",
           "TraceModule", "TraceNode", "TraceStep", "trace"]


class Trace(TraceRecords):
    """A recorded forward graph and backward pass(es); explain, draw or export it.

    Made by `minigrad.trace(...)`, by `with minigrad.trace() as t:`, or from records with
    `Trace.from_records(...)`. `engine` names who computed it ("minigrad", "PyTorch").
    """

    def __init__(self, nodes: Iterable[TraceNode] = (), leaves: Iterable[TraceLeaf] = (),
                 backwards: Iterable[TraceBackward] = (), engine: str = "minigrad",
                 params: Any = None, modules: Iterable[TraceModule] = ()) -> None:
        super().__init__(nodes, leaves, backwards, engine, modules)
        self.output: Any = None  # the traced tensor, when there is one
        self._params = params
        self._recorder: Recorder | None = None

    @classmethod
    def from_records(cls, nodes: Iterable[TraceNode], leaves: Iterable[TraceLeaf] = (),
                     backwards: Iterable[TraceBackward] = (), engine: str = "minigrad",
                     modules: Iterable[TraceModule] = ()) -> Trace:
        """A Trace from records observed anywhere (checked: every id referred to exists).

        `nodes` in forward order (inputs before the ops that use them); each leaf's
        AccumulateGrad is a node too, named "AccumulateGrad" and labelled like the leaf.
        Empty `source` and `formula` fields are filled in from the node names
        (`op_words`). See `minigrad.teach.records` for a worked example.
        """
        made = cls(nodes, leaves, backwards, engine, modules=modules)
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
            if not n.formula and not n.is_leaf:
                n.formula = formula_for(n.name)
        for n in made.nodes:
            if n.module and n.module not in made.modules:
                raise ValueError(f"Trace.from_records: node {n.id} ({n.name}) names module "
                                 f"{n.module!r}, which is not among the modules")
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

    # -- the records as data ---------------------------------------------------------------
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

    def to_python(self) -> str:
        """The forward and backward as one straight-line numpy program, a comment per step,
        that gives every `.grad` of the trace bit for bit (`minigrad.teach.program`)."""
        return program.to_python(self)

    # -- explaining and drawing ----------------------------------------------------------------
    def explanation(self, lang: str = "en", timing: bool = True, lines: bool | None = None,
                    summary: bool | None = None, memory: bool | None = None) -> str:
        """The narration `explain()` prints: forward graph, each backward step, the leaves.

        `timing=False` leaves the time out of the summary (for snapshots); `lines` shows the
        source line that ran each op (in the forward listing and in each step), by default
        whenever the trace watched the forward pass (a traced callable or `with` block);
        `summary=True` opens with a table of each module's gradient, suspects first, and
        groups the ops and steps by module (by default past 50 backward steps); `memory=True`
        says at each step what the graph keeps and frees (`self.memory`), and sums it up in
        one line (that line alone by default past 50 steps).
        """
        return explain_trace(self, lang=lang, timing=timing, lines=lines, summary=summary,
                             memory=memory)

    def explain(self, lang: str = "en", timing: bool = True, lines: bool | None = None,
                summary: bool | None = None, memory: bool | None = None) -> None:
        """Print the narration ("en" English, "zh" Chinese)."""
        print(self.explanation(lang=lang, timing=timing, lines=lines, summary=summary,
                               memory=memory))

    @property
    def memory(self) -> MemoryReport:
        """What the graph keeps, per node and step: the bytes of every distinct saved tensor
        before backward, what each step frees, the peak (`minigrad.teach.memory`)."""
        return memory_report(self)

    def to_dot(self, params: Any = None, show_grads: bool = True, show_values: bool = True,
               show_saved: bool = False, depth: int | None = None, collapse: bool = True,
               lang: str = "en", legend: bool | None = None) -> Any:
        """The graph as a `graphviz.Digraph` (see `minigrad.viz.draw`); `depth=k`: one box
        per module at depth k, identical blocks in a row collapsed into one "x N" box;
        `legend=True` (the default with `depth`): a picture to read on its own (legend,
        constants, output at the top). A trace of forward mode alone draws its pass
        (`forward_view`)."""
        if self.forwards and not self.nodes:
            return self.forward_view().to_dot(show_grads=show_grads, show_values=show_values,
                                              lang=lang, legend=legend)
        return viz.draw(self, params=params, show_grads=show_grads, show_values=show_values,
                        show_saved=show_saved, depth=depth, collapse=collapse, lang=lang,
                        legend=legend)

    def forward_view(self, k: int = 0) -> Any:
        """Forward-mode pass `k` as a graph of its own, to explain, draw (each edge with its
        tangent) and step through in the player (`minigrad.teach.forward_view`)."""
        from minigrad.teach.forward_view import ForwardView

        return ForwardView(self, k)

    def focus(self, modules: str | list[str]) -> Trace:
        """The part of this Trace that `modules` made (`"layer3"`, or a list of paths), as a
        Trace of its own: the tensors coming in are its leaves, those going out its roots
        (`minigrad.teach.focus`)."""
        return focus_on(self, modules)

    def render(self, path: str | os.PathLike, format: str | None = None, **options: Any
               ) -> Drawing:
        """Draw to `path` as "svg" or "png" (from the suffix by default); needs graphviz.
        Returns the path as a `Drawing`, which a notebook shows as the picture."""
        if self.forwards and not self.nodes:
            return self.forward_view().render(path, format=format, **options)
        return viz.render(self, path, format=format, **options)

    def _repr_svg_(self) -> str | None:
        return viz.svg_or_none(self.to_dot(legend=True))

    def to_html(self, path: str | os.PathLike | None = None, svg: str | None = None,
                lang: str = "en") -> PlayerPage:
        """The backward player: one self-contained HTML page that steps through the backward
        pass on the graph (`minigrad.teach.player`). Written to `path` when given; returned
        as a `PlayerPage`: a str that a notebook shows as the player itself."""
        if self.forwards and not self.backwards:  # (forward mode alone: its own player)
            return PlayerPage(self.forward_view().to_html(path, svg=svg, lang=lang))
        page = PlayerPage(player.page(self, svg=svg, lang=lang))
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

    def _repr_html_(self) -> str:
        return player.jupyter(self)

    def __repr__(self) -> str:
        ops = sum(1 for n in self.nodes if not n.is_leaf)
        return (f"<Trace ({self.engine}): {ops} operations, {len(self.leaves)} leaves, "
                f"{len(self.steps)} backward steps>")

    # -- `with minigrad.trace() as t:` ---------------------------------------------------------
    def __enter__(self) -> Trace:
        if self._recorder is not None or self.nodes:
            raise RuntimeError("this Trace has already recorded; start a new one with "
                               "`with minigrad.trace() as t:`")
        self._recorder = Recorder(self._params)
        self._listening = events.listen(self._recorder)
        self._listening.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._listening.__exit__(*exc)
        names = frame_names(sys._getframe(1))
        with collector_paused():
            self._load(self._recorder.build(names))


def trace(expr: Any = None, /, *, gradient: Any = None, retain_graph: bool | None = None,
          params: Any = None, backward: bool = True, **inputs: Any) -> Trace:
    """Record a forward graph and its backward pass as a `Trace`.

    `expr` is
    - a Tensor: its graph is recorded, then `expr.backward(gradient, retain_graph)` runs;
    - a callable: it is called (with `**inputs`, if given) while every op it runs is
      recorded with its source line, then backward runs on what it returns;
    - a string over named inputs: `trace("sum(x*y)*3", x=[1, 2, 3], y=[4, 5, 6])`, parsed
      safely (`minigrad.teach.expr`, never eval);
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
    code = getattr(expr, "__code__", None)  # (a callable's own lines are the user's code)
    # (a string expression's ops all run on the line that called trace(): no source lines)
    recorder = Recorder(params, [code.co_filename] if code is not None else [],
                        lines=not isinstance(expr, str))
    made = Trace(params=params)
    names = frame_names(user_frame(sys._getframe(1)))  # the caller's variable names
    with events.listen(recorder):
        if isinstance(expr, Tensor):
            out = expr
        elif isinstance(expr, str):
            tensors = _as_inputs(inputs)
            names.update((id(t), k) for k, t in tensors.items())
            out = expressions.evaluate(expr, tensors)
        elif callable(expr):
            tensors = _as_inputs(inputs)
            names.update(callable_names(expr))
            names.update((id(t), k) for k, t in tensors.items())
            out = expr(**tensors)
        else:
            raise TypeError(f"trace() takes a Tensor, a callable or a string expression, not "
                            f"{type(expr).__name__}")
        if not isinstance(out, Tensor):
            raise TypeError(f"trace(): the expression gave a {type(out).__name__}, not a Tensor")
        with collector_paused():  # (the user's callable above runs with the collector on)
            if out is expr or not backward:
                recorder.add_roots([out])
            if backward:
                if gradient is not None and not isinstance(gradient, Tensor):  # numbers, lists
                    gradient = Tensor(np.asarray(gradient, dtype=out.array.dtype))
                out.backward(gradient, retain_graph=retain_graph)
    with collector_paused():
        made._load(recorder.build(names))
    made.output = out
    return made


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
