"""`compare.trace_torch`: PyTorch's own backward, watched node by node, as a minigrad Trace.

    loss = F.cross_entropy(model(x), y)
    t = compare.trace_torch(loss, params=dict(model.named_parameters()))
    t.explain()                # or "zh"; t.to_dot(), t.render("graph.svg"), t.to_html()

Before the backward runs, the graph is read from `loss.grad_fn` (`next_functions`,
`AccumulateGrad.variable`, the `_saved_*` values each node keeps); then a pre-hook and a hook
on every node see each step as PyTorch runs it (its incoming and outgoing gradients, in
PyTorch's order), `loss.backward()` runs, and every hook is removed again. Nothing changes
the gradients: `.grad` ends as after a plain `loss.backward()`.

A tensor only remembers the values its graph saved for backward, so intermediate values
torch did not keep are not shown. Pass the forward itself to see every value: a callable
(`trace_torch(lambda: F.cross_entropy(model(x), y), params=model)`) or a string over named
inputs (`trace_torch("sum(x*y)*3", x=[1, 2, 3], y=[4, 5, 6])`) runs under a recorder of torch
calls first. Labels follow `minigrad.trace`: parameter names, input names, the caller's
variable names, `out`, then t1, t2, ... in forward order. Ops minigrad knows are explained
with minigrad's rule; the others (`ConvolutionBackward0`) by name, shapes and statistics.
"""

from __future__ import annotations

import linecache
import os
import sys
import time
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from compare.torch_bridge import import_torch
from compare.torch_nodes import (
    BROADCASTING,
    RESHAPES,
    NodeFacts,
    read,
    recompute,
    saved_values,
)
from minigrad.function import AccumulateGrad as _MinigradAccumulate
from minigrad.narration.ops import source_form
from minigrad.narration.recorder import constant_text
from minigrad.narration.records import (
    TraceAccumulation,
    TraceBackward,
    TraceLeaf,
    TraceNode,
    TraceStep,
)
from minigrad.ops.reduce import sum_to_array
from minigrad.trace import Trace

__all__ = ["explain_main", "trace_torch"]

ENGINE = "PyTorch"
ACCUMULATE = "AccumulateGrad"
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_OWN_FILES = tuple(_HERE + f for f in ("trace_torch.py", "torch_nodes.py", "source.py",
                                       "torch_bridge.py"))


def trace_torch(loss: Any, params: Any = None, gradient: Any = None, retain_graph: bool = False,
                **inputs: Any) -> Trace:
    """Run PyTorch's backward of `loss` while watching each step; return it as a Trace.

    `loss` is a torch tensor (its graph is read, then `loss.backward(gradient, retain_graph)`
    runs), or a callable / a string expression over `inputs`, run here first so that every
    intermediate value is seen. `params` (a dict name -> tensor, or a module) names the
    parameters. `gradient` is the seed for a non-scalar loss (a tensor or array-like).
    """
    torch = import_torch()
    names = _frame_names(_caller(), torch)
    forward = None
    if not isinstance(loss, torch.Tensor):
        if not (isinstance(loss, str) or callable(loss)):
            raise TypeError(f"trace_torch() takes a torch tensor, a callable or a string "
                            f"expression, not {type(loss).__name__}")
        tensors = _as_inputs(inputs, torch)
        if isinstance(loss, str):
            from compare.source import from_source

            fn = from_source(loss, None, list(tensors))[1]
        else:
            fn = loss
            names.update(_callable_names(loss, torch))
        names.update((id(t), k) for k, t in tensors.items())
        forward = _forward_recorder(torch)
        with forward:
            loss = fn(**tensors)
        if not isinstance(loss, torch.Tensor):
            raise TypeError(f"trace_torch(): the expression gave a {type(loss).__name__}, "
                            "not a tensor")
    elif inputs:
        raise TypeError("trace_torch(tensor) takes no inputs; give a callable or a string "
                        "expression to run with inputs")
    if not loss.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    graph = _Graph(torch, loss, forward, params, names)
    passes = graph.observe(gradient, retain_graph)
    nodes, leaves, backwards = graph.records(passes)
    made = Trace.from_records(nodes, leaves, backwards, engine=ENGINE)
    made.output = loss
    made._live_leaves = {graph.ids[n]: weakref.ref(n.variable) for n in graph.order
                         if graph.name[n] == ACCUMULATE}
    return made


class _Observer:
    """The hooks' side: each step's gradients, in the order PyTorch runs the nodes."""

    def __init__(self) -> None:
        self.steps: list[list] = []  # [node, grad_outputs, grad_inputs, before, after, t0, t1]
        self.open: dict[Any, list] = {}

    def before(self, node: Any, grad_outputs: tuple, leaf: Any) -> None:
        grad = None if leaf is None or leaf.grad is None else _array(leaf.grad)
        step = [node, _arrays(grad_outputs), [], grad, None, time.perf_counter(), None]
        self.steps.append(step)
        self.open[node] = step

    def after(self, node: Any, grad_inputs: tuple, leaf: Any) -> None:
        step = self.open.pop(node, None)
        if step is None:
            return
        step[2] = _arrays(grad_inputs)
        step[4] = None if leaf is None or leaf.grad is None else _array(leaf.grad)
        step[6] = time.perf_counter()


class _Graph:
    """PyTorch's graph behind `loss`, read before its backward frees what it saved."""

    def __init__(self, torch: Any, loss: Any, forward: Any, params: Any,
                 names: dict[int, str]) -> None:
        self.torch, self.loss = torch, loss
        if params is not None and hasattr(params, "named_parameters"):
            params = dict(params.named_parameters())
        self.params = {id(t): name for name, t in (params or {}).items()}
        self.names = names
        calls = forward.calls if forward is not None else {}
        self.line: dict[Any, str | None] = dict(forward.lines) if forward is not None else {}
        self.root = torch.autograd.graph.get_gradient_edge(loss).node
        self.name: dict[Any, str] = {}
        self.facts: dict[Any, NodeFacts] = {}
        self.value: dict[Any, np.ndarray] = {}
        self.out: dict[Any, Any] = {self.root: loss}
        found = self._walk()
        for node in found:  # what each node saved: values of the tensors that made them
            for tensor in _tensors(self.facts[node].saved.values(), torch):
                made_by = tensor.grad_fn
                if made_by is not None and tensor.output_nr == 0 and made_by in self.name:
                    self.value.setdefault(made_by, _array(tensor))
                    self.out.setdefault(made_by, tensor)
        for node, (args, kwargs, value, out, line) in calls.items():
            if node in self.name:
                self.value[node], self.out[node], self.line[node] = value, out, line
                self.facts[node].call = (args, kwargs)
        if self.root not in self.value and self.name[self.root] != ACCUMULATE:
            self.value[self.root] = _array(loss)
        self.order = self._forward_order(found)
        is_tensor = lambda v: isinstance(v, torch.Tensor)  # noqa: E731
        self.reading = {n: read(self.facts[n], is_tensor) for n in self.order
                        if self.name[n] != ACCUMULATE}
        self._fill_values()
        self.ids = {node: f"n{i + 1}" for i, node in enumerate(self.order)}
        self.labels = self._labels()

    def _walk(self) -> list:
        """Every node behind the root (iteratively), with what is known of it."""
        found, stack = [], [self.root]
        self.name[self.root] = _name(self.root)
        while stack:
            node = stack.pop()
            found.append(node)
            self.facts[node] = self._facts(node)
            for nxt, _ in node.next_functions:
                if nxt is not None and nxt not in self.name:
                    self.name[nxt] = _name(nxt)
                    stack.append(nxt)
        return found

    def _facts(self, node: Any) -> NodeFacts:
        name = self.name[node]
        if name == ACCUMULATE:
            v = node.variable
            self.value[node], self.out[node] = _array(v), v
            return NodeFacts(name, {}, [], tuple(v.shape), _np_dtype(v.dtype, self.torch))
        metadata = _metadata(node)
        in_shapes, in_dtypes = [], []
        for nxt, nr in node.next_functions:
            meta = None if nxt is None else (
                (tuple(nxt.variable.shape), nxt.variable.dtype) if _name(nxt) == ACCUMULATE
                else _metadata(nxt)[nr] if nr < len(_metadata(nxt)) else None)
            in_shapes.append(None if meta is None else meta[0])
            in_dtypes.append(None if meta is None else _np_dtype(meta[1], self.torch))
        out_shape, out_dtype = metadata[0] if metadata else (None, None)
        return NodeFacts(name, saved_values(node), in_shapes, out_shape,
                         _np_dtype(out_dtype, self.torch), in_dtypes)

    def _fill_values(self) -> None:
        """Values torch kept nowhere: recomputed from the inputs' values, or, for a reshape
        whose result is known (`flatten` after a max-pool), read back from that result."""
        for node in self.order:
            if node not in self.value and node in self.reading:
                self._recompute(node)
        for node in reversed(self.order):
            nxt, nr = node.next_functions[0] if node.next_functions else (None, 0)
            if (self.name[node] in RESHAPES and node in self.value and nxt is not None
                    and nr == 0 and nxt not in self.value
                    and self.facts[node].in_shapes[0] is not None):
                self.value[nxt] = self.value[node].reshape(self.facts[node].in_shapes[0])
        for node in self.order:
            if node not in self.value and node in self.reading:
                self._recompute(node)

    def _recompute(self, node: Any) -> None:
        facts, reading = self.facts[node], self.reading[node]
        inputs = []
        for i, (nxt, nr) in enumerate(node.next_functions):
            if nxt is None:
                value = reading.consts.get(i)
                inputs.append(_array(value) if isinstance(value, self.torch.Tensor) else value)
            else:
                inputs.append(self.value.get(nxt) if nr == 0 else None)
        value = recompute(facts.name, inputs, reading.attrs, facts.out_shape, facts.out_dtype)
        if value is not None:
            self.value[node] = value

    def _forward_order(self, found: list) -> list:
        """Ops by creation order (sequence number); each leaf just before its first user."""
        ops = sorted((n for n in found if self.name[n] != ACCUMULATE),
                     key=lambda n: n._sequence_nr())
        order: list = [self.root] if self.name[self.root] == ACCUMULATE else []
        placed = set(order)
        for op in ops:
            for nxt, _ in op.next_functions:
                if nxt is not None and self.name[nxt] == ACCUMULATE and nxt not in placed:
                    placed.add(nxt)
                    order.append(nxt)
            order.append(op)
        order.extend(n for n in found if self.name[n] == ACCUMULATE and n not in placed)
        return order

    def _labels(self) -> dict:
        """Parameter name, else input or variable name, else `out`, else t1, t2, ..."""
        labels, used, counter = {}, set(), 0
        for node in self.order:
            t = self.out.get(node)
            name = None if t is None else self.params.get(id(t)) or self.names.get(id(t))
            if name is None and node is self.root and self.name[node] != ACCUMULATE:
                name = "out"
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

    # -- the backward pass ---------------------------------------------------------------
    def observe(self, gradient: Any, retain_graph: bool) -> list:
        """Hook every node, run the backward, unhook; return [(steps, seed, seconds)]."""
        observer = _Observer()
        handles = []
        seed = self._seed(gradient)
        try:
            for node in self.order:
                leaf = node.variable if self.name[node] == ACCUMULATE else None
                handles.append(node.register_prehook(
                    lambda g, node=node, leaf=leaf: observer.before(node, g, leaf)))
                handles.append(node.register_hook(
                    lambda g_in, g_out, node=node, leaf=leaf: observer.after(node, g_in, leaf)))
            start = time.perf_counter()
            self.loss.backward(seed, retain_graph=retain_graph)
            seconds = time.perf_counter() - start
        finally:
            for handle in handles:
                handle.remove()
        seed_array = _array(seed) if seed is not None else np.ones(
            tuple(self.loss.shape), _np_dtype(self.loss.dtype, self.torch))
        return [(observer.steps, seed_array, seconds)]

    def _seed(self, gradient: Any) -> Any:
        if gradient is None or isinstance(gradient, self.torch.Tensor):
            return gradient
        return self.torch.as_tensor(np.asarray(gradient), dtype=self.loss.dtype)

    # -- records -------------------------------------------------------------------------------
    def records(self, passes: list) -> tuple[list, list, list]:
        nodes, leaves = [], []
        for node in self.order:
            nodes.append(self._node_record(node))
            if self.name[node] == ACCUMULATE:
                v = node.variable
                leaves.append(TraceLeaf(self.labels[node], self.ids[node], tuple(v.shape),
                                        self.value[node], None, id(v) in self.params))
        backwards = []
        for steps, seed, seconds in passes:
            records = [self._step_record(i + 1, *raw) for i, raw in enumerate(steps)]
            backwards.append(TraceBackward([self.ids[self.root]], [seed], records, seconds))
        last = {a.leaf: a.after for b in backwards for s in b.steps for a in s.accumulations}
        for leaf, node in zip(leaves, [n for n in self.order if self.name[n] == ACCUMULATE]):
            grad = node.variable.grad
            leaf.grad = last.get(leaf.label, None if grad is None else _array(grad))
        return nodes, leaves, backwards

    def _node_record(self, node: Any) -> TraceNode:
        facts, label, value = self.facts[node], self.labels[node], self.value.get(node)
        if facts.name == ACCUMULATE:
            return TraceNode(self.ids[node], ACCUMULATE, label,
                             formula=_MinigradAccumulate.formula, shape=facts.out_shape,
                             value=value)
        reading = self.reading[node]
        args = [self._arg_text(reading.consts, i, nxt, nr)
                for i, (nxt, nr) in enumerate(node.next_functions)]
        return TraceNode(
            self.ids[node], facts.name, label,
            source_form(facts.name, args, reading.attrs, facts.out_shape), reading.formula,
            facts.out_shape, value,
            [None if nxt is None else self.ids[nxt] for nxt, _ in node.next_functions],
            args, reading.attrs, self.line.get(node), self._saved(node, args))

    def _arg_text(self, consts: dict, i: int, nxt: Any, nr: int) -> str:
        if nxt is not None:
            return self.labels[nxt] + (f"#{nr}" if nr else "")
        if i not in consts:
            return "c"
        value = consts[i]
        if isinstance(value, self.torch.Tensor):
            if id(value) in self.names:
                return self.names[id(value)]
            value = _array(value)
        return constant_text(value)

    def _saved(self, node: Any, args: list[str]) -> list[tuple[Any, Any]]:
        """The tensors the node saved, named by the input they are, or by torch's name."""
        out = []
        edges = list(node.next_functions)
        for key, v in self.facts[node].saved.items():
            if not isinstance(v, self.torch.Tensor):
                continue
            where: Any = "result" if key == "result" else key
            if v.requires_grad:
                edge = self.torch.autograd.graph.get_gradient_edge(v)
                for i, (nxt, nr) in enumerate(edges):
                    if nxt is edge.node and nr == edge.output_nr and key != "result":
                        where = args[i]
            out.append((where, _array(v)))
        return out

    def _step_record(self, index: int, node: Any, g_out: list, g_in: list, before: Any,
                     after: Any, t0: float, t1: float | None) -> TraceStep:
        facts = self.facts[node]
        seconds = 0.0 if t1 is None else t1 - t0
        if facts.name == ACCUMULATE:
            if after is None and node.variable.grad is not None:
                after = _array(node.variable.grad)
            accs = [] if not g_out or g_out[0] is None else [
                TraceAccumulation(self.labels[node], before, after)]
            return TraceStep(index, self.ids[node], g_out, [], [], accs, [], seconds)
        return TraceStep(index, self.ids[node], g_out, g_in, _summed(facts, g_in), [], [],
                         seconds)


def _summed(facts: NodeFacts, grads: list) -> list[tuple | None]:
    """Dims minigrad's engine sums away for the same op (PyTorch's op sums them itself)."""
    which = BROADCASTING.get(facts.name, ())
    out: list[tuple | None] = [None] * len(grads)
    if facts.out_shape is None:
        return out
    for i, (shape, g) in enumerate(zip(facts.in_shapes, grads)):
        if g is None or shape is None or shape == facts.out_shape:
            continue
        if which is None or i in which:
            out[i] = sum_to_array(np.empty(facts.out_shape, dtype=bool), shape)[1]
    return out


# -- the forward recorder --------------------------------------------------------------------
def _forward_recorder(torch: Any) -> Any:
    """A TorchFunctionMode noting, per node made, the call's args, its result and the line.

    A call that makes several nodes (`F.linear`: t, addmm) gives its line to all of them;
    their values, if torch keeps them, come from the saved tensors.
    """
    from torch.overrides import TorchFunctionMode

    class Forward(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.calls: dict[Any, tuple] = {}
            self.lines: dict[Any, str | None] = {}
            probe = torch.ones(1, requires_grad=True)
            self.first = (probe * 1).grad_fn._sequence_nr()  # nodes made from now on

        def __torch_function__(self, func: Any, types: Any, args: tuple = (),
                               kwargs: dict | None = None) -> Any:
            result = func(*args, **(kwargs or {}))
            line = None
            for out in _tensors([result], torch):
                node = out.grad_fn
                if node is None or node in self.calls:
                    continue
                line = line or _user_line()
                self.calls[node] = (args, kwargs or {}, _array(out), out, line)
                self._made_by(node, line)
            return result

        def _made_by(self, node: Any, line: str | None) -> None:
            stack = [node]
            while stack:
                n = stack.pop()
                if n is None or n in self.lines or hasattr(n, "variable") or \
                        n._sequence_nr() <= self.first:
                    continue
                self.lines[n] = line
                stack.extend(m for m, _ in n.next_functions)

    return Forward()


def _user_line() -> str | None:
    """`file.py:12: y = x * w`: the first frame outside torch and this module."""
    frame = sys._getframe(2)
    torch_dir = os.path.dirname(import_torch().__file__) + os.sep
    while frame is not None and (frame.f_code.co_filename.startswith(torch_dir)
                                 or frame.f_code.co_filename in _OWN_FILES):
        frame = frame.f_back
    if frame is None:
        return None
    filename = frame.f_code.co_filename
    code = linecache.getline(filename, frame.f_lineno).strip()
    return f"{os.path.basename(filename)}:{frame.f_lineno}: {code}"


# -- small pieces --------------------------------------------------------------------------
def _name(node: Any) -> str:
    return ACCUMULATE if hasattr(node, "variable") else node.name().removeprefix(
        "torch::autograd::")


def _metadata(node: Any) -> list[tuple]:
    try:
        return [(tuple(m.shape), m.dtype) for m in node._input_metadata]
    except (AttributeError, RuntimeError):
        return []


def _np_dtype(dtype: Any, torch: Any) -> Any:
    if dtype is None:
        return None
    try:
        return torch.empty((), dtype=dtype).numpy().dtype
    except (TypeError, RuntimeError):
        return np.dtype(np.float32)


def _array(t: Any) -> np.ndarray:
    """A numpy copy of a torch tensor (bfloat16 and such as float32)."""
    t = t.detach().cpu()
    try:
        return t.numpy().copy()
    except TypeError:
        return t.float().numpy().copy()


def _arrays(values: Any) -> list[np.ndarray | None]:
    return [None if v is None else _array(v) for v in values]


def _tensors(values: Any, torch: Any) -> list:
    """The tensors among `values`, looking into tuples (`max(dim)` gives values, indices)."""
    out, stack = [], list(values)
    while stack:
        v = stack.pop(0)
        if isinstance(v, torch.Tensor):
            out.append(v)
        elif isinstance(v, tuple | list):
            stack[:0] = list(v)
    return out


def _as_inputs(inputs: dict[str, Any], torch: Any) -> dict[str, Any]:
    """Keyword inputs as leaf tensors that require grad (as `minigrad.trace` makes them)."""
    tensors = {}
    for name, value in inputs.items():
        if isinstance(value, torch.Tensor):
            tensors[name] = value
            continue
        array = np.asarray(value)
        if array.dtype.kind in "biu" or (array.dtype == np.float64
                                          and not isinstance(value, np.ndarray)):
            array = array.astype(np.float32)
        tensors[name] = torch.from_numpy(array.copy()).requires_grad_(True)
    return tensors


def _caller() -> Any:
    """The frame that called trace_torch (through the module's `__call__` or not)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return frame


def _frame_names(frame: Any, torch: Any) -> dict[int, str]:
    if frame is None:
        return {}
    return {id(v): k for k, v in list(frame.f_locals.items())
            if isinstance(v, torch.Tensor) and not k.startswith("_")}


def _callable_names(fn: Callable, torch: Any) -> dict[int, str]:
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
        if isinstance(value, torch.Tensor):
            names.setdefault(id(value), name)
    scope = getattr(fn, "__globals__", {})
    for name in code.co_names:
        if isinstance(scope.get(name), torch.Tensor):
            names.setdefault(id(scope[name]), name)
    return names


# -- the command line: python -m compare explain-torch EXPR x=... -----------------------------
def explain_main(argv: list[str]) -> int:
    """`python -m compare explain-torch "sum(x*y)*3" x=1,2,3 y=4,5,6`: computed by PyTorch."""
    import argparse

    from minigrad.__main__ import draw_to, parse_input
    from minigrad.expr import ExpressionError

    parser = argparse.ArgumentParser(
        prog="python -m compare explain-torch",
        description="Run an expression in PyTorch, watch its backward pass and explain it "
        "as `python -m minigrad explain` does.",
        epilog='example: python -m compare explain-torch "sum(x*y)*3" x=1,2,3 y=4,5,6')
    parser.add_argument("expression", help='e.g. "sum(x*y)*3" or "(x @ w).relu().mean()"')
    parser.add_argument("inputs", nargs="*", metavar="NAME=VALUES",
                        help="x=1,2,3 (a vector), x=2 (a scalar), w=[[1,2],[3,4]]")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--no-timing", action="store_true",
                        help="leave the time out of the summary (stable output)")
    parser.add_argument("--dot", metavar="PATH", help="also draw the graph to PATH")
    args = parser.parse_args(argv)
    try:
        inputs = dict(parse_input(text) for text in args.inputs)
        t = trace_torch(args.expression, **inputs)
    except (ExpressionError, ValueError, RuntimeError, IndexError, TypeError,
            ModuleNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(t.explanation(lang=args.lang, timing=not args.no_timing))
    if args.dot:
        from pathlib import Path

        return 0 if draw_to(t, Path(args.dot)) else 1
    return 0


class _CallableModule(types.ModuleType):
    """`compare.trace_torch(loss)` works even where the attribute is this module (a plain
    `import compare.trace_torch` binds the module to the package's name)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Trace:
        return trace_torch(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
