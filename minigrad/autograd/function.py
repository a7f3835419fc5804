"""Function: how an operation becomes a step of the backward graph.

`Function` is the one way to define a differentiable op, built-in or user-written (as in
PyTorch). `Function.apply` is the one place that decides whether an op is recorded: it runs
`forward` and, when gradients are wanted, records a `Node` (see node.py), the object a
tensor's `.grad_fn` points at and the `ctx` that `forward` and `backward` receive.

Each Function subclass gets its own Node subclass, named the way PyTorch names it
(`MulBackward0`, or `CubeBackward` for a user's `class Cube(Function)`).
"""

from __future__ import annotations

import itertools
import traceback
import weakref
from typing import Any

import numpy as np
from numpy import ndarray  # (np.ndarray is a slow lookup: numpy's module has __getattr__)

from minigrad.autograd import events
from minigrad.autograd import (
    tensor as _tensor,  # Tensor is used at call time (tensor.py imports us)
)
from minigrad.autograd.grad_mode import GRAD_ENABLED, state
from minigrad.autograd.node import Node

_sequence = itertools.count()
# The modules of minigrad's own ops: their forward is numpy alone (see `_scratch`).
BUILT_IN = ("minigrad.ops.", "minigrad.autograd.broadcast")

class Function:
    """Base class of differentiable operations: subclass it with static forward/backward.

    `forward(ctx, *args)` gets the arguments given to `apply` (tensors, numbers, ...) and
    returns a Tensor or a numpy array (or a tuple of them). `backward(ctx, *grads)` gets one
    gradient Tensor per output and returns one gradient (or None) per argument of forward,
    computed with Tensor operations, so that `create_graph=True` can record it.
    """

    node_name: str = ""
    formula: str = ""
    # (the built-in ops also say how they read, `source`, and what each input receives,
    # `gradients`: the narration's words, read by minigrad.teach.op_words)
    _scratch: Node | None = None
    saves_output = False  # built-in ops whose backward reads their own result set this
    is_view = False  # outputs share memory (and so the version counter) with input 0
    # (no op is both: a view's saved output would need the shared counter, see apply)
    # `backward_arrays(ctx, *grad_arrays) -> arrays`, where an op has one: the same gradients
    # as `backward` in numpy alone, which the engine calls when nothing is recorded.
    backward_arrays: Any = None
    _node_class: type = Node

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.is_view and cls.saves_output:
            raise TypeError(f"{cls.__name__}: a view op cannot also save its output")
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        formula = getattr(cls, "formula", "")
        cls._node_class = type(name, (Node,), {"_function": cls, "formula": formula,
                                               "__module__": cls.__module__,
                                               "__doc__": cls.__doc__})
        # Built-in ops compute forward with numpy alone; when nothing is recorded (inside
        # backward, under no_grad) they may all share one scratch ctx instead of a new Node.
        cls._scratch = None
        if cls.__module__.startswith(BUILT_IN):
            cls._scratch = cls._node_class()
            cls._scratch._recording = False

    @staticmethod
    def forward(ctx: Node, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("Function subclasses must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx: Node, *grad_outputs: Any) -> Any:
        raise NotImplementedError("Function subclasses must implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward; when an input requires grad (and grad mode is on) record a Node.

        Keyword arguments are settings (a dim, a shape), not inputs: they get no edge in
        `next_functions`, as in PyTorch, where `x.sum(0)` has one edge and `x * 3` two.
        """
        ctx = _record(cls, args) if GRAD_ENABLED.get() else None
        record = ctx is not None
        scratch = cls._scratch
        if scratch is not None:  # a built-in op: forward is numpy alone, nothing to record
            if kwargs:
                out = cls.forward(ctx if record else scratch, *args, **kwargs)
            else:  # (no settings: calling without ** saves copying an empty dict)
                out = cls.forward(ctx if record else scratch, *args)
            if type(out) is ndarray and out.dtype.kind == "f":
                # the common case, one float array out: the new tensor points at the node
                if cls.is_view:  # it shares input 0's memory, and so its version counter
                    result = _tensor.make(out, ctx, 0, args[0]._vc or args[0]._shared_version())
                    _view_of(args[0], result, GRAD_ENABLED.get())
                else:
                    result = _tensor.make(out, ctx, 0)
                if record:
                    ctx._shape = out.shape
                    if kwargs:
                        ctx._settings = kwargs
                    if cls.saves_output:  # its backward reads the output: keep it. (Its
                        # version counter is made when first needed, and then shared with
                        # this node: see Tensor._shared_version.)
                        ctx._saved_output = out
                    if events.listening():
                        events.emit(events.ForwardOp(ctx, args, result, kwargs))
                return result
        else:  # a user's Function computes forward with ops, which must not be recorded
            if not record:
                ctx = cls._node_class()
                ctx._recording = False
            prev, state.grad_enabled = state.grad_enabled, False
            try:
                out = cls.forward(ctx, *args, **kwargs)
            finally:
                state.grad_enabled = prev
        if type(out) is ndarray:  # the common case: one array out
            result = _tensor.make(out, ctx if record and out.dtype.kind == "f" else None, 0)
            results: tuple = (result,)
        else:
            outs = out if isinstance(out, tuple) else (out,)
            results = tuple(_wrap_output(o, ctx, i, record)
                            if isinstance(o, np.ndarray | np.generic | _tensor.Tensor) else o
                            for i, o in enumerate(outs))
            result = results if isinstance(out, tuple) else results[0]
            if record and len(results) > 1:
                ctx._num_outputs = len(results)
                ctx._output_meta = tuple((o.array.shape, o.array.dtype)
                                         if isinstance(o, _tensor.Tensor)
                                         else ((), np.dtype(bool)) for o in results)
        if cls.is_view:
            for r in results:
                r._vc = args[0]._shared_version()
                _view_of(args[0], r, GRAD_ENABLED.get())
        if record:
            first = results[0]
            ctx._shape = first.array.shape if isinstance(first, _tensor.Tensor) else ()
            _after_record(cls, ctx, args, kwargs, result, results)
        return result


def _view_of(source: Any, view: Any, grad_mode: bool) -> None:
    """`view` shares the memory of `source`'s base (`source` itself, unless a view too, as in
    PyTorch `_base` is never a view); a view made in grad mode is noted on the base, so that
    it can follow when an in-place op rebases the base (ops/view_rebase.py), even when
    nothing required grad when it was made."""
    base = source if source._base is None else source._base
    view._base = base
    if source._inference:  # (a view of an inference tensor is one too)
        view._inference = True
    if grad_mode and type(view.array) is ndarray:
        views = base.__dict__.get("_views")
        if views is None:
            views = base._views = weakref.WeakSet()
        views.add(view)


def _after_record(cls: type, ctx: Node, args: tuple, kwargs: dict, result: Any,
                  results: tuple) -> None:
    """Keep the settings, and the output for ops whose backward reads it; tell listeners."""
    if kwargs:
        ctx._settings = kwargs
    if cls.saves_output:
        first = results[0]
        ctx._saved_output = first.array
        ctx._output_vc = vc = first._shared_version()
        ctx._output_version = vc[0]
    if events.listening():
        events.emit(events.ForwardOp(ctx, args, result, kwargs))


def _wrap_output(out: Any, ctx: Node, index: int, record: bool) -> Any:
    """Make a forward result a fresh Tensor that points at `ctx` when recording."""
    Tensor = _tensor.Tensor
    data = out.array if isinstance(out, Tensor) else out
    if not isinstance(data, np.ndarray):
        data = np.asarray(data)  # numpy reductions return scalars, not 0-d arrays
    if record and data.dtype.kind == "f" and id(out) not in getattr(ctx, "_non_differentiable",
                                                                   ()):
        return Tensor._make(data, ctx, index)
    return Tensor._make(data, None, 0)


def _record(cls: type, args: tuple) -> Node | None:
    """A new Node for `cls`, linked to the inputs that require grad; None when none does.

    For each input it notes the node its gradient goes to (the AccumulateGrad of a leaf,
    None for an input that needs no gradient) and which output of that node it was. The
    shape a gradient must have is kept by the node that receives it (`_shape`), as in PyTorch.
    """
    Tensor = _tensor.Tensor
    nodes, nrs = [], []  # nrs: which output of its node each input is; -1: needs no gradient
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            # (a leaf's AccumulateGrad, read directly once made: a layer's weights every step)
            nodes.append(a.grad_fn or a._grad_acc or a._accumulator())
            nrs.append(a._output_nr)
        else:
            nodes.append(None)
            nrs.append(-1)
    key = tuple(nrs)
    next_nrs, needs = _edge_flags.get(key) or _new_edge_flags(key)
    if needs is None:
        return None
    ctx = cls._node_class()
    ctx._sequence_nr = next(_sequence)
    ctx._next_nodes = tuple(nodes)
    ctx._next_nrs = next_nrs
    ctx.needs_input_grad = needs
    if state.anomaly_enabled:
        ctx._creation_stack = traceback.format_stack()[:-3]
        ctx.metadata["traceback_"] = ctx._creation_stack
    return ctx


# `_next_nrs` and `needs_input_grad` take few distinct values ((0,), (True, False), ...): nodes
# share one copy of each, made once here per pattern of inputs, which leaves fewer new objects
# for the cycle collector to look at.
_edge_flags: dict[tuple, tuple] = {}


def _new_edge_flags(key: tuple) -> tuple:
    """(next_nrs, needs_input_grad) for a pattern of output numbers (-1: no gradient), or
    (None, None) when no input needs a gradient."""
    needs = tuple(nr >= 0 for nr in key)
    flags = (tuple(max(nr, 0) for nr in key), needs) if True in needs else (None, None)
    _edge_flags[key] = flags
    return flags
