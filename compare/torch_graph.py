"""PyTorch's graph behind a loss, read node by node, and its backward watched with hooks.

`TorchGraph(torch, loss, ...)` reads the graph from `loss.grad_fn` before anything is freed:
every node (`next_functions`, `AccumulateGrad.variable`), what each one saved (`_saved_*`:
the values of the tensors that made them, copied), its output's shape and dtype.
`observe()` puts a hook on every node, runs the backward and removes them all. What needs
no live state is left for later: `prepare()` orders the nodes, labels them as minigrad's
recorder does and recomputes the values torch did not keep, and `compare.torch_records`
builds the Trace records from it all. `compare.trace_torch` is the public entry point.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np

from compare.torch_hooks import CHECKPOINT, checkpoint_rule, hook_names
from compare.torch_memory import checkpoint_held
from compare.torch_modules import Members
from compare.torch_nodes import NodeFacts, read, saved_values, signed
from compare.torch_recompute import RESHAPES, recompute
from compare.torch_values import array, arrays, dtype_name, metadata, np_dtype, tensors
from minigrad.teach.labels import UniqueLabels

__all__ = ["ACCUMULATE", "TorchGraph", "copy_gradients"]

ACCUMULATE = "AccumulateGrad"


class _Observer:
    """The hooks' side: each node's gradients as PyTorch runs it, kept as torch tensors until
    the backward ends (copied to numpy then: the hook itself only appends)."""

    def __init__(self) -> None:
        self.steps: list[tuple] = []  # (node, grad_inputs, grad_outputs, time it ended)
        self.grads: dict[Any, np.ndarray] = {}  # leaf node -> its .grad just after its step

    def after(self, node: Any, grad_inputs: tuple, grad_outputs: tuple) -> None:
        self.steps.append((node, grad_inputs, grad_outputs, time.perf_counter()))

    def accumulated(self, node: Any, grad_inputs: tuple, grad_outputs: tuple) -> None:
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
        watch = forward.watch if forward is not None else None
        self.buffers = {}  # id -> name of a module's buffers (`bn1.running_mean`)
        if params is not None and hasattr(params, "named_parameters"):
            members = watch.members if watch is not None else Members(params)
            self.buffers = {id(b): name for name, b in members.buffers.items()}
            params = members.params
        self.params = {id(t): name for name, t in (params or {}).items()}
        self.names = names
        calls = forward.calls if forward is not None else {}
        self.made_by = forward.made_by if forward is not None else None
        self.line: dict[Any, str | None] = {}  # op -> its source line (a traced callable)
        self.module: dict[Any, str] = {}  # op -> the module that made it, in prepare()
        self.owner = {} if watch is None else {  # parameter name -> the module holding it
            name: _ran(path, watch.calls) for name, path in watch.params.items()}
        self.root = torch.autograd.graph.get_gradient_edge(loss).node
        self.name: dict[Any, str] = {}
        self.facts: dict[Any, NodeFacts] = {}  # a leaf's at once, an op's in prepare()
        self.saved: dict[Any, dict[str, Any]] = {}  # op -> what it saved, read before backward
        self.checkpointed: dict[Any, tuple] = {}  # op -> what a checkpoint holds of it
        self.frames_counted: set[int] = set()  # the checkpoints whose inputs were counted
        self.calls: dict[Any, tuple] = {}  # op -> its recorded call (args, kwargs, func)
        self.value: dict[Any, np.ndarray] = {}
        self.out: dict[Any, Any] = {self.root: loss}
        self.copies: dict[tuple, np.ndarray] = {}
        self.saved_copies: dict[int, np.ndarray] = {}  # id of a saved tensor -> its values
        self.edges_of: dict[Any, dict] = {}  # node -> saved key -> gradient edge of the tensor
        self.accumulator: dict[int, Any] = {}  # id of a leaf tensor -> its AccumulateGrad node
        self.final_grads: dict[Any, np.ndarray | None] = {}  # leaf node -> .grad at the end
        found = self._walk()
        for t in bound or ():  # the caller's tensors: their names, and the hooks on them
            if t.grad_fn is not None and t.output_nr == 0 and t.grad_fn in self.name:
                self.out.setdefault(t.grad_fn, t)
        for node in found:  # what each node saved: values of the tensors that made them
            self._keep_saved(node)
        for node, (args, kwargs, value, out, line, func) in calls.items():
            if node in self.name:
                self.value[node], self.out[node], self.line[node] = value, out, line
                self.calls[node] = (args, kwargs, func)
                for a in args:  # a constant tensor argument, as it is now
                    if isinstance(a, torch.Tensor) and not a.requires_grad \
                            and id(a) not in self.saved_copies:
                        self.saved_copies[id(a)] = self._copy(a)
        if self.root not in self.value and self.name[self.root] != ACCUMULATE:
            self.value[self.root] = array(loss)
        self.found = found
        self.hook_names = {n: hook_names(self._hooked(n)) for n in found}
        # a user's hook or autograd.Function sees the gradients and might keep one
        self.user_code = any(self.hook_names.values()) or any(
            hasattr(n, "_forward_cls") for n in found)
        self.order: list = []

    def prepare(self) -> None:
        """Order and label the nodes, read their settings, recompute missing values (once)."""
        if self.order:
            return
        self.order = self._forward_order(self.found)
        if self.made_by is not None:
            for node in self.order:
                line, self.module[node] = self.made_by(node)
                self.line.setdefault(node, line)
        for node in self.order:
            if node not in self.facts:
                self.facts[node] = self._facts(node)
                self.facts[node].call = self.calls.get(node)
        is_tensor = lambda v: isinstance(v, self.torch.Tensor)  # noqa: E731
        self.reading = {n: read(self.facts[n], is_tensor) for n in self.order
                        if self.name[n] != ACCUMULATE}
        self._fill_values()
        self.ids = {node: f"n{i + 1}" for i, node in enumerate(self.order)}
        self.labels = self._labels()

    def _keep_saved(self, node: Any) -> None:
        """Copy the tensors `node` saved (each is the value of the node that made it), and
        note which need a gradient through which edge: the records are written later, maybe
        after an optimizer changed the weights."""
        edges = {}
        for key, v in self.saved.get(node, {}).items():
            if isinstance(v, self.torch.Tensor):
                self._keep(v)
                if v.requires_grad:  # its gradient edge (`get_gradient_edge`, read directly)
                    made_by = v.grad_fn
                    edges[key] = (made_by, v.output_nr) if made_by is not None else (
                        self.accumulator.get(id(v)), 0)
            elif isinstance(v, tuple | list) and v and not isinstance(v[0], int | float):
                for t in tensors(v, self.torch):  # speed: not the sizes (a Transformer: 3%)
                    self._keep(t)
        self.edges_of[node] = edges

    def _keep(self, tensor: Any) -> None:
        if id(tensor) not in self.saved_copies:
            self.saved_copies[id(tensor)] = self._copy(tensor)
        made_by = tensor.grad_fn
        if made_by is not None and tensor.output_nr == 0 and made_by in self.name:
            if made_by not in self.value:
                self.value[made_by] = self.saved_copies[id(tensor)]
            self.out.setdefault(made_by, tensor)

    def snapshot(self, t: Any) -> np.ndarray:
        """The values of a saved or constant tensor as they were when traced."""
        found = self.saved_copies.get(id(t))
        return found if found is not None else self._copy(t)

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
            if self.name[node] == ACCUMULATE:
                v = node.variable
                self.accumulator[id(v)] = node
                self.value[node], self.out[node] = self._copy(v), v
                self.facts[node] = NodeFacts(ACCUMULATE, {}, [], tuple(v.shape),
                                             np_dtype(v.dtype, self.torch))
            else:  # speed: only what the backward frees is read now (a Transformer: 12%)
                self.checkpointed[node] = checkpoint_held(node)  # (first: see torch_memory)
                self.saved[node] = saved_values(node)
        return found


    def _facts(self, node: Any) -> NodeFacts:
        """An op's facts: what it saved, its inputs' and output's shapes and dtypes, its rule."""
        name = self.name[node]
        in_shapes, in_dtypes = [], []
        for nxt, nr in node.next_functions:
            if nxt is not None and self.name[nxt] == ACCUMULATE:
                leaf = self.facts[nxt]
                in_shapes.append(leaf.out_shape)
                in_dtypes.append(leaf.out_dtype)
                continue
            meta = None
            if nxt is not None:
                outputs = metadata(nxt)
                meta = outputs[nr] if nr < len(outputs) else None
            in_shapes.append(None if meta is None else meta[0])
            in_dtypes.append(None if meta is None else np_dtype(meta[1], self.torch))
        outputs = metadata(node)
        out_shape, out_dtype = outputs[0] if outputs else (None, None)
        formula = getattr(getattr(node, "_forward_cls", None), "formula", "")
        if name == CHECKPOINT:
            formula = checkpoint_rule(node, self.params)
        saved = {key: signed(v) for key, v in self.saved[node].items()}  # speed: read late (4%)
        return NodeFacts(name, saved, in_shapes, out_shape,
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
                inputs.append(self.snapshot(value) if isinstance(value, self.torch.Tensor)
                              else value)
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
        # speed: the hooks' torch tensors live on with the graph, freed with it, not at the
        # end of this call (ResNet-18: 2.6x a plain backward -> 2.0x; glibc hands freed large
        # blocks back to the system, and the next backward faults fresh pages in)
        observer = self.observer = _Observer()
        handles = []
        seed = self._seed(gradient)
        leaves = [n for n in self.found if self.name[n] == ACCUMULATE]
        before = {n: array(n.variable.grad) for n in leaves if n.variable.grad is not None}
        try:
            for node in self.found:
                # speed: one hook per node, not a pre-hook and a hook (a Transformer: ~10%)
                handles.append(node.register_hook(functools.partial(
                    observer.accumulated if grads_at_step and self.name[node] == ACCUMULATE
                    else observer.after, node)))
            start = time.perf_counter()
            self.loss.backward(seed, retain_graph=retain_graph)
            seconds = time.perf_counter() - start
        finally:
            for handle in handles:
                handle.remove()
        seed_array = array(seed) if seed is not None else np.ones(
            tuple(self.loss.shape), np_dtype(self.loss.dtype, self.torch))
        later = not grads_at_step and not self.user_code
        exposed = {id(t if t._base is None else t._base)
                   for t in (seed, *(n.variable.grad for n in leaves)) if t is not None}
        keep = (lambda ts: _keep_gradients(ts, exposed)) if later else arrays
        steps, t0 = [], start
        for node, g_in, g_out, t1 in observer.steps:
            leaf = node.variable if self.name[node] == ACCUMULATE else None
            after = observer.grads.get(node)
            if after is None and leaf is not None and leaf.grad is not None:
                after = array(leaf.grad)
            # the torch tensors themselves only by id (all alive now, so no two share one):
            # whether a gradient was passed on as it is
            steps.append([node, keep(g_out), keep(g_in), before.get(node), after, t0, t1,
                          _ids(g_out), _ids(g_in)])
            t0 = t1
        for node in leaves:  # .grad as the backward left it, where no step accumulated it
            grad = node.variable.grad
            self.final_grads[node] = None if grad is None else array(grad)
        return [(steps, seed_array, seconds)]

    def _hooked(self, node: Any) -> Any:
        """The tensor whose gradient `node` receives, where it is known (hooks live on it)."""
        return node.variable if self.name[node] == ACCUMULATE else self.out.get(node)

    def _seed(self, gradient: Any) -> Any:
        if gradient is None or isinstance(gradient, self.torch.Tensor):
            return gradient
        return self.torch.as_tensor(np.asarray(gradient), dtype=self.loss.dtype)


def _keep_gradients(tensors: tuple, exposed: set[int]) -> list:
    """The gradients of one step, each copied now, or (tensor, version) to copy when the
    Trace is first read (`copy_gradients`).

    Only a gradient no user code can reach is left for later: not the seed, not a leaf's
    .grad nor anything sharing its memory (`exposed`: the ids of their bases); `observe` keeps
    none for later when a user's hook or autograd.Function took part. Such a tensor is held by
    the observer alone; its version says plainly if it was changed all the same.
    speed: a Transformer trace 7% faster (250 copies left out of the call).
    """
    out: list = []
    for t in tensors:
        if t is None:
            out.append(None)
            continue
        base = t._base
        out.append(array(t) if id(t if base is None else base) in exposed else (t, t._version))
    return out


def copy_gradients(passes: list) -> None:
    """The gradients `_keep_gradients` left for later, copied now, in the passes' steps."""
    for steps, _, _ in passes:
        for raw in steps:
            for k in (1, 2):
                raw[k] = [_copy_later(g) if isinstance(g, tuple) else g for g in raw[k]]


def _copy_later(kept: tuple) -> np.ndarray:
    tensor, version = kept
    if tensor._version != version:
        raise RuntimeError(
            "trace_torch: a gradient of the traced backward was changed in place before the "
            "trace was first read; read it (t.steps) before changing the gradients")
    return array(tensor)


# -- small pieces --------------------------------------------------------------------------
def _ran(path: str, ran: dict[str, int]) -> str:
    """`path`, or its nearest ancestor whose forward ran (MultiheadAttention uses its
    out_proj's weight without calling out_proj), or ""."""
    while path and path not in ran:
        path = path.rpartition(".")[0]
    return path if path in ran else ""


def _ids(tensors: tuple) -> list[int | None]:
    return [None if t is None else id(t) for t in tensors]


def _name(node: Any) -> str:
    return ACCUMULATE if hasattr(node, "variable") else node.name().removeprefix(
        "torch::autograd::")
