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

from minigrad.autograd import events, jvp_apply
from minigrad.autograd import (
    tensor as _tensor,  # Tensor is used at call time (tensor.py imports us)
)
from minigrad.autograd.forward_ad import LEVELS, top_level
from minigrad.autograd.grad_mode import GRAD_ENABLED, state
from minigrad.autograd.node import Node
from minigrad.surface import meta

_sequence = itertools.count()


class BackwardCFunction(Node):
    """The node of a user's Function (`CubeBackward`), as in PyTorch: the ctx whose
    `saved_tensors` its forward filled with `ctx.save_for_backward`."""

    @property
    def saved_tensors(self) -> tuple:
        return self.unpack_saved()

    def save_for_forward(self, *values: Any) -> None:
        """Keep `values` for the Function's `jvp` (forward mode), where `ctx.saved_tensors`
        reads them (autograd/jvp_apply.py), as in PyTorch."""
        self._saved_forward = values


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
    saves_output = False  # built-in ops whose backward reads their own result set this
    is_view = False  # outputs share memory (and so the version counter) with input 0
    # (no op is both: a view's saved output would need the shared counter, see apply)
    # `backward_arrays(ctx, *grad_arrays) -> arrays`, where an op has one: the same gradients
    # as `backward` in numpy alone, which the engine calls when nothing is recorded.
    backward_arrays: Any = None
    # Declared on the class line by minigrad's own ops (`class Mul(Function,
    # numpy_forward=True)`) and inherited by their subclasses: forward computes with numpy
    # alone (it calls no Tensor op, so nothing in it can be recorded). It then runs without
    # turning grad mode off and, when nothing is recorded, on one shared ctx that keeps
    # nothing (`_scratch`) instead of a new Node each time. A user's Function: False.
    numpy_forward = False
    _scratch: Node | None = None
    # What PyTorch's node keeps that this op's backward does not need, by PyTorch's name:
    # {"self": 0, "result": RESULT} keeps input 0 and the output (see saved_names.py)
    pytorch_keeps: dict | None = None
    _node_class: type = Node

    def __init_subclass__(cls, numpy_forward: bool | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if numpy_forward is not None:
            cls.numpy_forward = numpy_forward
        if cls.is_view and cls.saves_output:
            raise TypeError(f"{cls.__name__}: a view op cannot also save its output")
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        formula = getattr(cls, "formula", "")
        # a user's Function gets PyTorch's BackwardCFunction node, whose ctx has saved_tensors
        base = Node if cls.numpy_forward else BackwardCFunction
        cls._node_class = type(name, (base,), {"_function": cls, "formula": formula,
                                               "__module__": cls.__module__,
                                               "__doc__": cls.__doc__})
        cls._scratch = None
        if cls.numpy_forward:
            cls._scratch = cls._node_class()
            cls._scratch._keeps_saved = False

    @staticmethod
    def forward(ctx: Node, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("Function subclasses must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx: Node, *grad_outputs: Any) -> Any:
        raise NotImplementedError("Function subclasses must implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward; when grad mode is on and an input requires grad, record a Node.

        Keyword arguments are settings (a dim, a shape), not inputs: they get no edge in
        `next_functions`, as in PyTorch, where `x.sum(0)` has one edge and `x * 3` two.
        """
        if LEVELS.visible and top_level(args) >= 0:  # forward mode: autograd/jvp_apply.py
            return jvp_apply.apply(cls, args, kwargs)
        on_meta = meta.in_use and meta.check_inputs(args)  # (False until a meta tensor exists)
        node = _new_node(cls, args) if GRAD_ENABLED.get() else None  # None: not recorded
        if cls.numpy_forward:  # nothing in it can be recorded: on the node, or a scratch ctx
            out = cls.forward(cls._scratch if node is None else node, *args, **kwargs)
        else:
            out = _user_forward(cls, node, args, kwargs)
        if on_meta:  # outputs of meta inputs are meta, where numpy let go of it
            out = meta.outputs(out)
        if type(out) is ndarray:  # the usual output: one array
            result = _tensor.make(out, node if out.dtype.kind == "f" else None, 0)
            results: tuple = (result,)
        else:  # a tuple of outputs, or a Tensor or number
            outs = out if isinstance(out, tuple) else (out,)
            results = tuple(_output(o, node, i) for i, o in enumerate(outs))
            result = results if isinstance(out, tuple) else results[0]
        if cls.is_view:  # they share input 0's memory, and so its version counter
            for r in results:
                _view_of(args[0], r)
        if node is not None:  # it keeps what backward needs to know of the outputs
            first = results[0]  # (the shape of each output is the shape of its gradient)
            node._shape = first.array.shape if isinstance(first, _tensor.Tensor) else ()
            if len(results) > 1:
                _keep_more_outputs(node, results)
            if kwargs:
                node._settings = kwargs
            if cls.saves_output:  # its backward reads output 0
                _keep_output(node, first)
            if cls.pytorch_keeps:  # (what PyTorch's node shows as `_saved_*` besides)
                _keep_as_pytorch(cls, node, args, first)
            if events.listening():
                events.emit(events.ForwardOp(node, args, result, kwargs))
        return result


def _user_forward(cls: type, node: Node | None, args: tuple, kwargs: dict) -> Any:
    """A user's forward, which computes with Tensor ops: they run with grad mode off (the
    Function is the one node), on a ctx that keeps nothing when nothing is recorded."""
    if node is None:
        node = cls._node_class()
        node._keeps_saved = False
    prev, state.grad_enabled = state.grad_enabled, False
    try:
        return cls.forward(node, *args, **kwargs)
    finally:
        state.grad_enabled = prev


def _output(out: Any, node: Node | None, index: int) -> Any:
    """Output `index` of forward as a new Tensor, pointing at `node` when it is recorded (a
    float, not marked non-differentiable); what is not an array passes as it is."""
    data = out
    if type(out) is not ndarray:
        if isinstance(out, _tensor.Tensor):
            data = out.array
        elif isinstance(out, np.generic):  # (numpy's reductions give scalars, not 0-d arrays)
            data = np.asanyarray(out)
        elif not isinstance(out, ndarray):
            return out
    if node is not None and data.dtype.kind == "f" and id(out) not in node._non_differentiable:
        return _tensor.make(data, node, index)
    return _tensor.make(data, None, 0)


def _keep_more_outputs(node: Node, results: tuple) -> None:
    """How many outputs the node has, and the shape and dtype of each (a gradient that does
    not arrive for one is made of zeros: Node._per_output)."""
    node._num_outputs = len(results)
    node._output_meta = tuple((o.array.shape, o.array.dtype) if isinstance(o, _tensor.Tensor)
                              else ((), np.dtype(bool)) for o in results)


def _keep_output(node: Node, output: Any) -> None:
    """Keep output 0 for backward as data and version counter, not as the Tensor (see
    Node.output). An output that points at the node hands its counter over when it first
    needs one (Tensor._shared_version: most never do); another gets one now."""
    node._output_array = output.array
    if output.grad_fn is not node:
        node._output_version_counter = output._shared_version()
        node._output_version = node._output_version_counter[0]


RESULT = "result"  # (in `pytorch_keeps`: the output)


def _keep_as_pytorch(cls: type, node: Node, args: tuple, first: Any) -> None:
    """Keep the inputs and output PyTorch's node keeps (`pytorch_keeps`), for `_saved_*`
    (an input as the Tensor it is, which PyTorch's node gives back)."""
    out = first.array if isinstance(first, _tensor.Tensor) else None
    node.keep_as_pytorch(**{name: out if where == RESULT else args[where]
                            for name, where in cls.pytorch_keeps.items()})


def _view_of(source: Any, view: Any) -> None:
    """`view` shares the memory, and the version counter, of `source`'s base (`source`
    itself, unless a view too: as in PyTorch, `_base` is never a view). A view made in grad
    mode is noted on the base, so that it can follow when an in-place op rebases the base
    (ops/view_rebase.py), even when nothing required grad when it was made."""
    view._version_counter = source._shared_version()
    base = source if source._base is None else source._base
    view._base = base
    if source._inference:  # (a view of an inference tensor is one too)
        view._inference = True
    if GRAD_ENABLED.get() and type(view.array) is ndarray:
        views = base.__dict__.get("_views")
        if views is None:
            views = base._views = weakref.WeakSet()
        views.add(view)


def _new_node(cls: type, args: tuple) -> Node | None:
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
