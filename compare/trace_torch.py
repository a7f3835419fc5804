"""`compare.trace_torch`: PyTorch's own backward, watched node by node, as a minigrad Trace.

    loss = F.cross_entropy(model(x), y)
    t = compare.trace_torch(loss, params=dict(model.named_parameters()))
    t.explain()                # or "zh"; t.to_dot(), t.render("graph.svg"), t.to_html()

Before the backward runs, the graph is read from `loss.grad_fn` (`next_functions`,
`AccumulateGrad.variable`, the `_saved_*` values each node keeps); then a hook on every node
sees each step as PyTorch runs it (its incoming and outgoing gradients, in PyTorch's order),
`loss.backward()` runs, and every hook is removed again. The records are written when the
Trace is first read (`compare.torch_records`); during the call only what could change later
is taken (the values, copied; the gradients; each .grad). Nothing changes the gradients:
`.grad` ends as after a plain `loss.backward()`. A user's hook that changed a gradient is told
with the gradient before and after it (`torch_hooks`); a reentrant checkpoint says in its rule
what it hides; a DistributedDataParallel model's bucket all-reduces are told between the steps
(`trace_ddp`).

A graph only keeps the values its backward needs. The forward values it did not keep are
recomputed (numpy) from their inputs' values for the ops minigrad knows, and left out for
the others (a convolution's output). Pass the forward itself to see every value as torch
computed it: a callable (`trace_torch(lambda: F.cross_entropy(model(x), y), params=model)`)
or a string over named inputs (`trace_torch("sum(x*y)*3", x=[1, 2, 3], y=[4, 5, 6])`) runs
under a recorder of torch calls (a TorchFunctionMode) first, which also keeps the constants
as written (`x * 3`, not `x * tensor(3.)`) and each op's source line. With `params` an
nn.Module, forward hooks on its submodules (`torch_modules`) also note which module made each
node (`TraceNode.module`, `Trace.modules`); the tensor form, run after the forward, cannot.

Labels follow `minigrad.trace`: parameter names, input names, the caller's variable names,
`out`, then t1, t2, ... in forward order. Ops minigrad knows are explained with minigrad's
rule; layers read as their calls with their settings (`conv2d(x, conv1.weight, stride=2)`,
`torch_nodes_layers`); ops minigrad has no rule for are explained by name, shapes and gradient
statistics, with a rule line saying the rule is PyTorch's own.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import os
import sys
import types
import weakref
from typing import Any

import numpy as np

from compare.torch_bridge import import_torch
from compare.torch_graph import ACCUMULATE, TorchGraph
from compare.torch_modules import ModuleWatch
from compare.torch_records import LazyTrace, build_records
from compare.torch_values import array, tensors
from compare.trace_ddp import DistributedTrace, is_ddp, watch_buckets
from minigrad.teach.labels import callable_names, frame_names, source_line
from minigrad.teach.trace import Trace

__all__ = ["explain_main", "trace_torch"]

ENGINE = "PyTorch"
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_OWN_FILES = tuple(_HERE + f for f in ("trace_torch.py", "torch_graph.py", "torch_nodes.py",
                                       "torch_modules.py", "torch_values.py", "source.py",
                                       "torch_bridge.py"))


def trace_torch(loss: Any, params: Any = None, gradient: Any = None, retain_graph: bool = False,
                **inputs: Any) -> Trace:
    """Run PyTorch's backward of `loss` while watching each step; return it as a Trace.

    `loss` is a torch tensor (its graph is read, then `loss.backward(gradient, retain_graph)`
    runs), or a callable / a string expression over `inputs`, run here first so that every
    intermediate value is seen. `params` (a dict name -> tensor, or a module) names the
    parameters. `gradient` is the seed for a non-scalar loss (a tensor or array-like).
    """
    # speed: no garbage collection during the call, which makes many small objects and no
    # cycles of its own (a Transformer trace: callable 4%, tensor form 6%); it runs again as
    # soon as the call ends
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _trace(loss, params, gradient, retain_graph, inputs)
    finally:
        if collecting:
            gc.enable()


def _trace(loss: Any, params: Any, gradient: Any, retain_graph: bool, inputs: dict) -> Trace:
    torch = import_torch()
    caller = _caller()
    names = frame_names(caller, torch.Tensor)
    bound = [v for v in (caller.f_locals.values() if caller is not None else ())
             if isinstance(v, torch.Tensor)]
    forward = None
    if not isinstance(loss, torch.Tensor):
        if not (isinstance(loss, str) or callable(loss)):
            raise TypeError(f"trace_torch() takes a torch tensor, a callable or a string "
                            f"expression, not {type(loss).__name__}")
        leaves = _as_inputs(inputs, torch)
        if isinstance(loss, str):
            from compare.source import from_source

            fn = from_source(loss, None, list(leaves))[1]
        else:
            fn = loss
            names.update(callable_names(loss, torch.Tensor))
        names.update((id(t), k) for k, t in leaves.items())
        watch = ModuleWatch(params) if isinstance(params, torch.nn.Module) else None
        # (a string expression's ops all run inside its evaluator: no source lines)
        forward = _forward_recorder(torch, watch, lines=not isinstance(loss, str))
        with watch or contextlib.nullcontext(), forward:
            loss = fn(**leaves)
        if not isinstance(loss, torch.Tensor):
            raise TypeError(f"trace_torch(): the expression gave a {type(loss).__name__}, "
                            "not a tensor")
    elif inputs:
        raise TypeError("trace_torch(tensor) takes no inputs; give a callable or a string "
                        "expression to run with inputs")
    if not loss.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    graph = TorchGraph(torch, loss, forward, params, names, bound)
    modules = forward.watch.records() if forward and forward.watch else ()
    if not is_ddp(params):
        passes = graph.observe(gradient, retain_graph)
        made: Trace = LazyTrace(lambda: (*build_records(graph, passes), _live(graph)), ENGINE,
                                modules)
    else:
        with watch_buckets(params, {id(p): n for n, p in params.named_parameters()}) as buckets:
            passes = graph.observe(gradient, retain_graph, grads_at_step=True)
        made = DistributedTrace.from_records(*build_records(graph, passes), engine=ENGINE,
                                             modules=modules)
        _distributed(made, graph, buckets, torch)
        made.live_leaves = _live(graph)
    made.output = loss
    return made


def _live(graph: TorchGraph) -> dict[str, Any]:
    """Leaf node id -> a weak reference to the leaf tensor."""
    return {graph.ids[n]: weakref.ref(n.variable) for n in graph.order
            if graph.name[n] == ACCUMULATE}


def _distributed(made: Any, graph: TorchGraph, buckets: list | None, torch: Any) -> None:
    """A DDP trace: its buckets' all-reduces, each after the step that made its last gradient
    ready; each leaf's .grad as backward left it (averaged over the processes)."""
    dist = torch.distributed
    made.allreduces, made.world_size = buckets, dist.get_world_size()
    made.rank, made.backend = dist.get_rank(), str(dist.get_backend())
    step_of = {s.accumulations[0].leaf: s.index for s in made.steps if s.accumulations}
    for entry in buckets or ():
        entry.after_step = max((step_of[p] for p in entry.params if p in step_of), default=0)
    for leaf, node in zip(made.leaves, [n for n in graph.order if graph.name[n] == ACCUMULATE]):
        grad = node.variable.grad
        leaf.grad = None if grad is None else array(grad)


# -- the forward recorder --------------------------------------------------------------------
def _forward_recorder(torch: Any, watch: ModuleWatch | None = None, lines: bool = True
                      ) -> Any:
    """A TorchFunctionMode noting, per node made, the call's args, its result and the line,
    and (given a `ModuleWatch`) the module whose forward was running.

    A call that makes several nodes (`F.linear`: t, addmm) gives its line to all of them;
    their values, if torch keeps them, come from the saved tensors.
    """
    from torch.overrides import TorchFunctionMode

    next_nr = torch.autograd._get_sequence_nr  # the sequence number the next node gets

    class Forward(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.calls: dict[Any, tuple] = {}
            self.first = next_nr()  # the nodes made from now on
            self.ends: list[int] = []  # per call that made nodes: the next number after
            self.made: list[tuple[str | None, str]] = []  # per such call: (line, module)
            self.watch = watch
            self.source: dict[tuple, str | None] = {}  # (code, line number) -> source_line

        def __torch_function__(self, func: Any, types: Any, args: tuple = (),
                               kwargs: dict | None = None) -> Any:
            result = func(*args, **(kwargs or {}))
            end = next_nr()
            if end == (self.ends[-1] if self.ends else self.first):
                return result  # made no node: `x.dim()`, `x.shape`
            line = self._user_line() if lines else None
            self.ends.append(end)
            self.made.append((line, (self.watch.current() or "")
                              if self.watch is not None else ""))
            outs = (result,) if isinstance(result, torch.Tensor) else tensors(
                [result], torch) if isinstance(result, tuple | list) else ()
            for out in outs:
                node = out.grad_fn
                if node is not None and node not in self.calls:
                    self.calls[node] = (args, kwargs or {}, array(out), out, line, func)
            return result

        def made_by(self, node: Any) -> tuple[str | None, str]:
            """The (line, module path) of the call that made `node`, read when the trace is
            first read: sequence numbers count the nodes as they are made, and every torch
            call of the forward passes here, so the call is the first that ended after it
            (`y[0] = v` makes a node and gives no tensor); (None, "") for a node made
            before the forward, or a leaf's."""
            made = node._sequence_nr()
            at = bisect.bisect_right(self.ends, made)
            if made < self.first or at == len(self.ends):  # a leaf's: the largest number
                return None, ""
            return self.made[at]

        def _user_line(self) -> str | None:
            """`file.py:12: y = x * w`: the first frame outside torch and this module.
            speed: each file judged once, each line read once (a Transformer trace: 5%)"""
            frame = sys._getframe(2)
            while frame is not None and _skipped(frame.f_code.co_filename):
                frame = frame.f_back
            if frame is None:
                return None
            key = (frame.f_code, frame.f_lineno)
            if key not in self.source:
                self.source[key] = source_line(frame)
            return self.source[key]

    return Forward()


_SKIPPED: dict[str, bool] = {}  # file name -> it is torch's or this module's


def _skipped(filename: str) -> bool:
    found = _SKIPPED.get(filename)
    if found is None:
        torch_dir = os.path.dirname(import_torch().__file__) + os.sep
        found = _SKIPPED[filename] = filename.startswith(torch_dir) or filename in _OWN_FILES
    return found


def _as_inputs(inputs: dict[str, Any], torch: Any) -> dict[str, Any]:
    """Keyword inputs as leaf tensors that require grad (as `minigrad.trace` makes them)."""
    leaves = {}
    for name, value in inputs.items():
        if isinstance(value, torch.Tensor):
            leaves[name] = value
            continue
        data = np.asarray(value)
        if data.dtype.kind in "biu" or (data.dtype == np.float64
                                        and not isinstance(value, np.ndarray)):
            data = data.astype(np.float32)
        leaves[name] = torch.from_numpy(data.copy()).requires_grad_(True)
    return leaves


def _caller() -> Any:
    """The frame that called trace_torch (through the module's `__call__` or not)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return frame


# -- the command line: python -m compare explain-torch EXPR x=... -----------------------------
def explain_main(argv: list[str]) -> int:
    """`python -m compare explain-torch "sum(x*y)*3" x=1,2,3 y=4,5,6`: computed by PyTorch."""
    import argparse

    from minigrad.__main__ import EXPLAIN_ERRORS, add_program_options, explain_expression

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
    add_program_options(parser)
    args = parser.parse_args(argv)
    return explain_expression(trace_torch, args, (*EXPLAIN_ERRORS, ModuleNotFoundError))


class _CallableModule(types.ModuleType):
    """`compare.trace_torch(loss)` works even where the attribute is this module (a plain
    `import compare.trace_torch` binds the module to the package's name)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Trace:
        return trace_torch(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
