"""PyTorch's graph behind a loss, read node by node, and its backward watched with hooks.

`TorchGraph(torch, loss, ...)` reads the graph from `loss.grad_fn` before anything is freed:
every node (`next_functions`, `AccumulateGrad.variable`), what each one saved (`_saved_*`:
the values of the tensors that made them), its output's shape and dtype; it orders the nodes
and labels them as minigrad's recorder does. `observe()` puts a hook on every
node, runs the backward and removes them all; `records()` returns the Trace records
(`minigrad.teach.records`). `compare.trace_torch` is the public entry point.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from compare.torch_hooks import CHECKPOINT, checkpoint_rule, narrate_hooks
from compare.torch_nodes import NodeFacts, read, saved_values, summed_dims
from compare.torch_nodes_layers import layer_source
from compare.torch_recompute import RESHAPES, recompute
from compare.torch_values import array, arrays, dtype_name, metadata, np_dtype, tensors
from minigrad.node import AccumulateGrad as _MinigradAccumulate
from minigrad.teach.labels import UniqueLabels, constant_text
from minigrad.teach.op_words import source_form
from minigrad.teach.records import (
    TraceAccumulation,
    TraceBackward,
    TraceLeaf,
    TraceNode,
    TraceStep,
)

__all__ = ["ACCUMULATE", "TorchGraph"]

ACCUMULATE = "AccumulateGrad"


class _Observer:
    """The hooks' side: each node's gradients as PyTorch runs it, kept as torch tensors until
    the backward ends (copied to numpy then: the hook itself only appends)."""

    def __init__(self) -> None:
        self.steps: list[tuple] = []  # (node, grad_inputs, grad_outputs, time it ended)
        self.grads: dict[Any, np.ndarray] = {}  # leaf node -> its .grad just after its step

    def after(self, node: Any, grad_inputs: tuple, grad_outputs: tuple) -> None:
        self.steps.append((node, grad_inputs, grad_outputs, time.perf_counter()))

    def accumulated(self, node: Any, grad_outputs: tuple) -> None:
        """For a leaf whose .grad may change later in the backward (DDP averages it)."""
        self.steps.append((node, (), grad_outputs, time.perf_counter()))
        grad = node.variable.grad
        if grad is not None:
            self.grads[node] = array(grad)


class TorchGraph:
    """PyTorch's graph behind `loss`, read before its backward frees what it saved."""

    def __init__(self, torch: Any, loss: Any, forward: Any, params: Any,
                 names: dict[int, str], bound: list | None = None) -> None:
        self.torch, self.loss = torch, loss
        self.buffers = {}  # id -> name of a module's buffers (`bn1.running_mean`)
        if params is not None and hasattr(params, "named_parameters"):
            self.buffers = {id(b): name for name, b in params.named_buffers()}
            params = dict(params.named_parameters())
        self.params = {id(t): name for name, t in (params or {}).items()}
        self.names = names
        calls = forward.calls if forward is not None else {}
        self.line: dict[Any, str | None] = dict(forward.lines) if forward is not None else {}
        self.module: dict[Any, str] = dict(forward.modules) if forward is not None else {}
        watch = forward.watch if forward is not None else None
        self.owner = {} if watch is None else {  # parameter name -> the module holding it
            name: _ran(path, watch.calls) for name, path in watch.params.items()}
        self.root = torch.autograd.graph.get_gradient_edge(loss).node
        self.name: dict[Any, str] = {}
        self.facts: dict[Any, NodeFacts] = {}
        self.value: dict[Any, np.ndarray] = {}
        self.out: dict[Any, Any] = {self.root: loss}
        self.copies: dict[tuple, np.ndarray] = {}
        found = self._walk()
        for t in bound or ():  # the caller's tensors: their names, and the hooks on them
            if t.grad_fn is not None and t.output_nr == 0 and t.grad_fn in self.name:
                self.out.setdefault(t.grad_fn, t)
        for node in found:  # what each node saved: values of the tensors that made them
            for tensor in tensors(self.facts[node].saved.values(), torch):
                made_by = tensor.grad_fn
                if made_by is not None and tensor.output_nr == 0 and made_by in self.name:
                    if made_by not in self.value:
                        self.value[made_by] = self._copy(tensor)
                    self.out.setdefault(made_by, tensor)
        for node, (args, kwargs, value, out, line, func) in calls.items():
            if node in self.name:
                self.value[node], self.out[node], self.line[node] = value, out, line
                self.facts[node].call = (args, kwargs, func)
        if self.root not in self.value and self.name[self.root] != ACCUMULATE:
            self.value[self.root] = array(loss)
        self.order = self._forward_order(found)
        is_tensor = lambda v: isinstance(v, torch.Tensor)  # noqa: E731
        self.reading = {n: read(self.facts[n], is_tensor) for n in self.order
                        if self.name[n] != ACCUMULATE}
        self._fill_values()
        self.ids = {node: f"n{i + 1}" for i, node in enumerate(self.order)}
        self.labels = self._labels()

    def _copy(self, t: Any) -> np.ndarray:
        """The values of a forward tensor, copied once though several nodes save it (a weight
        is a leaf's value and a saved input). speed: a ResNet-18 trace 9% faster."""
        key = (t.data_ptr(), t.dtype, tuple(t.shape), t.stride(), t._version)
        found = self.copies.get(key)
        if found is None:
            found = self.copies[key] = array(t)
        return found

    def _walk(self) -> list:
        """Every node behind the root (iteratively), with what is known of it."""
        found, stack = [], [self.root]
        self.name[self.root] = _name(self.root)
        while stack:
            node = stack.pop()
            found.append(node)
            for nxt, _ in node.next_functions:
                if nxt is not None and nxt not in self.name:
                    self.name[nxt] = _name(nxt)
                    stack.append(nxt)
            self.facts[node] = self._facts(node)
        return found


    def _facts(self, node: Any) -> NodeFacts:
        name = self.name[node]
        if name == ACCUMULATE:
            v = node.variable
            self.value[node], self.out[node] = self._copy(v), v
            return NodeFacts(name, {}, [], tuple(v.shape), np_dtype(v.dtype, self.torch))
        in_shapes, in_dtypes = [], []
        for nxt, nr in node.next_functions:
            meta = None
            if nxt is not None and self.name[nxt] == ACCUMULATE:
                meta = tuple(nxt.variable.shape), nxt.variable.dtype
            elif nxt is not None:
                outputs = metadata(nxt)
                meta = outputs[nr] if nr < len(outputs) else None
            in_shapes.append(None if meta is None else meta[0])
            in_dtypes.append(None if meta is None else np_dtype(meta[1], self.torch))
        outputs = metadata(node)
        out_shape, out_dtype = outputs[0] if outputs else (None, None)
        formula = getattr(getattr(node, "_forward_cls", None), "formula", "")
        if name == CHECKPOINT:
            formula = checkpoint_rule(node, self.params)
        return NodeFacts(name, saved_values(node), in_shapes, out_shape,
                         np_dtype(out_dtype, self.torch), in_dtypes,
                         dtype_name=None if out_dtype is None else dtype_name(out_dtype),
                         formula=formula if isinstance(formula, str) else "")

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
                inputs.append(array(value) if isinstance(value, self.torch.Tensor) else value)
            else:
                inputs.append(self.value.get(nxt) if nr == 0 else None)
        value = recompute(facts.name, inputs, reading.attrs, facts.out_shape, facts.out_dtype,
                          facts.dtype_name == "bfloat16")
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
        labels, unique = {}, UniqueLabels()
        for node in self.order:
            t = self.out.get(node)
            name = None if t is None else self.params.get(id(t)) or self.names.get(id(t))
            if name is None and node is self.root and self.name[node] != ACCUMULATE:
                name = "out"
            labels[node] = unique(name)
        return labels

    # -- the backward pass ---------------------------------------------------------------
    def observe(self, gradient: Any, retain_graph: bool, grads_at_step: bool = False) -> list:
        """Hook every node, run the backward, unhook; return [(steps, seed, seconds)].

        One hook per node, after it ran: PyTorch hands it both the gradients the node received
        (after any tensor hooks) and those it sent. A step's time is the time since the step
        before it ended (PyTorch's CPU engine runs one node at a time).
        """
        observer = _Observer()
        handles = []
        seed = self._seed(gradient)
        leaves = [n for n in self.order if self.name[n] == ACCUMULATE]
        before = {n: array(n.variable.grad) for n in leaves if n.variable.grad is not None}
        try:
            for node in self.order:
                # speed: one hook per node, not a pre-hook and a hook (a Transformer: ~10%)
                if grads_at_step and self.name[node] == ACCUMULATE:
                    handles.append(node.register_hook(
                        lambda g_in, g_out, node=node: observer.accumulated(node, g_out)))
                    continue
                handles.append(node.register_hook(
                    lambda g_in, g_out, node=node: observer.after(node, g_in, g_out)))
            start = time.perf_counter()
            self.loss.backward(seed, retain_graph=retain_graph)
            seconds = time.perf_counter() - start
        finally:
            for handle in handles:
                handle.remove()
        seed_array = array(seed) if seed is not None else np.ones(
            tuple(self.loss.shape), np_dtype(self.loss.dtype, self.torch))
        steps, t0 = [], start
        for node, g_in, g_out, t1 in observer.steps:
            leaf = node.variable if self.name[node] == ACCUMULATE else None
            after = observer.grads.get(node)
            if after is None and leaf is not None and leaf.grad is not None:
                after = array(leaf.grad)
            steps.append([node, arrays(g_out), arrays(g_in), before.get(node), after, t0, t1,
                          g_out, g_in])
            t0 = t1
        return [(steps, seed_array, seconds)]

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
            records = [self._step_record(i + 1, *raw[:7]) for i, raw in enumerate(steps)]
            hooks = narrate_hooks([(raw[0], raw[1], raw[2], raw[7], raw[8]) for raw in steps],
                                  self.root, seed, self._hooked)
            for record, found in zip(records, hooks):
                record.hooks = found
            backwards.append(TraceBackward([self.ids[self.root]], [seed], records, seconds))
        last = {a.leaf: a.after for b in backwards for s in b.steps for a in s.accumulations}
        for leaf, node in zip(leaves, [n for n in self.order if self.name[n] == ACCUMULATE]):
            grad = node.variable.grad
            leaf.grad = last.get(leaf.label, None if grad is None else array(grad))
        return nodes, leaves, backwards

    def _hooked(self, node: Any) -> Any:
        """The tensor whose gradient `node` receives, where it is known (hooks live on it)."""
        return node.variable if self.name[node] == ACCUMULATE else self.out.get(node)

    def _node_record(self, node: Any) -> TraceNode:
        facts, label, value = self.facts[node], self.labels[node], self.value.get(node)
        if facts.name == ACCUMULATE:
            return TraceNode(self.ids[node], ACCUMULATE, label,
                             formula=_MinigradAccumulate.formula, shape=facts.out_shape,
                             value=value, module=self.owner.get(label, ""))
        reading = self.reading[node]
        args = [self._arg_text(reading.consts, i, nxt, nr)
                for i, (nxt, nr) in enumerate(node.next_functions)]
        source = layer_source(facts.name, args, reading.attrs, self._layer_inputs(node, args)) \
            or source_form(facts.name, args, reading.attrs, facts.out_shape)
        return TraceNode(
            self.ids[node], facts.name, label, source, reading.formula,
            facts.out_shape, value,
            [None if nxt is None else self.ids[nxt] for nxt, _ in node.next_functions],
            args, reading.attrs, self.line.get(node), self._saved(node, args),
            self.module.get(node, ""))

    def _layer_inputs(self, node: Any, args: list[str]) -> dict[str, Any]:
        """A norm's running statistics by name, and whether it was given a weight and bias."""
        facts = self.facts[node]
        out: dict[str, Any] = {}
        for key in ("running_mean", "running_var"):
            v = facts.saved.get(key)
            if isinstance(v, self.torch.Tensor) and v.numel():
                out[key] = self.buffers.get(id(v)) or self.names.get(id(v)) or \
                    constant_text(array(v))
        if "weight" in facts.saved:
            out["has_weight"] = facts.saved["weight"] is not None
            out["has_bias"] = len(args) < 3 or args[2] != "c" or facts.call is None
        return out

    def _arg_text(self, consts: dict, i: int, nxt: Any, nr: int) -> str:
        if nxt is not None:
            return self.labels[nxt] + (f"#{nr}" if nr else "")
        if i not in consts:
            return "c"
        value = consts[i]
        if isinstance(value, self.torch.Tensor):
            if id(value) in self.names:
                return self.names[id(value)]
            value = array(value)
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
            out.append((where, self._copy(v)))
        return out

    def _step_record(self, index: int, node: Any, g_out: list, g_in: list, before: Any,
                     after: Any, t0: float, t1: float | None) -> TraceStep:
        facts = self.facts[node]
        seconds = 0.0 if t1 is None else t1 - t0
        if facts.name == ACCUMULATE:
            if after is None and node.variable.grad is not None:
                after = array(node.variable.grad)
            accs = [] if not g_out or g_out[0] is None else [
                TraceAccumulation(self.labels[node], before, after)]
            return TraceStep(index, self.ids[node], g_out, [], [], accs, [], seconds)
        return TraceStep(index, self.ids[node], g_out, g_in, summed_dims(facts, g_in), [], [],
                         seconds)


# -- small pieces --------------------------------------------------------------------------
def _ran(path: str, ran: dict[str, int]) -> str:
    """`path`, or its nearest ancestor whose forward ran (MultiheadAttention uses its
    out_proj's weight without calling out_proj), or ""."""
    while path and path not in ran:
        path = path.rpartition(".")[0]
    return path if path in ran else ""


def _name(node: Any) -> str:
    return ACCUMULATE if hasattr(node, "variable") else node.name().removeprefix(
        "torch::autograd::")
